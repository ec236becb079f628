package templates_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/internal/corpus"
	"github.com/beamharmony/harmony/templates/interop"
)

// lateConversations have system and developer messages after a message of
// another role, before and after the first assistant turn.
var lateConversations = [][]harmony.Message{
	{{Role: "user", Content: "u"}, {Role: "system", Content: "env"}},
	{{Role: "system", Content: "s"}, {Role: "user", Content: "u"}, {Role: "system", Content: ""}, {Role: "developer", Content: "d"}},
	{{Role: "system", Content: "s"}, {Role: "user", Content: "u"}, {Role: "system", Content: "env"},
		{Role: "assistant", Reasoning: "r", ToolCalls: []harmony.ToolCall{{ID: "c1", Function: harmony.FunctionCall{Name: "f", Arguments: json.RawMessage(`{"x": 1}`)}}}},
		{Role: "tool", ToolCallID: "c1", Content: "out"}, {Role: "developer", Content: "later"}, {Role: "system", Content: "and later"}},
	{{Role: "user", Content: "u"}, {Role: "assistant", Reasoning: "r", Content: "a"}, {Role: "system", Content: "late\nlines"}, {Role: "user", Content: "u2"},
		{Role: "assistant", Reasoning: "r2", Content: "b"}},
}

// TestTemplateRendersPlacedInstructions: the checkpoint's template renders
// the list harmony.PlaceInstructions returns to the prompt the Go renderer
// writes with Options.PlaceLateInstructions, so that a server running the
// template can follow the gateway's rule for late instructions
// (docs/gap-decisions.md 110) by placing them first.
func TestTemplateRendersPlacedInstructions(t *testing.T) {
	var cases []corpus.Case
	for i, msgs := range lateConversations {
		for _, gen := range []bool{true, false} {
			placed, _ := harmony.PlaceInstructions(msgs)
			req := map[string]any{"messages": placed, "add_generation_prompt": gen,
				"tools": []harmony.Tool{{Type: "function", Function: harmony.Function{Name: "f", Parameters: json.RawMessage(`{"type": "object", "properties": {"x": {"type": "integer"}}}`)}}}}
			data, err := json.Marshal(req)
			if err != nil {
				t.Fatal(err)
			}
			// The placed list, as the template gets it, renders as the
			// original list does with the option.
			r, err := harmony.ParseRequest(data)
			if err != nil {
				t.Fatal(err)
			}
			viaList, err := r.Render()
			if err != nil {
				t.Fatal(err)
			}
			r.Messages, r.PlaceLateInstructions = msgs, true
			direct, err := r.Render()
			if err != nil {
				t.Fatal(err)
			}
			if viaList != direct {
				t.Fatalf("conversation %d: the placed list renders\n%q\nthe option\n%q", i, viaList, direct)
			}
			cases = append(cases, corpus.Case{Name: fmt.Sprintf("late/%d/%v", i, gen), JSON: data})
		}
	}
	for _, e := range []struct {
		name string
		eng  func(t *testing.T) []string
	}{
		{"Jinja2", func(t *testing.T) []string { return diffs(compare(t, jinja2(), cases)) }},
		{"@huggingface/jinja", func(t *testing.T) []string { return diffs(compare(t, hfjs(), cases)) }},
	} {
		t.Run(e.name, func(t *testing.T) {
			for _, d := range e.eng(t) {
				t.Error(d)
			}
		})
	}
}

// diffs words each mismatch.
func diffs(ms []interop.Mismatch) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Name + ":\n" + m.Diff
	}
	return out
}
