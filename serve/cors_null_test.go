package serve

import "testing"

// "*" allows any web origin but not "null" (sandboxed frames, file: pages),
// which any page can make a browser send.
func TestCORSAnyIsNotNull(t *testing.T) {
	p, err := newCORSPolicy([]string{"*"})
	if err != nil {
		t.Fatal(err)
	}
	for origin, want := range map[string]bool{"https://app.example.com": true, "http://localhost:3000": true, "null": false, "NULL": false, "": false} {
		if got := p.allows(origin); got != want {
			t.Errorf("allows(%q) = %v, want %v", origin, got, want)
		}
	}
}
