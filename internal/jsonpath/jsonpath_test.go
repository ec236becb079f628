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

func TestKey(t *testing.T) {
	for _, tt := range []struct{ prefix, key, want string }{
		{"messages[1]", "role", "messages[1].role"},
		{"", "search_parameters", "search_parameters"},
		{"", "a b", `["a b"]`},
		{"tools[0]", "", `tools[0][""]`},
		{"", "x.y", `["x.y"]`},
		{"", "q\"", `["q\""]`},
	} {
		if got := Key(tt.prefix, tt.key); got != tt.want {
			t.Errorf("Key(%q, %q) = %q, want %q", tt.prefix, tt.key, got, tt.want)
		}
	}
}
