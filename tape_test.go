package harmony_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
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

// Rendering a decoded request and rendering the same values in fresh bytes
// (no slice shared with the decoded request's source) give the same prompt
// or error.
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

// Editing decoded arguments and schemas in place (the bytes, not the
// slice) renders the edited text, for ParseRequest and for the
// UnmarshalJSON methods of Message and Tool.
func TestEditedInPlaceIsRendered(t *testing.T) {
	const data = `{"messages": [{"role": "assistant", "reasoning_content": "r", "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}}]}], "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}}}}], "add_generation_prompt": false}`
	fromRequest := func(t *testing.T) *harmony.Request {
		req, err := harmony.ParseRequest([]byte(data))
		if err != nil {
			t.Fatal(err)
		}
		return req
	}
	fromParts := func(t *testing.T) *harmony.Request {
		req := fromRequest(t)
		var m harmony.Message
		var tl harmony.Tool
		if err := m.UnmarshalJSON([]byte(`{"role": "assistant", "reasoning_content": "r", "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}}]}`)); err != nil {
			t.Fatal(err)
		}
		if err := tl.UnmarshalJSON([]byte(`{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}}}}`)); err != nil {
			t.Fatal(err)
		}
		req.Messages[0], req.Tools[0] = m, tl
		return req
	}
	for name, decode := range map[string]func(*testing.T) *harmony.Request{"ParseRequest": fromRequest, "UnmarshalJSON": fromParts} {
		t.Run(name, func(t *testing.T) {
			req := decode(t)
			if _, err := req.Render(); err != nil {
				t.Fatal(err)
			}
			// Same length, so that only the bytes change, not the slice.
			args := req.Messages[0].ToolCalls[0].Function.Arguments
			copy(args, `{"bb":2}`)
			params := req.Tools[0].Function.Parameters
			copy(params, `{"type": "object", "properties": {"b": {"type": "string" }}}`)
			got, err := req.Render()
			if err != nil {
				t.Fatal(err)
			}
			want, err := cloneRaw(req).Render()
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("edited in place renders\n%s\nwant\n%s", got, want)
			}
			for _, s := range []string{"<rfl:parameter name=\"bb\">\n2\n</rfl:parameter>", "b?: string,"} {
				if !strings.Contains(got, s) {
					t.Errorf("prompt lacks %q:\n%s", s, got)
				}
			}
		})
	}
}
