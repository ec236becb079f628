package cli

import (
	"strings"
	"testing"
)

// TestLateInstructionsFlags: render and lint place late instructions by
// the gateway's rule unless --strict refuses them or
// --drop-late-instructions leaves them out as the template does.
func TestLateInstructionsFlags(t *testing.T) {
	const req = `{"messages": [{"role": "user", "content": "a"}, {"role": "system", "content": "late"},
		{"role": "assistant", "reasoning_content": "r", "content": "b"}, {"role": "developer", "content": "later"}]}`
	tests := []struct {
		name     string
		args     []string
		code     int
		contains []string
		lacks    []string
	}{
		{"render places", []string{"render"}, 0,
			[]string{"<|start|>developer<|message|># Instructions\n\nlate<|end|>", "<|start|>user<|message|># Instructions\n\nlater<|end|>"}, nil},
		{"render drops", []string{"render", "--drop-late-instructions"}, 0, []string{"<|start|>user<|message|>a<|end|>"}, []string{"late"}},
		{"render strict", []string{"render", "--strict"}, 1, nil, nil},
		{"render both", []string{"render", "--strict", "--drop-late-instructions"}, 2, nil, nil}, // a usage error
		{"lint places", []string{"lint"}, 3, []string{"messages[1]: this system message comes after a message of another role and is joined to the instructions",
			"messages[3]: this developer message comes after a message of another role and is rendered in its place as a user message"}, nil},
		{"lint drops", []string{"lint", "--drop-late-instructions"}, 3, []string{"messages[1]: this system message comes after a message of another role and is not rendered"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, req, tt.args...)
			if code != tt.code {
				t.Fatalf("code %d, want %d; stderr %q", code, tt.code, stderr)
			}
			for _, c := range tt.contains {
				if !strings.Contains(stdout, c) {
					t.Errorf("stdout lacks %q:\n%s", c, stdout)
				}
			}
			for _, c := range tt.lacks {
				if strings.Contains(stdout, c) {
					t.Errorf("stdout holds %q:\n%s", c, stdout)
				}
			}
		})
	}
}
