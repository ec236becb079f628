package dataset

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestShareGPT: with MessagesFormat "sharegpt", rows of {"from", "value"}
// messages (with a system column, function_call and observation messages,
// and LLaMA-Factory's bare tools as a JSON string) render as the same
// rows written in the OpenAI shape do, from JSONL and from Parquet; a
// message's other keys are counted as unknown keys; a row with a role the
// table does not have, a value that is not a string or a call that is not
// JSON is rejected naming the message (gap decision 283).
func TestShareGPT(t *testing.T) {
	dir := t.TempDir()
	const tools = `[{"name": "get_weather", "description": "Weather of a city.", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}]`
	type row struct{ system, conversations, tools string }
	good := []row{
		{"Be brief.", `[{"from": "human", "value": "Hi"}, {"from": "gpt", "value": "Hello", "weight": 1}]`, ""},
		{"", `[{"from": "human", "value": "Weather in Paris?"}, {"from": "function_call", "value": "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}"}, ` +
			`{"from": "observation", "value": "14 C"}, {"from": "gpt", "value": "It is 14 C."}]`, tools},
		{"", `[{"from": "user", "value": "Both?"}, {"from": "function_call", "value": "[{\"name\": \"get_weather\", \"arguments\": \"{\\\"city\\\": \\\"Paris\\\"}\"}, {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Lyon\"}}]"}, ` +
			`{"from": "observation", "value": "14 C"}, {"from": "tool", "value": "9 C"}, {"from": "assistant", "value": "14 C and 9 C."}]`, tools},
	}
	// The same rows in the OpenAI shape.
	openai := []string{
		`{"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]}`,
		`{"messages": [{"role": "user", "content": "Weather in Paris?"}, {"role": "assistant", "tool_calls": [{"id": "a", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]}, ` +
			`{"role": "tool", "tool_call_id": "a", "content": "14 C"}, {"role": "assistant", "content": "It is 14 C."}], "tools": [{"type": "function", "function": ` + tools[1:len(tools)-1] + `}]}`,
		`{"messages": [{"role": "user", "content": "Both?"}, {"role": "assistant", "tool_calls": [{"id": "a", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}, ` +
			`{"id": "b", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Lyon"}}}]}, ` +
			`{"role": "tool", "tool_call_id": "a", "content": "14 C"}, {"role": "tool", "tool_call_id": "b", "content": "9 C"}, {"role": "assistant", "content": "14 C and 9 C."}], "tools": [{"type": "function", "function": ` + tools[1:len(tools)-1] + `}]}`,
	}
	bad := []struct {
		row  row
		want string
	}{
		{row{"", `[{"from": "robot", "value": "Hi"}]`, ""}, `messages[0].from: "robot" is not a ShareGPT role`},
		{row{"", `[{"from": "human", "value": 5}]`, ""}, `messages[0].value: required in a ShareGPT row, a string`},
		{row{"", `[{"from": "human", "value": "Hi"}, {"from": "function_call", "value": "get_weather(Paris)"}]`, ""}, `messages[1].value: a call's JSON`},
		{row{"", `[{"value": "Hi"}]`, ""}, `messages[0].from: required`},
	}
	jsonl := filepath.Join(dir, "sharegpt.jsonl")
	var lines [][]byte
	var cols [][]*string
	for _, r := range append(good, bad[0].row, bad[1].row, bad[2].row, bad[3].row) {
		line := `{"conversations": ` + r.conversations
		var sys, tl *string
		if r.system != "" {
			line += `, "system": "` + r.system + `"`
			sys = &r.system
		}
		if r.tools != "" {
			q := strings.ReplaceAll(r.tools, `"`, `\"`)
			line += `, "tools": "` + q + `"`
			tl = &r.tools
		}
		lines = append(lines, []byte(line+"}"))
		conv := r.conversations
		cols = append(cols, []*string{&conv, sys, tl})
	}
	writeInput(t, jsonl, lines)
	pq := filepath.Join(dir, "sharegpt.parquet")
	writeStringColumns(t, pq, []string{"conversations", "system", "tools"}, []bool{false, true, true}, cols, 10)
	ref := filepath.Join(dir, "openai.jsonl")
	var refLines [][]byte
	for _, l := range openai {
		refLines = append(refLines, []byte(l))
	}
	writeInput(t, ref, refLines)
	refOut := filepath.Join(dir, "openai-out.jsonl")
	if _, err := Run(context.Background(), Config{Inputs: []string{ref}, Output: refOut, AllowMissingThinking: true}); err != nil {
		t.Fatal(err)
	}
	want := readOutput(t, refOut)
	for _, in := range []string{jsonl, pq} {
		t.Run(filepath.Ext(in), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.jsonl")
			st, err := Run(context.Background(), Config{Inputs: []string{in}, Output: out, MessagesColumn: "conversations",
				MessagesFormat: FormatShareGPT, AllowMissingThinking: true, MaxRejects: mustLimit(t, "100%")})
			if err != nil {
				t.Fatal(err)
			}
			got := readOutput(t, out)
			if len(got) != len(want) {
				t.Fatalf("%d rows written, want %d (rejects %v)", len(got), len(want), st.RejectsByError)
			}
			for i := range want {
				if got[i].Text != want[i].Text {
					t.Errorf("row %d:\n%s\nwant (the OpenAI shape's):\n%s", i, got[i].Text, want[i].Text)
				}
			}
			if n := st.UnknownKeys["messages[].weight: unknown key, not rendered; remove it"]; n != 1 {
				t.Errorf("unknown keys %v, want the weight counted once", st.UnknownKeys)
			}
			rejects := readRejects(t, DefaultRejectsPath(out))
			if len(rejects) != len(bad) {
				t.Fatalf("%d rejects, want %d: %+v", len(rejects), len(bad), rejects)
			}
			for i, b := range bad {
				if !strings.Contains(rejects[i].Error, b.want) {
					t.Errorf("reject %d: %s, want %s", i, rejects[i].Error, b.want)
				}
			}
		})
	}
	// Without the option the same rows are not read as ShareGPT.
	st, err := Run(context.Background(), Config{Inputs: []string{jsonl}, Output: filepath.Join(dir, "plain.jsonl"), MessagesColumn: "conversations",
		AllowMissingThinking: true, MaxRejects: mustLimit(t, "100%")})
	if err != nil || st.RowsWritten != 0 {
		t.Errorf("the OpenAI shape: %d rows written, %v", st.RowsWritten, err)
	}
	// Their rejects say what to pass, when the first message has a from
	// and a value.
	for _, r := range readRejects(t, DefaultRejectsPath(filepath.Join(dir, "plain.jsonl"))) {
		hinted := strings.Contains(r.Error, "pass --messages-format sharegpt")
		if want := strings.HasPrefix(string(r.Row), `{"conversations": [{"from"`); hinted != want {
			t.Errorf("reject hinted %v, want %v: %s (%s)", hinted, want, r.Error, r.Row)
		}
	}
	if _, err := Run(context.Background(), Config{Inputs: []string{jsonl}, Output: filepath.Join(dir, "x.jsonl"), MessagesFormat: "alpaca"}); err == nil ||
		!strings.Contains(err.Error(), `messages format "alpaca": must be openai or sharegpt`) {
		t.Errorf("an unknown format: %v", err)
	}
}

// FuzzShareGPT: the conversion of a ShareGPT row never panics, and what it
// returns for a row it takes is JSON.
func FuzzShareGPT(f *testing.F) {
	for _, s := range []string{
		`{"conversations": [{"from": "human", "value": "Hi"}, {"from": "gpt", "value": "Hello"}], "system": "S"}`,
		`{"messages": [{"from": "function_call", "value": "[{\"name\": \"f\", \"arguments\": \"{}\"}]"}, {"from": "observation", "value": "r"}], "tools": "[{\"name\": \"f\"}]"}`,
		`{"messages": [{"from": "human", "value": 5}], "system": 1}`,
		`{"messages": null}`, `[1]`, `{"messages": [{"from": "x"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, row []byte) {
		out, err := fromShareGPT(row)
		if err == nil && json.Valid(row) && !json.Valid(out) {
			t.Fatalf("not JSON: %s", out)
		}
		looksShareGPT(row, "messages")
	})
}
