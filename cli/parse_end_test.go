package cli

import (
	"strings"
	"testing"
)

// parse says when the generation has no end marker, and more when it was
// cut inside the reasoning; a complete one has no such warning. The exit
// status stays 0: servers that strip stop tokens end so.
func TestParseWarnsWithoutEndMarker(t *testing.T) {
	for _, c := range []struct {
		name, generation, warning string
	}{
		{"cut in the reasoning", "<|channel|>analysis<|message|>Let me think about", "ended inside its reasoning"},
		{"answer without its marker", "<|channel|>analysis<|message|>r<|end|><|start|>assistant<|channel|>final<|message|>Hi", "has no end marker"},
		{"complete", "<|channel|>analysis<|message|>r<|end|><|start|>assistant<|channel|>final<|message|>Hi<|return|>", ""},
	} {
		_, stderr, code := runCLI(t, c.generation, "parse")
		if code != 0 || (c.warning == "") != (stderr == "") || !strings.Contains(stderr, c.warning) {
			t.Errorf("%s: exit %d, stderr %q", c.name, code, stderr)
		}
	}
}
