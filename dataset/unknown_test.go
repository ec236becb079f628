package dataset

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/beamharmony/harmony"
)

// TestUnknownKeys: the keys of a row the renderer does not read (a
// misspelt tools, a message's weight, a tool's misspelt parameters) are
// counted by kind, once per row, in the stats, the summary and the
// manifest; the --id-column and a renamed column's key are not, and the
// rows are rendered as without them.
func TestUnknownKeys(t *testing.T) {
	lines := [][]byte{
		[]byte(`{"uid": 1, "messages": [{"role": "user", "content": "Hi", "weight": 0}, {"role": "assistant", "reasoning_content": "R.", "content": "Hello!", "weight": 1}], "tols": []}`),
		[]byte(`{"uid": 2, "messages": [{"role": "user", "content": "Hi", "weight": 0}], "tools": [{"type": "function", "function": {"name": "f", "paramters": {"type": "object"}}}]}`),
		[]byte(`{"uid": 3, "messages": [{"role": "user", "content": "Hi"}]}`),
	}
	clean := [][]byte{
		[]byte(`{"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "reasoning_content": "R.", "content": "Hello!"}]}`),
		[]byte(`{"messages": [{"role": "user", "content": "Hi"}], "tools": [{"type": "function", "function": {"name": "f"}}]}`),
		[]byte(`{"messages": [{"role": "user", "content": "Hi"}]}`),
	}
	want := map[string]int64{
		"messages[].weight: unknown key, not rendered; remove it":                         2,
		"tols: unknown key, not rendered; did you mean tools?":                            1,
		"tools[].function.paramters: unknown key, not rendered; did you mean parameters?": 1,
	}
	dir := t.TempDir()
	in, ref := filepath.Join(dir, "in.jsonl"), filepath.Join(dir, "clean.jsonl")
	writeInput(t, in, lines)
	writeInput(t, ref, clean)
	c := Config{Inputs: []string{in}, Output: filepath.Join(dir, "out.jsonl"), IDColumn: "uid", Stats: filepath.Join(dir, "stats.json")}
	st, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(st.UnknownKeys, want) {
		t.Errorf("UnknownKeys %v; want %v", st.UnknownKeys, want)
	}
	cleanSt, err := Run(context.Background(), Config{Inputs: []string{ref}, Output: filepath.Join(dir, "clean-out.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	if len(cleanSt.UnknownKeys) != 0 {
		t.Errorf("clean rows: UnknownKeys %v", cleanSt.UnknownKeys)
	}
	got, wantRows := readOutput(t, c.Output), readOutput(t, filepath.Join(dir, "clean-out.jsonl"))
	if len(got) != 3 || len(wantRows) != 3 {
		t.Fatalf("%d and %d rows; want 3", len(got), len(wantRows))
	}
	for i := range got {
		if got[i].Text != wantRows[i].Text {
			t.Errorf("row %d: unknown keys changed the text:\n%q\n%q", i, got[i].Text, wantRows[i].Text)
		}
	}
	var sum bytes.Buffer
	st.WriteSummary(&sum, false)
	wantSum := "keys the renderer does not read (nothing of them is in the rows written), by rows holding each:\n" +
		"       2  messages[].weight: unknown key, not rendered; remove it\n" +
		"       1  tols: unknown key, not rendered; did you mean tools?\n" +
		"       1  tools[].function.paramters: unknown key, not rendered; did you mean parameters?\n"
	if !strings.Contains(sum.String(), wantSum) {
		t.Errorf("summary:\n%s\nwant it to hold:\n%s", sum.String(), wantSum)
	}
	for _, path := range []string{c.Stats, ManifestPath(c.Output)} {
		var v struct {
			UnknownKeys map[string]int64 `json:"unknown_keys"`
		}
		data, _ := os.ReadFile(path)
		if err := json.Unmarshal(data, &v); err != nil || !maps.Equal(v.UnknownKeys, want) {
			t.Errorf("%s: unknown_keys %v (%v); want %v", path, v.UnknownKeys, err, want)
		}
	}
	// A rerun that finds the output complete reports the same counts,
	// from the manifest.
	again, err := Run(context.Background(), c)
	if err != ErrUpToDate || !maps.Equal(again.UnknownKeys, want) {
		t.Errorf("rerun: %v, UnknownKeys %v", err, again.UnknownKeys)
	}
	// A renamed column feeds its key: it is read, and the request key of
	// the same name it replaces is dropped, not counted.
	renamed := filepath.Join(dir, "renamed.jsonl")
	writeInput(t, renamed, [][]byte{[]byte(`{"conversations": [{"role": "user", "content": "Hi"}], "messages": "ignored"}`)})
	rst, err := Run(context.Background(), Config{Inputs: []string{renamed}, Output: filepath.Join(dir, "renamed-out.jsonl"), MessagesColumn: "conversations"})
	if err != nil || len(rst.UnknownKeys) != 0 {
		t.Errorf("renamed column: %v, UnknownKeys %v", err, rst.UnknownKeys)
	}
}

// TestUnknownKeyKinds: past maxUnknownKinds kinds, the rows holding new
// kinds are counted once each under one entry, so that a dataset whose
// rows each hold keys of their own keeps a bounded map; the summary names
// the most common few.
func TestUnknownKeyKinds(t *testing.T) {
	var lines [][]byte
	for i := range maxUnknownKinds + 50 {
		// Two kinds of their own in each row past the cap, one in each
		// before it.
		row := `{"messages": [{"role": "user", "content": "Hi"}], "k` + strconv.Itoa(i) + `": 1`
		if i >= maxUnknownKinds {
			row += `, "j` + strconv.Itoa(i) + `": 1`
		}
		lines = append(lines, []byte(row+"}"))
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	writeInput(t, in, lines)
	st, err := Run(context.Background(), Config{Inputs: []string{in}, Output: filepath.Join(dir, "out.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.UnknownKeys) != maxUnknownKinds+1 || st.UnknownKeys[otherUnknownKeys] != 50 {
		t.Errorf("%d kinds, %d other; want %d and 50", len(st.UnknownKeys), st.UnknownKeys[otherUnknownKeys], maxUnknownKinds+1)
	}
	// docs/dataset.md states the cap.
	doc, err := os.ReadFile(filepath.Join("..", "docs", "dataset.md"))
	if err != nil || !strings.Contains(string(doc), "at most "+strconv.Itoa(maxUnknownKinds)+" kinds are named") ||
		!strings.Contains(string(doc), "the summary lists the "+strconv.Itoa(summaryUnknownKinds)+" most common") {
		t.Errorf("docs/dataset.md does not say that at most %d kinds are named (%v)", maxUnknownKinds, err)
	}
	var n int64
	for _, c := range st.UnknownKeys {
		n += c
	}
	if n != int64(len(lines)) {
		t.Errorf("%d rows counted; want %d", n, len(lines))
	}
	var sum bytes.Buffer
	st.WriteSummary(&sum, false)
	if got := strings.Count(sum.String(), "unknown key, not rendered"); got != summaryUnknownKinds-1 || !strings.Contains(sum.String(), "      50  "+otherUnknownKeys+"\n") ||
		!strings.Contains(sum.String(), "  and "+strconv.Itoa(maxUnknownKinds+1-summaryUnknownKinds)+" more kinds (--stats lists them)\n") {
		t.Errorf("summary:\n%s", sum.String())
	}
}

func TestUnknownKind(t *testing.T) {
	for path, want := range map[string]string{
		"messages[12].content[0].cache_control": "messages[].content[].cache_control",
		`messages[3]["a[1]"]`:                   `messages[]["a[1]"]`,
		`["a\"[1]"][2]`:                         `["a\"[1]"][]`,
		"tols":                                  "tols",
		`["[x]"]`:                               `["[x]"]`,
		"a[":                                    "a[",
		"a[1":                                   "a[1",
	} {
		if got := unknownKind(harmonyWarning(path)); got != want+": m" {
			t.Errorf("unknownKind(%q) = %q; want %q", path, got, want+": m")
		}
	}
}

func harmonyWarning(path string) harmony.Warning { return harmony.Warning{Path: path, Msg: "m"} }

// TestUnreadParquetColumns: a Parquet input's top-level columns that the
// run does not read are named in a warning of the run (the stats'
// warnings, which the command prints), at most maxNamedColumns of them;
// the columns it reads (messages under its own or a renamed name, tools,
// the request keys, the id) are not.
func TestUnreadParquetColumns(t *testing.T) {
	in := filepath.Join("testdata", "parquet", "hf-rows.parquet")
	c := Config{Inputs: []string{in}, Output: filepath.Join(t.TempDir(), "out.jsonl"), MessagesColumn: "conversations", IDColumn: "id", MaxRejects: mustLimit(t, "100%")}
	st, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	want := in + ": columns not read, so not in the rows written: source"
	if !slices.Contains(st.Warnings, want) {
		t.Errorf("warnings %q; want %q", st.Warnings, want)
	}
	// Without --id-column the id column is not read either.
	c.IDColumn, c.Output = "", filepath.Join(t.TempDir(), "out.jsonl")
	st, err = Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if want := in + ": columns not read, so not in the rows written: id, source"; !slices.Contains(st.Warnings, want) {
		t.Errorf("warnings %q; want %q", st.Warnings, want)
	}
	var many []string
	for i := range maxNamedColumns + 3 {
		many = append(many, "c"+strconv.Itoa(i))
	}
	if got := unreadColumnsWarning("f.parquet", many); !strings.HasSuffix(got, ", c19 and 3 more") || !strings.HasPrefix(got, "f.parquet: columns not read, so not in the rows written: c0, c1, ") {
		t.Errorf("%q", got)
	}
	if got := unreadColumnsWarning("f.parquet", nil); got != "" {
		t.Errorf("no column: %q", got)
	}
}
