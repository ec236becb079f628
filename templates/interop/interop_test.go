package interop

import (
	"strings"
	"testing"

	"github.com/beamharmony/harmony"
)

// TestRenderGoLeavesStringArguments: RenderGo gives the renderer a call's
// arguments sent as a JSON string as they are, as the template gets them,
// so the comparison meets the renderer's rule (the template's error), not
// ParseRequest's decoding; everything else is decoded as ParseRequest does.
func TestRenderGoLeavesStringArguments(t *testing.T) {
	const req = `{"messages": [{"role": "user", "content": "Hi"}, ` +
		`{"role": "assistant", "reasoning_content": "R", "tool_calls": [` +
		`{"function": {"name": "f", "arguments": {"a": 1}}}, ` +
		`{"function": {"name": "g", "arguments": "{\"city\": \"Paris\"}"}}]}]}`
	res := RenderGo([]byte(req))
	const want = "messages[1].tool_calls[1].function.arguments: must be a JSON object; parse JSON strings before rendering"
	if res.Error != want {
		t.Fatalf("RenderGo: %+v; want the error %s", res, want)
	}
	r, err := harmony.ParseRequest([]byte(req))
	if err != nil {
		t.Fatal(err)
	}
	if p, err := r.Render(); err != nil || !strings.Contains(p, "\nParis\n") {
		t.Fatalf("ParseRequest decodes the string: %v\n%s", err, p)
	}
	// Without string arguments RenderGo is ParseRequest and Render.
	const plain = `{"messages": [{"role": "assistant", "reasoning_content": "R", "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}}]}]}`
	res = RenderGo([]byte(plain))
	r, _ = harmony.ParseRequest([]byte(plain))
	p, _ := r.Render()
	if res.Error != "" || res.Prompt != p {
		t.Fatalf("RenderGo on a plain request: %+v; want %q", res, p)
	}
	// An empty string, which does not decode, gets the template's error too.
	res = RenderGo([]byte(strings.Replace(plain, `{"a": 1}`, `""`, 1)))
	if !strings.HasSuffix(res.Error, "parse JSON strings before rendering") {
		t.Fatalf("RenderGo with empty string arguments: %+v", res)
	}
}
