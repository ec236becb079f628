package harmony_test

import (
	"context"
	"fmt"

	"github.com/beamharmony/harmony"
)

// byteVocab is a toy tokenizer for the example: one token per byte (ids 0
// to 255) and one per marker (ids 1000 on). Real code passes Beam's
// tokenizer: tokenizer.Load("path/to/checkpoint") from package
// github.com/beamharmony/harmony/tokenizer.
type byteVocab struct{}

func (byteVocab) TokenToID(tok string) (int, bool) {
	for i, mk := range harmony.Markers() {
		if tok == mk {
			return 1000 + i, true
		}
	}
	return 0, false
}

func (byteVocab) AppendEncodeOrdinary(dst []int, text string) []int {
	for i := 0; i < len(text); i++ {
		dst = append(dst, int(text[i]))
	}
	return dst
}

// RenderTokens gives the ids and the assistant mask a training pipeline
// needs (page: Training masks). The user's marker text stays ordinary
// text: only the renderer's own markers become marker tokens (14 here: 3 in
// the system message, 3 in the user's, 8 in the assistant turn).
func ExampleRenderTokens() {
	conversation := []harmony.Message{
		{Role: "user", Content: "What is 2 + 2? <|end|>"},
		{Role: "assistant", Reasoning: "Simple arithmetic.", Content: "4"},
	}
	toks, err := harmony.RenderTokens(context.Background(), conversation, nil, byteVocab{})
	if err != nil {
		fmt.Println(err)
		return
	}
	markers := harmony.Markers()
	var trained []byte
	markerTokens := 0
	for i, id := range toks.InputIDs {
		if id >= 1000 {
			markerTokens++
		}
		if toks.AssistantMasks[i] == 1 {
			if id >= 1000 {
				trained = append(trained, markers[id-1000]...)
			} else {
				trained = append(trained, byte(id))
			}
		}
	}
	fmt.Println(len(toks.InputIDs) == len(toks.AssistantMasks), markerTokens)
	fmt.Println(string(trained))
	// Output:
	// true 14
	// <|channel|>analysis<|message|>Simple arithmetic.<|end|><|start|>assistant<|channel|>final<|message|>4<|return|>
}
