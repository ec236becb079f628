package harmony_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/internal/pyjson"
)

// FuzzRender feeds arbitrary bytes as a request. Rendering must never
// panic and must not depend on whether the decoder's tapes are reused. A
// request that renders must render the same way twice, agree with
// RenderPrompt, have spans that start at <|channel|> and end with
// <|return|> or <|call|>, and, when it ends with an assistant turn, parse
// back to that turn (checkParsesBack).
func FuzzRender(f *testing.F) {
	files, _ := filepath.Glob("examples/*.json")
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"messages": [{"role": "user", "content": "x"}], "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "$defs": {"n": {"anyOf": [{"$ref": "#/$defs/n"}, {"type": "array", "items": {"$ref": "#"}}]}}, "properties": {"a": {"$ref": "#/$defs/n"}}}}}]}`))
	f.Add([]byte(`{"messages": [{"role": "user", "content": "x", "contnet": 1, "a\"b": 2}], "reasoning_efort": "low", "tool": []}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		req, err := harmony.ParseRequest(data)
		if err != nil {
			return
		}
		// Unknown keys are warnings with a path, never a panic.
		for _, w := range req.Lint() {
			if w.Msg == "" {
				t.Fatalf("empty warning at %q", w.Path)
			}
		}
		first, err := req.Render()
		// The same values in fresh bytes (parsed by Render rather than
		// reused from the decoder) render the same way.
		fresh, freshErr := cloneRaw(req).Render()
		if fresh != first || (err == nil) != (freshErr == nil) || (err != nil && err.Error() != freshErr.Error()) {
			t.Fatalf("decoded and fresh renders differ: %v / %v", err, freshErr)
		}
		if err != nil {
			if err.Error() == "" || strings.Contains(err.Error(), "\n") && !strings.Contains(err.Error(), "messages[") {
				t.Fatalf("unclear error %q", err)
			}
			return
		}
		second, err := req.Render()
		if err != nil || second != first {
			t.Fatalf("second render differs: %v", err)
		}
		p, err := req.RenderPrompt()
		if err != nil || p.Text != first {
			t.Fatalf("RenderPrompt differs: %v", err)
		}
		last := 0
		for _, s := range p.AssistantSpans {
			if s.Start < last || s.End < s.Start || s.End > len(first) {
				t.Fatalf("span %v out of order or bounds", s)
			}
			text := first[s.Start:s.End]
			if !strings.HasPrefix(text, harmony.MarkerChannel) ||
				!(strings.HasSuffix(text, harmony.MarkerReturn) || strings.HasSuffix(text, harmony.MarkerCall)) {
				t.Fatalf("span %q", text)
			}
			last = s.End
		}
		if len(p.CharSpans()) != len(p.AssistantSpans) {
			t.Fatal("CharSpans length")
		}
		checkParsesBack(t, req.Messages, p)
	})
}

// checkParsesBack checks the round trip (DECISIONS.md): when the last
// message is an assistant turn, parsing its rendered text after the prompt
// before it gives the message back: reasoning, content, and the calls'
// names and arguments (without tools every argument parses as a string:
// the string itself, or the value's JSON in Python's style). The one
// exception is content holding a marker, which the page renders as is.
func checkParsesBack(t *testing.T, messages []harmony.Message, p *harmony.Prompt) {
	t.Helper()
	if len(messages) == 0 || len(p.AssistantSpans) == 0 {
		return
	}
	m := &messages[len(messages)-1]
	if m.Role != harmony.RoleAssistant || harmony.FindMarker(m.Content) != "" {
		return
	}
	span := p.AssistantSpans[len(p.AssistantSpans)-1]
	prefix, gen := p.Text[:span.Start], p.Text[span.Start:span.End]
	res, err := harmony.Parse(gen, &harmony.ParseOptions{Prefix: prefix})
	if err != nil {
		t.Fatalf("the rendered turn does not parse back: %v\nprefix %q\nturn %q", err, prefix[max(0, len(prefix)-40):], gen)
	}
	got := &res.Message
	if got.Reasoning != m.Reasoning || got.Content != m.Content || len(got.ToolCalls) != len(m.ToolCalls) {
		t.Fatalf("parsed back reasoning %q content %q with %d calls, rendered %q %q with %d\nturn %q",
			got.Reasoning, got.Content, len(got.ToolCalls), m.Reasoning, m.Content, len(m.ToolCalls), gen)
	}
	for j := range m.ToolCalls {
		want, have := &m.ToolCalls[j].Function, &got.ToolCalls[j].Function
		if have.Name != want.Name {
			t.Fatalf("call %d: parsed back the name %q, rendered %q", j, have.Name, want.Name)
		}
		wk, wv := argumentTexts(t, want.Arguments)
		hk, hv := argumentTexts(t, have.Arguments)
		if !slices.Equal(hk, wk) || !slices.Equal(hv, wv) {
			t.Fatalf("call %d: parsed back the arguments %q = %q, rendered %q = %q", j, hk, hv, wk, wv)
		}
	}
}

// argumentTexts returns an arguments object's keys and the text each
// value renders as: a string as is, anything else as Python-style JSON.
func argumentTexts(t *testing.T, raw []byte) (keys, values []string) {
	t.Helper()
	var d pyjson.Doc
	if err := d.Parse(raw); err != nil || d.Kind(0) != pyjson.Object {
		t.Fatalf("arguments %q: not an object (%v)", raw, err)
	}
	d.Members(0, func(k, v int) bool {
		keys = append(keys, d.Str(k))
		if d.Kind(v) == pyjson.String {
			values = append(values, d.Str(v))
		} else {
			values = append(values, string(d.AppendPython(nil, v)))
		}
		return true
	})
	return keys, values
}
