package dataset

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/beamharmony/harmony"
)

// The Go types below are the rows of testdata/parquet/hf-rows.parquet,
// which conformance/parquetgo writes with parquet-go from the same types,
// in the schema the Hugging Face datasets library (through Arrow) writes
// for chat data: every field optional, lists as LIST groups of optional
// elements, the keys of all rows unified into one struct with nulls where
// a row lacks a key.

type hfFunctionCall struct {
	Name      *string `parquet:"name,optional"`
	Arguments *string `parquet:"arguments,optional"`
}

type hfToolCall struct {
	ID       *string         `parquet:"id,optional"`
	Type     *string         `parquet:"type,optional"`
	Function *hfFunctionCall `parquet:"function,optional"`
}

type hfMessage struct {
	Role             *string      `parquet:"role,optional"`
	Content          *string      `parquet:"content,optional"`
	ReasoningContent *string      `parquet:"reasoning_content,optional"`
	ToolCalls        []hfToolCall `parquet:"tool_calls,list,optional"`
	ToolCallID       *string      `parquet:"tool_call_id,optional"`
}

type hfProperty struct {
	Type        *string  `parquet:"type,optional"`
	Description *string  `parquet:"description,optional"`
	Enum        []string `parquet:"enum,list,optional"`
	Default     *float64 `parquet:"default,optional"`
}

type hfProperties struct {
	City *hfProperty `parquet:"city,optional"`
	Unit *hfProperty `parquet:"unit,optional"`
	Days *hfProperty `parquet:"days,optional"`
}

type hfParameters struct {
	Type       *string       `parquet:"type,optional"`
	Properties *hfProperties `parquet:"properties,optional"`
	Required   []string      `parquet:"required,list,optional"`
}

type hfFunction struct {
	Name        *string       `parquet:"name,optional"`
	Description *string       `parquet:"description,optional"`
	Parameters  *hfParameters `parquet:"parameters,optional"`
}

type hfTool struct {
	Type     *string     `parquet:"type,optional"`
	Function *hfFunction `parquet:"function,optional"`
}

type hfRow struct {
	ID              *string     `parquet:"id,optional"`
	Conversations   []hfMessage `parquet:"conversations,list,optional"`
	Tools           []hfTool    `parquet:"tools,list,optional"`
	ReasoningEffort *string     `parquet:"reasoning_effort,optional"`
	Source          *string     `parquet:"source,optional"`
}

func s(v string) *string { return &v }

func f64(v float64) *float64 { return &v }

