package tiktoken

import (
	"testing"

	"github.com/beamharmony/harmony/internal/cputime"
	"github.com/beamharmony/harmony/internal/tokgen"
	tiktoken "github.com/tiktoken-go/tokenizer"
)

// BenchmarkEncode encodes the tokenizer package's benchmark texts with
// github.com/tiktoken-go/tokenizer's o200k_base, ids only, as the
// tokenizer package's BenchmarkEncode does with Beam's tokenizer: bench/run
// runs both and compares them (BenchmarkEncode/TEXT/tiktoken-go beside
// BenchmarkEncode/TEXT/harmony).
func BenchmarkEncode(b *testing.B) {
	codec, err := tiktoken.Get(tiktoken.O200kBase)
	if err != nil {
		b.Fatal(err)
	}
	texts, err := tokgen.BenchTexts("../..")
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"prose", "code", "prompt", "multilingual"} {
		text := texts[name]
		b.Run(name+"/tiktoken-go", func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			var ids []uint
			cpu := cputime.Start()
			for b.Loop() {
				ids, _, _ = codec.Encode(text)
			}
			cpu.Report(b, len(text))
			b.ReportMetric(float64(len(ids)), "tokens")
		})
	}
}
