package serve

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// The README's size of the grammar cache is the code's.
func TestReadmeGrammarCache(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	want := "cached (" + strconv.Itoa(grammarCacheBytes>>20) + " MiB of them"
	if !strings.Contains(string(data), want) {
		t.Errorf("the README does not say %q", want)
	}
}
