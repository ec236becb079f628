package harmony_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/beamharmony/harmony"
)

// FuzzRender feeds arbitrary bytes as a request. Rendering must never
// panic, must not depend on whether the decoder's tapes are reused; a request that renders must render the same way twice, agree with
// RenderPrompt, and have spans that start at <|channel|> and end with
// <|return|> or <|call|>.
func FuzzRender(f *testing.F) {
	files, _ := filepath.Glob("examples/*.json")
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`{"messages": [{"role": "user", "content": "x"}], "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "$defs": {"n": {"anyOf": [{"$ref": "#/$defs/n"}, {"type": "array", "items": {"$ref": "#"}}]}}, "properties": {"a": {"$ref": "#/$defs/n"}}}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		req, err := harmony.ParseRequest(data)
		if err != nil {
			return
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
	})
}