// hfRows are rows in the datasets shape, each with the request JSON it
// stands for (null fields absent).
func hfRows() ([]hfRow, []string) {
	weather := hfTool{Type: s("function"), Function: &hfFunction{
		Name: s("get_weather"), Description: s("Current weather."),
		Parameters: &hfParameters{Type: s("object"), Required: []string{"city"}, Properties: &hfProperties{
			City: &hfProperty{Type: s("string"), Description: s("City name")},
			Unit: &hfProperty{Type: s("string"), Enum: []string{"c", "f"}},
			Days: &hfProperty{Type: s("number"), Default: f64(3)},
		}}}}
	weatherJSON := `{"type": "function", "function": {"name": "get_weather", "description": "Current weather.", "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}, "unit": {"type": "string", "enum": ["c", "f"]}, "days": {"type": "number", "default": 3.0}}, "required": ["city"]}}}`
	// A tool whose schema lacks unit and days: datasets fills them with null.
	search := hfTool{Type: s("function"), Function: &hfFunction{
		Name: s("lookup"),
		Parameters: &hfParameters{Type: s("object"), Required: []string{}, Properties: &hfProperties{
			City: &hfProperty{Type: s("string")},
		}}}}
	searchJSON := `{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": []}}}`
	rows := []hfRow{
		{ID: s("r0"), Conversations: []hfMessage{
			{Role: s("user"), Content: s("Hi")},
			{Role: s("assistant"), Content: s("Hello!"), ReasoningContent: s("Greet back.")},
		}},
		{ID: s("r1"), Tools: []hfTool{weather, search}, ReasoningEffort: s("low"), Conversations: []hfMessage{
			{Role: s("system"), Content: s("Be brief.")},
			{Role: s("user"), Content: s("Weather in Paris?")},
			{Role: s("assistant"), ReasoningContent: s("Use the tool."), ToolCalls: []hfToolCall{
				{ID: s("c1"), Type: s("function"), Function: &hfFunctionCall{Name: s("get_weather"), Arguments: s(`{"city": "Paris", "days": 2}`)}},
				{ID: s("c2"), Type: s("function"), Function: &hfFunctionCall{Name: s("lookup"), Arguments: s(`{"city": "Paris"}`)}},
			}},
			{Role: s("tool"), ToolCallID: s("c1"), Content: s("12 C")},
			{Role: s("tool"), ToolCallID: s("c2"), Content: s("France")},
			{Role: s("assistant"), Content: s("12 C."), ReasoningContent: s("Answer.")},
		}},
		{ID: nil, Conversations: []hfMessage{{Role: s("user"), Content: s("no id, no tools")}}, Tools: []hfTool{}},
		{ID: s("r3"), Conversations: nil},                                               // no messages: rejected
		{ID: s("r4"), Conversations: []hfMessage{{Role: s("wizard"), Content: s("x")}}}, // bad role: rejected
	}
	reqs := []string{
		`{"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!", "reasoning_content": "Greet back."}]}`,
		`{"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Weather in Paris?"}, {"role": "assistant", "reasoning_content": "Use the tool.", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\", \"days\": 2}"}}, {"id": "c2", "type": "function", "function": {"name": "lookup", "arguments": "{\"city\": \"Paris\"}"}}]}, {"role": "tool", "content": "12 C", "tool_call_id": "c1"}, {"role": "tool", "content": "France", "tool_call_id": "c2"}, {"role": "assistant", "content": "12 C.", "reasoning_content": "Answer."}], "tools": [` + weatherJSON + `, ` + searchJSON + `], "reasoning_effort": "low"}`,
		`{"messages": [{"role": "user", "content": "no id, no tools"}], "tools": []}`,
		`{}`,
		`{"messages": [{"role": "wizard", "content": "x"}]}`,
	}
	return rows, reqs
}

