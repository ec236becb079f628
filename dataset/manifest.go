package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"reflect"
	"strconv"
	"time"

	"github.com/beamharmony/harmony/internal/buildinfo"
)

// Manifest records a completed part: the inputs it read (with the row
// groups of Parquet inputs that its shard took), the options that shape
// its rows, its counts, and the sha256 of its output and rejects files. It
// is written last, so a part with a manifest is complete.
type Manifest struct {
	Format   string          `json:"format"`
	Options  ManifestOptions `json:"options"`
	Inputs   []ManifestInput `json:"inputs"`
	Rows     int64           `json:"rows_read"`
	Written  int64           `json:"rows_written"`
	Rejected int64           `json:"rows_rejected"`
	Output   FileDigest      `json:"output"`
	Rejects  FileDigest      `json:"rejects"`
	Finished string          `json:"finished"`
	// MaxRejects is the run's --max-rejects, and Outcome its decision:
	// "ok", or why the run failed (a rerun that finds the part complete
	// decides again with its own --max-rejects).
	MaxRejects string `json:"max_rejects"`
	Outcome    string `json:"outcome"`
	// RejectsNotWritten counts rejects past --max-rejects-bytes.
	RejectsNotWritten int64 `json:"rejects_not_written"`
	// RowsWithoutReasoning and TurnsWithoutReasoning count the assistant
	// turns without reasoning and their rows (Stats).
	RowsWithoutReasoning  int64 `json:"rows_without_reasoning"`
	TurnsWithoutReasoning int64 `json:"turns_without_reasoning"`
	// UnknownKeys counts the rows holding each kind of key the renderer
	// does not read (Stats).
	UnknownKeys map[string]int64 `json:"unknown_keys"`
	// Tool is the beamharmony that wrote the part. A rerun by another
	// version is still skipped when the inputs and options match.
	Tool ManifestTool `json:"tool"`
}

// ManifestTool names the build that wrote a part, from its build info.
type ManifestTool struct {
	Module    string `json:"module"`
	Version   string `json:"version"`
	Commit    string `json:"commit,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"go_version"`
}

func currentTool() ManifestTool {
	bi := buildinfo.Read()
	return ManifestTool{Module: bi.Module, Version: bi.Version, Commit: bi.Commit, Modified: bi.Modified, GoVersion: bi.GoVersion}
}

// manifestFormat names the manifest's layout.
const manifestFormat = "beamharmony-dataset-manifest/1"

// ManifestOptions are the options that change what a part holds.
type ManifestOptions struct {
	Shard          string `json:"shard"`
	Tokens         bool   `json:"tokens"`
	Tokenizer      string `json:"tokenizer,omitempty"`
	MaxTokens      int    `json:"max_tokens,omitempty"`
	Truncate       bool   `json:"truncate,omitempty"`
	MessagesColumn string `json:"messages_column"`
	ToolsColumn    string `json:"tools_column"`
	MessagesFormat string `json:"messages_format,omitempty"`
	ThinkTags      bool   `json:"think_tags,omitempty"`
	IDColumn       string `json:"id_column,omitempty"`
	DefaultEffort  string `json:"default_effort,omitempty"`
	MaxRowBytes    int    `json:"max_row_bytes"`
	// AllowMissingThinking is --allow-missing-thinking: such rows are
	// written instead of rejected.
	AllowMissingThinking bool `json:"allow_missing_thinking,omitempty"`
}

// ManifestInput is one input file of a part.
type ManifestInput struct {
	Path    string `json:"path"`
	Bytes   int64  `json:"bytes"`
	ModTime string `json:"mtime"`
	// RowGroups are the Parquet row groups read, when not every one was.
	RowGroups []int `json:"row_groups,omitempty"`
}

