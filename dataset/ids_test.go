package dataset

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestIDTypesKept: --id-column values keep their JSON type in both
// outputs: JSONL as they are, Parquet as int64 when the ids are integers
// and as strings when they are strings, with nulls for rows without one; a
// mix, or an id of another kind, is an error naming the row (issue 18,
// item 5).
func TestIDTypesKept(t *testing.T) {
	defer func(n int64) { rowGroupBytes = n }(rowGroupBytes)
	const row = `"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "reasoning_content": "R", "content": "Hello"}]`
	lines := func(column string, ids ...string) [][]byte {
		var out [][]byte
		for _, id := range ids {
			if id == "" {
				out = append(out, []byte(`{`+row+`}`))
			} else {
				out = append(out, []byte(`{"`+column+`": `+id+`, `+row+`}`))
			}
		}
		return out
	}
	// Whole batches without ids first: their rows wait until the first id
	// says the type, or until they fill a row group.
	var many []string
	for range maxBatchRows + 10 {
		many = append(many, "")
	}
	for i := range 300 {
		many = append(many, strings.Repeat("1", 1+i%18))
	}
	tests := []struct {
		name     string
		ids      []string
		rowGroup int64  // rowGroupBytes for the run; 0 keeps the default
		kind     string // the Parquet column's type, or
		err      string // the error
	}{
		{"integers", []string{"1", "", "-7", "9223372036854775807", "null"}, 0, "INT64", ""},
		{"integers under another name", []string{"1", "", "2"}, 0, "INT64", ""},
		{"strings under another name", []string{`"a"`, "", `"b"`}, 0, "BYTE_ARRAY", ""},
		{"strings", []string{`"a"`, `"12"`, "", `"é"`}, 0, "BYTE_ARRAY", ""},
		{"integers after batches without ids", many, 0, "INT64", ""},
		{"integers after a row group without ids", many, 64 << 10, "", `id column "id": IN: line 4107: the id is an integer, but the column holds a string (the first `},
		{"no ids at all", []string{"", "null"}, 0, "BYTE_ARRAY", ""},
		{"mixed", []string{"", `"a"`, "2"}, 0, "", `id column "id": IN: line 3: the id is an integer, but the column holds a string (from IN: line 2 on); a Parquet column has one type: make the ids all integers or all strings`},
		{"mixed the other way", []string{"5", `"a"`}, 0, "", `IN: line 2: the id is a string, but the column holds an integer (from IN: line 1 on)`},
		{"float", []string{"1", "2.5"}, 0, "", `id column "id": IN: line 2: the id is a number that is not an integer (2.5); a Parquet output carries ids that are all integers or all strings (JSONL keeps any JSON value)`},
		{"object", []string{`{"a": 1}`}, 0, "", `IN: line 1: the id is an object;`},
		{"beyond int64", []string{"9223372036854775808"}, 0, "", `id column "id": IN: line 1: the id 9223372036854775808 does not fit a 64-bit integer`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.rowGroup > 0 {
				rowGroupBytes = tt.rowGroup
			}
			defer func(n int64) { rowGroupBytes = n }(rowGroupBytes)
			dir := t.TempDir()
			in := filepath.Join(dir, "in.jsonl")
			column := "id"
			if strings.Contains(tt.name, "another name") {
				column = "uid"
			}
			writeInput(t, in, lines(column, tt.ids...))
			want := make([]string, len(tt.ids))
			for i, id := range tt.ids {
				if want[i] = id; id == "" {
					want[i] = "null"
				}
			}
			// JSONL keeps every id as it is, mixed or not.
			c := Config{Inputs: []string{in}, Output: filepath.Join(dir, "out.jsonl"), IDColumn: column}
			if _, err := Run(context.Background(), c); err != nil {
				t.Fatal(err)
			}
			if got := readIDs(t, c.Output, column); !slices.Equal(got, want) {
				t.Fatalf("JSONL ids %v, want %v", got, want)
			}
			c.Output = filepath.Join(dir, "out.parquet")
			_, err := Run(context.Background(), c)
			if tt.err != "" {
				if w := strings.ReplaceAll(tt.err, "IN", in); err == nil || !strings.Contains(err.Error(), w) {
					t.Fatalf("Run: %v; want %s", err, w)
				}
				if _, serr := os.Stat(c.Output); !os.IsNotExist(serr) {
					t.Fatal("a failed run left its output")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if kind := idColumnType(t, c.Output); kind != tt.kind {
				t.Fatalf("id column of type %s, want %s", kind, tt.kind)
			}
			got := readIDs(t, c.Output, column)
			if tt.kind == "BYTE_ARRAY" || tt.kind == "INT64" {
				if !slices.Equal(got, want) {
					t.Fatalf("Parquet ids %v, want %v", got, want)
				}
			}
			if tt.kind == "INT64" && len(tt.ids) < 10 {
				rows := readWithHyparquet(t, c.Output)
				for i, r := range rows {
					// hyparquet writes int64 as a JSON number (exact up to 2^53).
					if w := want[i]; len(w) < 16 && string(r[column]) != w {
						t.Fatalf("hyparquet row %d: id %s, want %s", i, r[column], w)
					}
				}
			}
		})
	}
}

// idColumnType returns the physical type of the output's id column.
func idColumnType(t *testing.T, path string) string {
	t.Helper()
	switch typ := parquetFooter(t, path).schema[1].typ; typ {
	case pqInt64:
		return "INT64"
	case pqByteArray:
		return "BYTE_ARRAY"
	default:
		return "type " + strconv.Itoa(int(typ))
	}
}
