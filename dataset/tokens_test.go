package dataset

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/beamharmony/harmony"
)

// byteTokens is a stand-in token RenderFunc: one id per byte of the
// prompt, masked 1 inside the assistant spans. It exercises the token
// columns, limits and truncation without a tokenizer.
func byteTokens(_ context.Context, req *harmony.Request, row *Row) error {
	p, err := req.RenderPrompt()
	if err != nil {
		return err
	}
	row.InputIDs = make([]int32, len(p.Text))
	row.AssistantMasks = make([]int32, len(p.Text))
	for i := range len(p.Text) {
		row.InputIDs[i] = int32(p.Text[i])
	}
	for _, s := range p.AssistantSpans {
		for i := s.Start; i < s.End; i++ {
			row.AssistantMasks[i] = 1
		}
	}
	return nil
}

type tokenRow struct {
	InputIDs       []int32 `json:"input_ids"`
	AssistantMasks []int32 `json:"assistant_masks"`
	NumTokens      int64   `json:"num_tokens"`
}

func readTokenRows(t *testing.T, path string) []tokenRow {
	t.Helper()
	if strings.HasSuffix(path, ".parquet") {
		var rows []tokenRow
		for _, row := range parquetRows(t, path) {
			var r tokenRow
			if err := json.Unmarshal(row, &r); err != nil {
				t.Fatal(err)
			}
			rows = append(rows, r)
		}
		return rows
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []tokenRow
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<30)
	for sc.Scan() {
		var r tokenRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	return rows
}

// TestTokenOutput: the token columns hold what the RenderFunc gives, in
// order; --max-tokens rejects longer rows, or with --truncate cuts ids and
// masks alike.
func TestTokenOutput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	lines := corpusLines(t, 9, 200)
	writeInput(t, in, lines)
	var want []Row
	for _, l := range lines {
		req, err := harmony.ParseRequest([]byte(string(l)))
		if err != nil {
			continue
		}
		req.AddGenerationPrompt = false
		req.PlaceLateInstructions = true
		var r Row
		if byteTokens(context.Background(), req, &r) == nil {
			want = append(want, r)
		}
	}
	lengths := make([]int, len(want))
	for i, r := range want {
		lengths[i] = len(r.InputIDs)
	}
	limit := slices.Sorted(slices.Values(lengths))[len(lengths)/2]
	for _, out := range []string{"out.jsonl", "out.parquet"} {
		for _, mode := range []string{"no limit", "max-tokens", "truncate"} {
			t.Run(out+"/"+mode, func(t *testing.T) {
				c := Config{Inputs: []string{in}, Output: filepath.Join(t.TempDir(), out), Render: byteTokens, Tokens: true, AllowMissingThinking: true}
				if mode != "no limit" {
					c.MaxTokens = limit
				}
				c.Truncate = mode == "truncate"
				st, err := Run(context.Background(), c)
				if err != nil {
					t.Fatal(err)
				}
				got := readTokenRows(t, c.Output)
				var exp []Row
				tooLong := 0
				for _, r := range want {
					switch {
					case c.MaxTokens == 0 || len(r.InputIDs) <= limit:
						exp = append(exp, r)
					case c.Truncate:
						exp = append(exp, Row{InputIDs: r.InputIDs[:limit], AssistantMasks: r.AssistantMasks[:limit]})
						tooLong++
					default:
						tooLong++
					}
				}
				if len(got) != len(exp) {
					t.Fatalf("%d rows, want %d", len(got), len(exp))
				}
				var tokens, trained int64
				for i, e := range exp {
					g := got[i]
					if !slices.Equal(g.InputIDs, e.InputIDs) || !slices.Equal(g.AssistantMasks, e.AssistantMasks) || g.NumTokens != int64(len(e.InputIDs)) {
						t.Fatalf("row %d differs: %d ids, %d masks, num_tokens %d; want %d", i, len(g.InputIDs), len(g.AssistantMasks), g.NumTokens, len(e.InputIDs))
					}
					tokens += int64(len(e.InputIDs))
					for _, m := range e.AssistantMasks {
						trained += int64(m)
					}
				}
				if st.Tokens != tokens || st.TrainedTokens != trained || st.RowsRead != st.RowsWritten+st.RowsRejected {
					t.Fatalf("stats %+v; want %d tokens, %d trained", st, tokens, trained)
				}
				rej := readRejects(t, DefaultRejectsPath(c.Output))
				switch mode {
				case "truncate":
					if st.RowsTruncated != int64(tooLong) || tooLong == 0 {
						t.Fatalf("%d truncated, want %d", st.RowsTruncated, tooLong)
					}
				case "max-tokens":
					n := 0
					for _, r := range rej {
						if strings.Contains(r.Error, fmt.Sprintf("more than --max-tokens %d", limit)) {
							n++
						}
					}
					if n != tooLong || tooLong == 0 {
						t.Fatalf("%d rejects for length, want %d", n, tooLong)
					}
				}
			})
		}
	}
}

// TestHyparquetReadsTokens: TRL's columns as another reader sees them.
func TestHyparquetReadsTokens(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	lines := corpusLines(t, 4, 60)
	writeInput(t, in, lines)
	c := Config{Inputs: []string{in}, Output: filepath.Join(dir, "out.parquet"), Render: byteTokens, Tokens: true}
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	want := readTokenRows(t, c.Output)
	rows := readWithHyparquet(t, c.Output)
	if len(rows) != len(want) || len(rows) == 0 {
		t.Fatalf("hyparquet read %d rows, want %d", len(rows), len(want))
	}
	for i, r := range rows {
		var g tokenRow
		json.Unmarshal(r["input_ids"], &g.InputIDs)
		json.Unmarshal(r["assistant_masks"], &g.AssistantMasks)
		json.Unmarshal(r["num_tokens"], &g.NumTokens)
		if !slices.Equal(g.InputIDs, want[i].InputIDs) || !slices.Equal(g.AssistantMasks, want[i].AssistantMasks) || g.NumTokens != int64(len(want[i].InputIDs)) {
			t.Fatalf("row %d: hyparquet reads other tokens", i)
		}
	}
}

// TestParquetRowsInFlight: a row for the Parquet output is kept as the
// worker rendered it (its ids and masks, 8 bytes a token) until the writer
// takes it, not converted to Parquet values in the worker (24 bytes per
// value, two per token), which held most of the pipeline's memory for
// token output (issue 18, item 7).
func TestParquetRowsInFlight(t *testing.T) {
	c := &Config{Output: "out.parquet", Tokens: true, IDColumn: "id"}
	p := newProcessor(c)
	b := &batch{u: &unit{in: &input{}}}
	row := Row{InputIDs: make([]int32, 4096), AssistantMasks: make([]int32, 4096)}
	r := rowRef{pos: 1}
	id := []byte(`"a"`)
	allocs := testing.AllocsPerRun(100, func() {
		b.outRows, b.idRaw, b.ids = b.outRows[:0], b.idRaw[:0], b.ids[:0]
		p.emit(b, &r, id, false, &row)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations to keep a row of 4096 tokens; want none", allocs)
	}
	if &b.outRows[0].InputIDs[0] != &row.InputIDs[0] {
		t.Fatal("the row's ids were copied")
	}
}