// TestParquetInputLikeDatasets reads nested lists of structs with null
// fields, tools as structs, a renamed messages column and an id.
func TestParquetInputLikeDatasets(t *testing.T) {
	// hfRows written by parquet-go (conformance/parquetgo), two rows per
	// row group: rows cross row groups and batches.
	in := filepath.Join("testdata", "parquet", "hf-rows.parquet")
	rows, reqs := hfRows()
	for _, out := range []string{"out.jsonl", "out.parquet"} {
		t.Run(out, func(t *testing.T) {
			c := Config{Inputs: []string{in}, Output: filepath.Join(t.TempDir(), out), MessagesColumn: "conversations", IDColumn: "id"}
			st, err := Run(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			if st.Units != 3 {
				t.Fatalf("%d units, want 3 row groups", st.Units)
			}
			got := readOutput(t, c.Output)
			rej := readRejects(t, DefaultRejectsPath(c.Output))
			var wantIdx []int64
			n := 0
			for i, r := range reqs {
				e := expect([]byte(r), harmony.ReasoningEffort{})
				if e.err != "" {
					wantIdx = append(wantIdx, int64(i))
					continue
				}
				if n >= len(got) || got[n].Text != e.text || !slices.Equal(got[n].AssistantSpans, e.spans) {
					t.Fatalf("row %d differs from the library's rendering of %s", i, r)
				}
				if (rows[i].ID == nil) != (got[n].ID == nil) || (rows[i].ID != nil && *got[n].ID != *rows[i].ID) {
					t.Fatalf("row %d: id %v, want %v", i, got[n].ID, rows[i].ID)
				}
				n++
			}
			if n != len(got) || len(rej) != len(wantIdx) {
				t.Fatalf("%d rows, %d rejects; want %d, %d", len(got), len(rej), n, len(wantIdx))
			}
			for i, r := range rej {
				if r.RowIndex == nil || *r.RowIndex != wantIdx[i] || r.Source != in {
					t.Fatalf("reject %d: %+v, want row_index %d", i, r, wantIdx[i])
				}
				e := expect([]byte(reqs[wantIdx[i]]), harmony.ReasoningEffort{})
				if r.Error != e.err {
					t.Fatalf("reject %d: %q, want %q", i, r.Error, e.err)
				}
			}
			if st.RowsRead != 5 || st.RowsRead != st.RowsWritten+st.RowsRejected {
				t.Fatalf("%+v", st)
			}
		})
	}
}

// TestParquetJSONStringColumns renders the whole generated corpus from a
// Parquet file whose messages and tools are JSON strings, and checks every
// row against the library; then by shards of row groups.
func TestParquetJSONStringColumns(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "corpus.parquet")
	lines := corpusLines(t, 5, 300)
	// The messages and tools as JSON strings, as some datasets store them.
	var rows [][]*string
	var reqs [][]byte
	for _, l := range lines {
		var m map[string]json.RawMessage
		if json.Unmarshal(l, &m) != nil || m["messages"] == nil {
			continue
		}
		// Keep only what the columns carry; other options are left out.
		r := []*string{s(string(m["messages"])), nil, nil}
		req := `{"messages": ` + string(m["messages"])
		if t, ok := m["tools"]; ok && string(t) != "null" {
			r[1] = s(string(t))
			req += `, "tools": ` + string(t)
		}
		var effort string
		if json.Unmarshal(m["reasoning_effort"], &effort) == nil && effort != "" {
			r[2] = &effort
			req += `, "reasoning_effort": ` + string(m["reasoning_effort"])
		}
		rows = append(rows, r)
		reqs = append(reqs, []byte(req+"}"))
	}
	writeStringColumns(t, in, []string{"messages", "tools", "reasoning_effort"}, []bool{false, true, true}, rows, 40)
	var all []expected
	for _, r := range reqs {
		all = append(all, expect(r, harmony.ReasoningEffort{}))
	}
	const shards = 3
	written := 0
	for k := range shards {
		c := Config{Inputs: []string{in}, Output: filepath.Join(dir, fmt.Sprintf("part-%d.jsonl", k)), Shard: k, Shards: shards, Workers: 3}
		st, err := Run(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		got := readOutput(t, c.Output)
		rej := readRejects(t, DefaultRejectsPath(c.Output))
		gi, ri := 0, 0
		for rg := k; rg*40 < len(rows); rg += shards {
			for i := rg * 40; i < min(len(rows), rg*40+40); i++ {
				if all[i].err != "" {
					if ri >= len(rej) || *rej[ri].RowIndex != int64(i) || rej[ri].Error != all[i].err {
						t.Fatalf("shard %d: row %d should be rejected with %q", k, i, all[i].err)
					}
					ri++
					continue
				}
				if gi >= len(got) || got[gi].Text != all[i].text || !slices.Equal(got[gi].AssistantSpans, all[i].spans) {
					t.Fatalf("shard %d: row %d differs from the library's", k, i)
				}
				gi++
			}
		}
		if gi != len(got) || ri != len(rej) || st.RowsRead != st.RowsWritten+st.RowsRejected {
			t.Fatalf("shard %d: %d rows and %d rejects, checked %d and %d", k, len(got), len(rej), gi, ri)
		}
		written += gi + ri
	}
	if written != len(rows) {
		t.Fatalf("the shards covered %d rows of %d", written, len(rows))
	}
}

func TestPythonFloats(t *testing.T) {
	tests := []struct {
		f    float64
		want string
	}{
		{3, "3.0"}, {0, "0.0"}, {math.Copysign(0, -1), "-0.0"}, {0.5, "0.5"}, {1e-05, "1e-05"}, {0.0001, "0.0001"},
		{1e16, "1e+16"}, {1e15, "1000000000000000.0"}, {123456789.125, "123456789.125"},
		{float64(float32(0.1)), "0.10000000149011612"}, {-2.5e-7, "-2.5e-07"},
		{math.Inf(1), "Infinity"}, {math.NaN(), "NaN"},
	}
	for _, tt := range tests {
		if got := string(appendPyFloat(nil, tt.f)); got != tt.want {
			t.Errorf("%v: %s, want %s", tt.f, got, tt.want)
		}
	}
}
