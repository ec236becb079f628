package parquetgo

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
)

var update = flag.Bool("update", false, "rewrite the Parquet files the main module's tests read")

// The rows below are those of the dataset package's tests (parquet_test.go:
// hfRows), in the schema the Hugging Face datasets library (through Arrow)
// writes for chat data: every field optional, lists as LIST groups, the
// keys of all rows unified into one struct with nulls where a row lacks a
// key.

type hfFunctionCall struct {
	Name      *string `parquet:"name,optional" json:"name"`
	Arguments *string `parquet:"arguments,optional" json:"arguments"`
}

type hfToolCall struct {
	ID       *string         `parquet:"id,optional" json:"id"`
	Type     *string         `parquet:"type,optional" json:"type"`
	Function *hfFunctionCall `parquet:"function,optional" json:"function"`
}

type hfMessage struct {
	Role             *string      `parquet:"role,optional" json:"role"`
	Content          *string      `parquet:"content,optional" json:"content"`
	ReasoningContent *string      `parquet:"reasoning_content,optional" json:"reasoning_content"`
	ToolCalls        []hfToolCall `parquet:"tool_calls,list,optional" json:"tool_calls"`
	ToolCallID       *string      `parquet:"tool_call_id,optional" json:"tool_call_id"`
}

type hfProperty struct {
	Type        *string  `parquet:"type,optional" json:"type"`
	Description *string  `parquet:"description,optional" json:"description"`
	Enum        []string `parquet:"enum,list,optional" json:"enum"`
	Default     *float64 `parquet:"default,optional" json:"default"`
}

type hfProperties struct {
	City *hfProperty `parquet:"city,optional" json:"city"`
	Unit *hfProperty `parquet:"unit,optional" json:"unit"`
	Days *hfProperty `parquet:"days,optional" json:"days"`
}

type hfParameters struct {
	Type       *string       `parquet:"type,optional" json:"type"`
	Properties *hfProperties `parquet:"properties,optional" json:"properties"`
	Required   []string      `parquet:"required,list,optional" json:"required"`
}

type hfFunction struct {
	Name        *string       `parquet:"name,optional" json:"name"`
	Description *string       `parquet:"description,optional" json:"description"`
	Parameters  *hfParameters `parquet:"parameters,optional" json:"parameters"`
}

type hfTool struct {
	Type     *string     `parquet:"type,optional" json:"type"`
	Function *hfFunction `parquet:"function,optional" json:"function"`
}

type hfRow struct {
	ID              *string     `parquet:"id,optional" json:"id"`
	Conversations   []hfMessage `parquet:"conversations,list,optional" json:"conversations"`
	Tools           []hfTool    `parquet:"tools,list,optional" json:"tools"`
	ReasoningEffort *string     `parquet:"reasoning_effort,optional" json:"reasoning_effort"`
	Source          *string     `parquet:"source,optional" json:"source"`
}

func s(v string) *string { return &v }

func f64(v float64) *float64 { return &v }

// hfRows are the dataset package's test rows (its hfRows, same order).
func hfRows() []hfRow {
	weather := hfTool{Type: s("function"), Function: &hfFunction{
		Name: s("get_weather"), Description: s("Current weather."),
		Parameters: &hfParameters{Type: s("object"), Required: []string{"city"}, Properties: &hfProperties{
			City: &hfProperty{Type: s("string"), Description: s("City name")},
			Unit: &hfProperty{Type: s("string"), Enum: []string{"c", "f"}},
			Days: &hfProperty{Type: s("number"), Default: f64(3)},
		}}}}
	search := hfTool{Type: s("function"), Function: &hfFunction{
		Name: s("lookup"),
		Parameters: &hfParameters{Type: s("object"), Required: []string{}, Properties: &hfProperties{
			City: &hfProperty{Type: s("string")},
		}}}}
	return []hfRow{
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
		{ID: s("r3"), Conversations: nil},
		{ID: s("r4"), Conversations: []hfMessage{{Role: s("wizard"), Content: s("x")}}},
	}
}

// A dataset command input as the console's tests read it: messages as a
// list of structs.
type consoleMessage struct {
	Role             string  `parquet:"role" json:"role"`
	Content          string  `parquet:"content" json:"content"`
	ReasoningContent *string `parquet:"reasoning_content,optional" json:"reasoning_content"`
}

type consoleRequest struct {
	Messages []consoleMessage `parquet:"messages,list" json:"messages"`
}

func consoleRows() []consoleRequest {
	why := "Greet back."
	return []consoleRequest{
		{Messages: []consoleMessage{{Role: "user", Content: "Hi"}, {Role: "assistant", Content: "Hello!", ReasoningContent: &why}}},
		{Messages: []consoleMessage{{Role: "wizard", Content: "x"}}},
		{Messages: []consoleMessage{{Role: "user", Content: "Again"}, {Role: "assistant", Content: "Hello again!", ReasoningContent: &why}}},
	}
}

func writeFile[T any](t *testing.T, path string, rows []T, opts ...parquet.WriterOption) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[T](f, opts...)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// fixture is a Parquet file the main module's tests read, written here by
// parquet-go.
type fixture struct {
	path  string // from the repository's root
	write func(t *testing.T, path string)
}

var fixtures = []fixture{
	// parquet_test.go: five rows, two per row group.
	{"dataset/testdata/parquet/hf-rows.parquet", func(t *testing.T, path string) {
		writeFile(t, path, hfRows(), parquet.MaxRowsPerRowGroup(2))
	}},
	// corrupt_test.go: the first three rows 200 times, 100 per row group,
	// snappy.
	{"dataset/testdata/parquet/hf-600.parquet", func(t *testing.T, path string) {
		var rows []hfRow
		for range 200 {
			rows = append(rows, hfRows()[:3]...)
		}
		writeFile(t, path, rows, parquet.MaxRowsPerRowGroup(100), parquet.Compression(&parquet.Snappy))
	}},
	// console/parquet_test.go: three rows, two per row group.
	{"console/testdata/train.parquet", func(t *testing.T, path string) {
		writeFile(t, path, consoleRows(), parquet.MaxRowsPerRowGroup(2))
	}},
}

// TestFixtures rewrites the fixtures with -update; always, the dataset
// package reads each as parquet-go does.
func TestFixtures(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(filepath.Base(fx.path), func(t *testing.T) {
			path := filepath.Join("..", "..", fx.path)
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				fx.write(t, path)
			}
			switch filepath.Base(path) {
			case "train.parquet":
				compareReads[consoleRequest](t, path)
			default:
				compareReads[hfRow](t, path)
			}
		})
	}
}
