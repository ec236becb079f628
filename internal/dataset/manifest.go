package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"reflect"
	"strconv"
	"time"
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
	IDColumn       string `json:"id_column,omitempty"`
	DefaultEffort  string `json:"default_effort,omitempty"`
	MaxRowBytes    int    `json:"max_row_bytes"`
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
	m := &Manifest{Format: manifestFormat, Options: ManifestOptions{
		Shard:          "",
		Tokens:         c.Tokens,
		Tokenizer:      c.TokenizerID,
		MaxTokens:      c.MaxTokens,
		Truncate:       c.Truncate,
		MessagesColumn: c.column(c.MessagesColumn, "messages"),
		ToolsColumn:    c.column(c.ToolsColumn, "tools"),
		IDColumn:       c.IDColumn,
		DefaultEffort:  c.DefaultEffort.String(),
		MaxRowBytes:    c.maxRowBytes(),
	}}
	if c.Shards > 0 {
		m.Options.Shard = itoa(c.Shard) + "/" + itoa(c.Shards)
	}
	for _, in := range inputs {
		mi := ManifestInput{Path: in.path, Bytes: in.size, ModTime: time.Unix(0, in.modTime).UTC().Format(time.RFC3339Nano)}
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
		if in.pq != nil && len(mi.RowGroups) == len(in.pq.RowGroups()) {
			mi.RowGroups = nil
		}
		if taken || c.Shards == 0 {
			m.Inputs = append(m.Inputs, mi)
		}
	}
	return m
}

func itoa(n int) string { return strconv.Itoa(n) }

func (m *Manifest) complete(st *Stats, out, rej FileDigest) {
	m.Rows, m.Written, m.Rejected = st.RowsRead, st.RowsWritten, st.RowsRejected
	m.Output, m.Rejects = out, rej
	m.Finished = time.Now().UTC().Format(time.RFC3339)
}

func (m *Manifest) write(path string) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	f, err := createAtomic(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(data, '\n')); err != nil {
		f.abort()
		return err
	}
	return f.commit()
}

// upToDate reports whether the manifest at path records the same inputs
// and options as m, and the output and rejects files it names are still
// the ones it hashed.
func (m *Manifest) upToDate(path, output, rejects string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var old Manifest
	if json.Unmarshal(data, &old) != nil || old.Format != m.Format {
		return false
	}
	if old.Options != m.Options || !reflect.DeepEqual(old.Inputs, m.Inputs) {
		return false
	}
	if old.Output.Path != output || old.Rejects.Path != rejects {
		return false
	}
	return fileMatches(old.Output) && fileMatches(old.Rejects)
}

// fileMatches reports whether the file d names has d's size and sha256.
func fileMatches(d FileDigest) bool {
	f, err := os.Open(d.Path)
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
