package dataset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/beamharmony/harmony"
)

func TestRerunSkipsCompleteParts(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	writeInput(t, in, append(repeatLines(validLine, 10), []byte(`{}`)))
	c := Config{Inputs: []string{in}, Output: filepath.Join(dir, "out.parquet")}
	run := func() error {
		_, err := Run(context.Background(), c)
		return err
	}
	if err := run(); err != nil {
		t.Fatal(err)
	}
	var m Manifest
	data, err := os.ReadFile(ManifestPath(c.Output))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if m.Rows != 11 || m.Written != 10 || m.Rejected != 1 || !testEnv().matches(m.Output) || !testEnv().matches(m.Rejects) || len(m.Inputs) != 1 || m.Inputs[0].Path != in {
		t.Fatalf("manifest %+v", m)
	}
	if err := run(); !errors.Is(err, ErrUpToDate) {
		t.Fatalf("second run: %v, want ErrUpToDate", err)
	}
	steps := []struct {
		name   string
		change func()
	}{
		{"output changed", func() {
			f, _ := os.OpenFile(c.Output, os.O_WRONLY, 0)
			f.WriteAt([]byte("x"), 10)
			f.Close()
		}},
		{"rejects removed", func() { os.Remove(DefaultRejectsPath(c.Output)) }},
		{"input touched", func() {
			later := time.Now().Add(time.Hour)
			os.Chtimes(in, later, later)
		}},
		{"options changed", func() { c.IDColumn = "id" }},
		{"forced", func() { c.Force = true }},
	}
	for _, s := range steps {
		s.change()
		if err := run(); err != nil {
			t.Fatalf("%s: the run should go again: %v", s.name, err)
		}
		c.Force = false
		if err := run(); !errors.Is(err, ErrUpToDate) {
			t.Fatalf("%s, then a rerun: %v, want ErrUpToDate", s.name, err)
		}
	}
}

// TestShardsCoverEveryUnitOnce: N shards together write every row once,
// each unit (a file) in exactly one shard, and their manifests list only
// their own inputs.
func TestShardsCoverEveryUnitOnce(t *testing.T) {
	dir := t.TempDir()
	var inputs []string
	var all [][]byte
	for i := range 5 {
		p := filepath.Join(dir, fmt.Sprintf("in-%d.jsonl", i))
		lines := make([][]byte, 3+i)
		for j := range lines {
			lines[j] = fmt.Appendf(nil, `{"messages": [{"role": "user", "content": "file %d row %d"}]}`, i, j)
		}
		writeInput(t, p, lines)
		inputs = append(inputs, p)
		all = append(all, lines...)
	}
	const n = 3
	var got []string
	for k := range n {
		c := Config{Inputs: inputs, Output: filepath.Join(dir, fmt.Sprintf("part-%d.jsonl", k)), Shard: k, Shards: n}
		st, err := Run(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		var m Manifest
		data, _ := os.ReadFile(ManifestPath(c.Output))
		json.Unmarshal(data, &m)
		var paths []string
		for _, mi := range m.Inputs {
			paths = append(paths, mi.Path)
		}
		var want []string
		for i := k; i < len(inputs); i += n {
			want = append(want, inputs[i])
		}
		if !slices.Equal(paths, want) || m.Options.Shard != fmt.Sprintf("%d/%d", k, n) || int(st.Units) != len(want) {
			t.Fatalf("shard %d: manifest inputs %v, shard %q; want %v", k, paths, m.Options.Shard, want)
		}
		for _, r := range readOutput(t, c.Output) {
			got = append(got, r.Text)
		}
	}
	var want []string
	for _, l := range all {
		want = append(want, expect(l, harmony.ReasoningEffort{}).text)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("the shards wrote %d rows, want the %d rows of the inputs once each", len(got), len(want))
	}
}
