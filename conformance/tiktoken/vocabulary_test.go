package tiktoken

import (
	"testing"

	"github.com/beamharmony/harmony/internal/tokgen"
	loader "github.com/pkoukk/tiktoken-go-loader"
)

// The vocabulary the repository holds (internal/tokgen/o200k_base.gz, from
// which the tests generate Beam's tokenizer) is o200k_base as
// github.com/pkoukk/tiktoken-go-loader distributes it: the same tokens
// with the same ranks.
func TestVocabularyIsO200kBase(t *testing.T) {
	want, err := loader.NewOfflineLoader().LoadTiktokenBpe("o200k_base.tiktoken")
	if err != nil {
		t.Fatal(err)
	}
	got, err := tokgen.O200kTokens()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d tokens, o200k_base has %d", len(got), len(want))
	}
	for rank, tok := range got {
		if r, ok := want[tok]; !ok || r != rank {
			t.Fatalf("token %q has rank %d, o200k_base %d (present %v)", tok, rank, r, ok)
		}
	}
}