func newManifest(c *Config, inputs []*input, units []unit) *Manifest {
	m := &Manifest{Format: manifestFormat, Tool: currentTool(), Options: ManifestOptions{
		Shard:          "",
		Tokens:         c.Tokens,
		Tokenizer:      c.TokenizerID,
		MaxTokens:      c.MaxTokens,
		Truncate:       c.Truncate,
		MessagesColumn: c.column(c.MessagesColumn, "messages"),
		ToolsColumn:    c.column(c.ToolsColumn, "tools"),
		MessagesFormat: c.messagesFormat(),
		ThinkTags:      c.ThinkTags,
		IDColumn:       c.IDColumn,
		DefaultEffort:  c.DefaultEffort.String(),
		MaxRowBytes:    c.maxRowBytes(),

		AllowMissingThinking: c.AllowMissingThinking,
	}}
	if c.Shards > 0 {
		m.Options.Shard = itoa(c.Shard) + "/" + itoa(c.Shards)
	}
	for _, in := range inputs {
		mi := ManifestInput{Path: in.path, Bytes: in.size, ModTime: time.Unix(0, in.modTime).UTC().Format(time.RFC3339Nano)}
		if in.loc.stream {
			// Standard input: its bytes are known at the end (complete),
			// and it has no time; such a part is never skipped.
			mi.Bytes, mi.ModTime = 0, ""
		}
		taken := false
		for _, u := range units {
			if u.in != in {
				continue
			}
			taken = true
			if u.rowGroup >= 0 {
				mi.RowGroups = append(mi.RowGroups, u.rowGroup)
			}
		}
		if in.meta != nil && len(mi.RowGroups) == len(in.meta.rowGroups) {
			mi.RowGroups = nil
		}
		if taken || c.Shards == 0 {
			m.Inputs = append(m.Inputs, mi)
		}
	}
	return m
}

func itoa(n int) string { return strconv.Itoa(n) }

// readsStream reports whether the part reads standard input, which a
// rerun can't compare.
func (m *Manifest) readsStream() bool {
	for _, in := range m.Inputs {
		if in.Path == "-" {
			return true
		}
	}
	return false
}

func (m *Manifest) complete(st *Stats, inputs []*input, out, rej FileDigest) {
	for i := range m.Inputs {
		if m.Inputs[i].Path == "-" {
			for _, in := range inputs {
				if in.loc.stream {
					m.Inputs[i].Bytes = in.read.Load()
				}
			}
		}
	}
	m.Rows, m.Written, m.Rejected = st.RowsRead, st.RowsWritten, st.RowsRejected
	m.MaxRejects, m.Outcome, m.RejectsNotWritten = st.MaxRejects, st.Outcome, st.RejectsNotWritten
	m.RowsWithoutReasoning, m.TurnsWithoutReasoning = st.RowsWithoutReasoning, st.TurnsWithoutReasoning
	m.UnknownKeys = st.UnknownKeys
	m.Output, m.Rejects = out, rej
	m.Finished = time.Now().UTC().Format(time.RFC3339)
}

// encode returns the manifest as written.
func (m *Manifest) encode() []byte {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		panic(err) // plain strings and numbers
	}
	return append(data, '\n')
}

// upToDate returns the manifest at path when it records the same inputs
// and options as m, and the output and rejects files it names are still
// the ones it hashed; nil otherwise.
func (m *Manifest) upToDate(env *runEnv, path, output, rejects string) *Manifest {
	data, err := env.read(path, maxManifestBytes)
	if err != nil {
		return nil
	}
	var old Manifest
	if json.Unmarshal(data, &old) != nil || old.Format != m.Format {
		return nil
	}
	if old.Options != m.Options || !reflect.DeepEqual(old.Inputs, m.Inputs) {
		return nil
	}
	if old.Output.Path != output || old.Rejects.Path != rejects {
		return nil
	}
	if !env.matches(old.Output) || !env.matches(old.Rejects) {
		return nil
	}
	return &old
}

// maxManifestBytes bounds a manifest read back (one lists every input).
const maxManifestBytes = 64 << 20

// read reads the file or object at path, of at most limit bytes.
func (env *runEnv) read(path string, limit int64) ([]byte, error) {
	l, err := parseLocation(path)
	if err != nil {
		return nil, err
	}
	if !l.isObject() {
		return readRegular(path, limit)
	}
	b, err := env.stores.bucket(env.ctx, l)
	if err != nil {
		return nil, err
	}
	return readObject(env.ctx, b, l, limit)
}

// matches reports whether the file or object d names has d's size and
// sha256.
func (env *runEnv) matches(d FileDigest) bool {
	l, err := parseLocation(d.Path)
	if err != nil || l.stream {
		return false
	}
	if l.isObject() {
		b, err := env.stores.bucket(env.ctx, l)
		return err == nil && objectMatches(env.ctx, b, l, d.Bytes, d.SHA256)
	}
	f, err := openRegular(d.Path)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.Size() != d.Bytes {
		return false
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return false
	}
	return hex.EncodeToString(h.Sum(nil)) == d.SHA256
}
