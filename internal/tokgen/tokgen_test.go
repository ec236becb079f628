package tokgen

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the small fixtures in tokenizer/testdata")

// TestSmallFixtures checks that the committed small tokenizers are what the
// generator makes (run with -update to rewrite them).
func TestSmallFixtures(t *testing.T) {
	for name, gen := range Small {
		dir := filepath.Join("..", "..", "tokenizer", "testdata", name)
		tj, cj := gen()
		if *update {
			if err := WriteDir(dir, tj, cj); err != nil {
				t.Fatal(err)
			}
			continue
		}
		for file, want := range map[string][]byte{"tokenizer.json": tj, "tokenizer_config.json": cj} {
			got, err := os.ReadFile(filepath.Join(dir, file))
			if want == nil {
				if err == nil {
					t.Errorf("%s/%s exists; the generator writes none", name, file)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%v (run go test ./internal/tokgen -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s/%s differs from the generator's; run go test ./internal/tokgen -update", name, file)
			}
		}
	}
}
