package cli

import (
	"io"
	"os"
	"testing"

	"github.com/beamharmony/harmony/internal/tokgen"
	"github.com/beamharmony/harmony/tokenizer"
)

// BenchmarkTokenize compares, on the same text (the README and the
// renderer's source, about 100 KB), the package's Encode (ids and
// character offsets) with what the tokenize command does after loading:
// the same Encode, then the JSON written. Issue 19 asks for the command
// within 1.5x of the package.
func BenchmarkTokenize(b *testing.B) {
	dir, err := tokgen.BeamDir()
	if err != nil {
		b.Fatal(err)
	}
	tk, err := tokenizer.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	var text string
	for _, f := range []string{"../README.md", "../render.go"} {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		text += string(data)
	}
	b.Run("package", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		for b.Loop() {
			tk.Encode(text)
		}
	})
	b.Run("command", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		b.ReportAllocs()
		for b.Loop() {
			if err := writeEncoding(io.Discard, tk.Encode(text)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
