// Package buildinfo reports what a binary was built from: the module's
// version, the version control commit and the Go version, as recorded by
// the go command (runtime/debug.ReadBuildInfo).
//
// The command line prints it (beamharmony version), the gateway logs it at
// startup, and the dataset tool writes it into what it produces (Parquet
// created_by, manifests), so that an output or a log names the code that
// made it.
package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
)

// ModulePath is this module's path, used when the build info lacks it.
const ModulePath = "github.com/beamharmony/harmony"

// Info is what a binary was built from. A field the build did not record
// is empty (or false).
type Info struct {
	// Module is the main module's path.
	Module string
	// Version is the main module's version: a release tag such as v1.2.0,
	// a pseudo-version, or "(devel)" for a build inside a checkout
	// without version control information.
	Version string
	// Commit is the version control revision (vcs.revision), in full.
	Commit string
	// Time is the commit's time (vcs.time), RFC 3339.
	Time string
	// Modified reports a build from a work tree with uncommitted changes
	// (vcs.modified).
	Modified bool
	// GoVersion is the Go toolchain that built the binary, such as go1.26.0.
	GoVersion string
}

var (
	once   sync.Once
	cached Info
)

// Read returns the running binary's build information. It is computed
// once; without build information (a binary built without module
// support) Version is "(unknown)".
func Read() Info {
	once.Do(func() {
		bi, ok := debug.ReadBuildInfo()
		cached = FromBuildInfo(bi, ok)
	})
	return cached
}

// FromBuildInfo extracts an Info from bi, as debug.ReadBuildInfo returned
// it (ok false: no information).
func FromBuildInfo(bi *debug.BuildInfo, ok bool) Info {
	info := Info{Module: ModulePath, Version: "(unknown)", GoVersion: runtime.Version()}
	if !ok || bi == nil {
		return info
	}
	if bi.GoVersion != "" {
		info.GoVersion = bi.GoVersion
	}
	if bi.Main.Path != "" {
		info.Module = bi.Main.Path
	}
	if bi.Main.Version != "" {
		info.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Commit = s.Value
		case "vcs.time":
			info.Time = s.Value
		case "vcs.modified":
			info.Modified = s.Value == "true"
		}
	}
	return info
}

// ShortCommit is the commit's first 12 characters, or "" when unknown.
func (i Info) ShortCommit() string {
	if len(i.Commit) > 12 {
		return i.Commit[:12]
	}
	return i.Commit
}

// String is the one-line form the version command prints:
// "github.com/beamharmony/harmony v1.2.0 (commit 0123456789ab, modified) go1.26.0",
// "(commit unknown)" when the build recorded none.
func (i Info) String() string {
	var b strings.Builder
	b.WriteString(i.Module)
	b.WriteByte(' ')
	b.WriteString(i.Version)
	b.WriteString(" (commit ")
	if i.Commit == "" {
		// A build without version control information (go install of a
		// module, a tree without .git): said, not left out.
		b.WriteString("unknown")
	}
	b.WriteString(i.ShortCommit())
	if i.Modified {
		b.WriteString(", modified")
	}
	b.WriteByte(')')
	b.WriteByte(' ')
	b.WriteString(i.GoVersion)
	return b.String()
}

// CreatedBy is the name of the producing software for file metadata such
// as Parquet's created_by: "beamharmony version v1.2.0 (build 0123456789ab)",
// the application / version / build form Parquet readers parse.
func (i Info) CreatedBy() string {
	s := "beamharmony version " + i.Version
	if c := i.ShortCommit(); c != "" {
		s += " (build " + c + ")"
	}
	return s
}
