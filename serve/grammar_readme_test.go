package serve

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// docs/serve.md gives the size of the grammar cache the code has.
func TestReadmeGrammarCache(t *testing.T) {
	data, err := os.ReadFile("../docs/serve.md")
	if err != nil {
		t.Fatal(err)
	}
	want := "cached (" + strconv.Itoa(grammarCacheBytes>>20) + " MiB of them"
	if !strings.Contains(string(data), want) {
		t.Errorf("docs/serve.md does not say %q", want)
	}
}
