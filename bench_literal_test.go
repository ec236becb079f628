// The literal-request benchmark sits in its own file, using only API that
// older commits have too, so that bench/compare can add it to an older
// tree and compare the same work.

package harmony_test

import (
	"testing"

	"github.com/beamharmony/harmony"
)

// literalRequest copies the exported fields of a decoded request into new
// values, as a caller building the request in Go would write it.
func literalRequest(req *harmony.Request) *harmony.Request {
	out := &harmony.Request{Options: req.Options}
	out.Tools = nil
	for _, t := range req.Tools {
		out.Tools = append(out.Tools, harmony.Tool{Type: t.Type, Function: harmony.Function{
			Name: t.Function.Name, Description: t.Function.Description,
			Parameters: append([]byte(nil), t.Function.Parameters...)}})
	}
	for _, m := range req.Messages {
		lm := harmony.Message{Role: m.Role, Content: m.Content, Reasoning: m.Reasoning,
			ToolCallID: m.ToolCallID, Name: m.Name}
		for _, c := range m.ToolCalls {
			lm.ToolCalls = append(lm.ToolCalls, harmony.ToolCall{ID: c.ID, Type: c.Type,
				Function: harmony.FunctionCall{Name: c.Function.Name,
					Arguments: append([]byte(nil), c.Function.Arguments...)}})
		}
		out.Messages = append(out.Messages, lm)
	}
	return out
}

// BenchmarkRenderLiteral renders the realistic request built as literal
// values (no decoder state): the work Render does for a caller that builds
// its messages in Go.
func BenchmarkRenderLiteral(b *testing.B) {
	decoded, _ := loadBench(b)
	req := literalRequest(decoded)
	want, err := decoded.Render()
	if err != nil {
		b.Fatal(err)
	}
	if got, err := req.Render(); err != nil || got != want {
		b.Fatalf("literal request renders differently (%v)", err)
	}
	b.SetBytes(int64(len(want)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := req.Render(); err != nil {
			b.Fatal(err)
		}
	}
}
