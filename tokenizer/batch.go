package tokenizer

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// EncodeBatch returns the ids of AppendEncode(nil, text) for each text, in
// order, encoding the texts on min(GOMAXPROCS, len(texts)) goroutines.
// Each goroutine has its own scratch and cache of merged pieces: the
// goroutines share nothing they write but the index of the next text to
// take.
func (t *Tokenizer) EncodeBatch(texts []string) [][]int {
	return t.encodeBatch(texts, false)
}

// EncodeOrdinaryBatch is EncodeBatch with AppendEncodeOrdinary: added-token
// content in the texts is encoded as ordinary text.
func (t *Tokenizer) EncodeOrdinaryBatch(texts []string) [][]int {
	return t.encodeBatch(texts, true)
}

func (t *Tokenizer) encodeBatch(texts []string, ordinary bool) [][]int {
	out := make([][]int, len(texts))
	workers := min(runtime.GOMAXPROCS(0), len(texts))
	if workers <= 1 {
		st := t.getState()
		for i, s := range texts {
			out[i] = t.encodeIDs(st, s, ordinary)
		}
		t.putState(st)
		return out
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			st := t.getState()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(texts) {
					break
				}
				out[i] = t.encodeIDs(st, texts[i], ordinary)
			}
			t.putState(st)
		})
	}
	wg.Wait()
	return out
}

// encodeIDs encodes one text of a batch with the state st.
func (t *Tokenizer) encodeIDs(st *state, text string, ordinary bool) []int {
	// Three bytes a token or more: one allocation for most texts (appends
	// grow it past a million tokens).
	sk := sink{ids: make([]int, 0, min(len(text)/3+16, 1<<20))}
	st.start(context.Background(), false)
	t.encodeInto(st, &sk, text, ordinary)
	st.stop()
	return sk.ids
}
