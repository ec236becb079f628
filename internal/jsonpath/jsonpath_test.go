package jsonpath

import "testing"

func TestJoin(t *testing.T) {
	for _, tt := range []struct{ prefix, path, want string }{
		{"messages[1]", "content[0].type", "messages[1].content[0].type"},
		{"tools", "[2]", "tools[2]"},
		{"tools", "", "tools"},
		{"", "name", "name"},
		{"", "[0]", "[0]"},
		{"", "", ""},
	} {
		if got := Join(tt.prefix, tt.path); got != tt.want {
			t.Errorf("Join(%q, %q) = %q, want %q", tt.prefix, tt.path, got, tt.want)
		}
	}
}
