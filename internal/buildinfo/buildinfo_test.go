package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	const rev = "0123456789abcdef0123456789abcdef01234567"
	tests := []struct {
		name      string
		bi        *debug.BuildInfo
		ok        bool
		want      Info
		str       string
		createdBy string
	}{
		{
			name:      "none",
			want:      Info{Module: ModulePath, Version: "(unknown)", GoVersion: runtime.Version()},
			str:       ModulePath + " (unknown) (commit unknown) " + runtime.Version(),
			createdBy: "beamharmony version (unknown)",
		},
		{
			name: "release",
			ok:   true,
			bi: &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: ModulePath, Version: "v1.2.0"},
				Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "false"}}},
			want:      Info{Module: ModulePath, Version: "v1.2.0", Commit: rev, Time: "2026-01-02T03:04:05Z", GoVersion: "go1.26.0"},
			str:       ModulePath + " v1.2.0 (commit 0123456789ab) go1.26.0",
			createdBy: "beamharmony version v1.2.0 (build 0123456789ab)",
		},
		{
			name: "modified checkout",
			ok:   true,
			bi: &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: ModulePath, Version: "(devel)"},
				Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"}}},
			want:      Info{Module: ModulePath, Version: "(devel)", Commit: "abc", Modified: true, GoVersion: "go1.26.8"},
			str:       ModulePath + " (devel) (commit abc, modified) go1.26.8",
			createdBy: "beamharmony version (devel) (build abc)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FromBuildInfo(tt.bi, tt.ok)
			if got != tt.want {
				t.Errorf("FromBuildInfo = %+v, want %+v", got, tt.want)
			}
			if s := got.String(); s != tt.str {
				t.Errorf("String = %q, want %q", s, tt.str)
			}
			if s := got.CreatedBy(); s != tt.createdBy {
				t.Errorf("CreatedBy = %q, want %q", s, tt.createdBy)
			}
		})
	}
}

// Read reports the test binary's own build: this module, and the Go that
// runs the test.
func TestRead(t *testing.T) {
	info := Read()
	if info.Module != ModulePath {
		t.Errorf("Module = %q, want %q", info.Module, ModulePath)
	}
	if info.GoVersion != runtime.Version() {
		t.Errorf("GoVersion = %q, want %q", info.GoVersion, runtime.Version())
	}
	if info.Version == "" || !strings.HasPrefix(info.String(), ModulePath+" ") {
		t.Errorf("Read = %+v", info)
	}
}
