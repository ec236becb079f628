package serve

import (
	"strings"

	"github.com/beamharmony/harmony"
)

// regionBlocks turns the parser's regions into the content blocks of a
// Messages stream or the output items of a Responses stream: regions of
// one kind that follow each other share a block, joined by "\n\n" as the
// parsed message joins them, and each tool call is a block of its own.
// The stream writes the events (blockEvents).
type regionBlocks struct {
	index   int             // the open block's index, -1 before the first
	kind    harmony.Field   // its parser field; "" once it is finished
	text    strings.Builder // its text so far
	pending strings.Builder // its text not yet written
}

// blockEvents writes a stream's events for its blocks.
type blockEvents interface {
	// startBlock writes the start of the block just opened for e.
	startBlock(e *harmony.Event)
	// writePending writes the open block's pending text as one delta.
	writePending()
	// finishBlock writes the end of the open block, whose text is final.
	finishBlock()
}

// emit adds a batch of parser events to the blocks and writes them to w.
func (b *regionBlocks) emit(w blockEvents, events []harmony.Event) {
	for i := range events {
		e := &events[i]
		switch e.Type {
		case harmony.EventRegionOpen:
			if e.Field == b.kind && e.Field != harmony.FieldToolCalls {
				b.add("\n\n")
				continue
			}
			b.finish(w)
			b.index++
			b.kind = e.Field
			b.text.Reset()
			w.startBlock(e)
		case harmony.EventRegionChunk:
			b.add(e.Text)
		case harmony.EventRegionClose:
			if e.Field == harmony.FieldToolCalls {
				b.finish(w)
			}
		}
	}
	w.writePending()
}

// add adds text to the open block.
func (b *regionBlocks) add(t string) {
	if b.index < 0 || b.kind == "" || t == "" {
		return
	}
	b.text.WriteString(t)
	b.pending.WriteString(t)
}

// finish ends the open block, if any: its pending text, then its end.
func (b *regionBlocks) finish(w blockEvents) {
	if b.index < 0 || b.kind == "" {
		return
	}
	w.writePending()
	w.finishBlock()
	b.kind = ""
}
