package serve

import (
	"strings"

	"github.com/beamharmony/harmony"
)

// heldCalls is the sink of a streamed request with a hosted web search. It
// holds back the events of tool calls until the generation ends: a
// generation that calls search or browse shows those calls as its API's
// search items, and its other calls not at all (gap decision 138), which
// only the end of the generation tells. Calls come last in a Beam turn, so
// only the calls wait. It also keeps the generation's reasoning and calls,
// for the round.
type heldCalls struct {
	streamSink
	holding bool
	held    []harmony.Event
	// names are the tools called, by the call's index.
	names     []string
	reasoning []string
	calls     []harmony.ToolCall
	// end is how the reply ends, once it does.
	final genEnd
}

func (h *heldCalls) emit(events []harmony.Event) {
	start := len(events) // where the held events begin
	if h.holding {
		start = 0
	}
	for i := range events {
		e := &events[i]
		switch {
		case e.Type == harmony.EventRegionOpen && e.Field == harmony.FieldToolCalls:
			if !h.holding {
				h.holding, start = true, i
			}
			for len(h.names) <= e.Index {
				h.names = append(h.names, "")
			}
			h.names[e.Index] = e.Name
		case e.Type == harmony.EventRegionClose && e.Field == harmony.FieldThinking:
			h.reasoning = append(h.reasoning, e.Value)
		case e.Type == harmony.EventRegionClose && e.Field == harmony.FieldToolCalls && e.Call != nil:
			h.calls = append(h.calls, *e.Call)
		}
	}
	if !h.holding {
		h.streamSink.emit(events)
		return
	}
	if start > 0 && start < len(events) {
		h.streamSink.emit(events[:start])
	}
	h.held = append(h.held, events[start:]...)
}

// keepAlive writes the inner sink's keep-alive.
func (h *heldCalls) keepAlive() {
	if ka, ok := h.streamSink.(keepAliver); ok {
		ka.keepAlive()
	}
}

// after decides what follows the generation g has just finished
// (exchange.afterGeneration): its held calls go out when it is the
// answer, less any search or browse call cut short; they are dropped when
// the gateway ran its built-in calls.
func (h *heldCalls) after(g *streamGen) (searchStep, *apiError) {
	msg := harmony.Message{Role: harmony.RoleAssistant, Reasoning: strings.Join(h.reasoning, "\n\n"), ToolCalls: h.calls}
	end := g.end
	lock := func() func() {
		g.mu.Lock()
		g.start()
		return func() {
			_ = g.flushLocked()
			g.mu.Unlock()
		}
	}
	w, _ := h.streamSink.(searchWriter)
	step, aerr := g.c.afterGeneration(&msg, &end, w, lock)
	if aerr != nil {
		return step, aerr
	}
	h.final = end
	if step == searchAnswer && len(h.held) > 0 {
		keep := h.held[:0]
		for _, e := range h.held {
			if e.Field == harmony.FieldToolCalls && e.Index < len(h.names) && isBuiltinCall(h.names[e.Index]) {
				continue
			}
			keep = append(keep, e)
		}
		unlock := lock()
		h.streamSink.emit(keep)
		unlock()
	}
	h.holding, h.held, h.names, h.reasoning, h.calls = false, h.held[:0], h.names[:0], nil, nil
	return step, nil
}
