package harmony_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/beamharmony/harmony"
)

// cloneRaw gives every argument object and schema of the request new
// bytes, so that Render cannot reuse the decoder's tapes.
func cloneRaw(r *harmony.Request) *harmony.Request {
	c := *r
	c.Messages = append([]harmony.Message(nil), r.Messages...)
	for i := range c.Messages {
		calls := append([]harmony.ToolCall(nil), c.Messages[i].ToolCalls...)
		for j := range calls {
			calls[j].Function.Arguments = bytes.Clone(calls[j].Function.Arguments)
		}
		c.Messages[i].ToolCalls = calls
	}
	c.Tools = append([]harmony.Tool(nil), r.Tools...)
	for i := range c.Tools {
		c.Tools[i].Function.Parameters = bytes.Clone(c.Tools[i].Function.Parameters)
	}
	return &c
}

// Rendering a decoded request reuses the decoder's tapes; rendering the same
// values with fresh bytes parses them. Both give the same prompt or error.
func TestDecodedTapesRenderLikeFreshBytes(t *testing.T) {
	files, _ := filepath.Glob("examples/*.json")
	files = append(files, "testdata/bench/realistic_request.json")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		req, err := harmony.ParseRequest(data)
		if err != nil {
			t.Fatal(err)
		}
		got, gotErr := req.Render()
		want, wantErr := cloneRaw(req).Render()
		if got != want || (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
			t.Errorf("%s: decoded and fresh renders differ", f)
		}
	}
}

// Assigning new arguments to a decoded call renders the new arguments.
func TestReassignedArgumentsAreRendered(t *testing.T) {
	req, err := harmony.ParseRequest([]byte(`{"messages": [{"role": "assistant", "reasoning_content": "r", "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}}]}], "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}}}}], "add_generation_prompt": false}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Messages[0].ToolCalls[0].Function.Arguments = json.RawMessage(`{"b": "two"}`)
	req.Tools[0].Function.Parameters = json.RawMessage(`{"type": "object", "properties": {"b": {"type": "string"}}}`)
	got, err := req.Render()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<rfl:parameter name=\"b\">\ntwo\n</rfl:parameter>", "b?: string,"} {
		if !bytes.Contains([]byte(got), []byte(want)) {
			t.Errorf("prompt lacks %q:\n%s", want, got)
		}
	}
}
