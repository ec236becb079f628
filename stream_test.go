package harmony_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/internal/pyjson"
)

// region is what the events of one region say: how it opened, its chunks
// joined, and how it closed.
type region struct {
	field  harmony.Field
	name   string
	index  int
	text   string
	closed bool
	value  string // close value, or the call's JSON
}

// outcome is everything a parse of one generation gives, in comparable
// form.
type outcome struct {
	message  string
	warnings string
	end      string
	rest     string
	err      string
	regions  []region
}

func (o *outcome) String() string {
	return fmt.Sprintf("message %s\nwarnings %q\nend %q rest %q\nerr %q\nregions %+v",
		o.message, o.warnings, o.end, o.rest, o.err, o.regions)
}

func summarize(res *harmony.Parsed, err error, events []harmony.Event) *outcome {
	o := &outcome{}
	if res != nil {
		o.message = string(res.Message.AppendJSON(nil))
		o.warnings = joinWarnings(res.Warnings)
		o.end, o.rest = res.End, res.Rest
	}
	if err != nil {
		o.err = err.Error()
	}
	var text strings.Builder
	for _, e := range events {
		switch e.Type {
		case harmony.EventRegionOpen:
			if len(o.regions) > 0 {
				o.regions[len(o.regions)-1].text = text.String()
			}
			text.Reset()
			o.regions = append(o.regions, region{field: e.Field, name: e.Name, index: e.Index})
		case harmony.EventRegionChunk:
			text.WriteString(e.Text)
		case harmony.EventRegionClose:
			r := &o.regions[len(o.regions)-1]
			r.closed = true
			r.value = e.Value
			if e.Call != nil {
				r.value = string(e.Call.AppendJSON(nil))
			}
		}
	}
	if len(o.regions) > 0 {
		o.regions[len(o.regions)-1].text = text.String()
	}
	return o
}

// streamParse feeds the chunks and checks what must hold for any chunking:
// events are well nested, refer to the open region, and no event text ends
// inside a UTF-8 sequence or holds a marker in reasoning or content.
func streamParse(t *testing.T, chunks []string, opts *harmony.ParseOptions) *outcome {
	t.Helper()
	p := harmony.NewStreamParser(opts)
	var all, events []harmony.Event
	var err error
	for _, c := range chunks {
		events, err = p.Feed(c, events[:0])
		all = append(all, events...)
	}
	events, res, ferr := p.Finish(events[:0])
	all = append(all, events...)
	if err != nil && (ferr == nil || ferr.Error() != err.Error()) {
		t.Fatalf("Feed error %v, Finish error %v: errors must be sticky", err, ferr)
	}
	if res == nil {
		t.Fatalf("Finish returned no result")
	}
	checkEvents(t, all)
	return summarize(res, ferr, all)
}

func checkEvents(t *testing.T, events []harmony.Event) {
	t.Helper()
	open := false
	var field harmony.Field
	var text strings.Builder
	for i, e := range events {
		switch e.Type {
		case harmony.EventRegionOpen:
			if open {
				t.Fatalf("event %d opens a region inside another", i)
			}
			open, field = true, e.Field
			text.Reset()
		case harmony.EventRegionChunk:
			if !open || e.Field != field {
				t.Fatalf("event %d: chunk outside its region", i)
			}
			if e.Text == "" {
				t.Fatalf("event %d: empty chunk", i)
			}
			if r, _ := utf8.DecodeLastRuneInString(e.Text); r == utf8.RuneError {
				t.Fatalf("event %d: text %q ends inside a UTF-8 sequence", i, e.Text)
			}
			if field != harmony.FieldToolCalls && harmony.FindMarker(e.Text) != "" {
				t.Fatalf("event %d: marker in %s text %q", i, field, e.Text)
			}
			text.WriteString(e.Text)
		case harmony.EventRegionClose:
			if !open || e.Field != field {
				t.Fatalf("event %d: close outside its region", i)
			}
			open = false
			want := e.Value
			if e.Call != nil {
				want = string(e.Call.Function.Arguments)
			}
			if text.String() != want {
				t.Fatalf("event %d: chunks joined %q, close value %q", i, text.String(), want)
			}
		}
		if js := e.AppendJSON(nil); !isJSON(js) {
			t.Fatalf("event %d: invalid JSON %s", i, js)
		}
	}
}

func isJSON(b []byte) bool {
	_, err := pyjson.ParseBytes(b)
	return err == nil
}

// maxExhaustive is the length up to which replay tries every split point;
// longer inputs get a sample of splits. Every input is also fed one byte at
// a time and in random chunks.
const maxExhaustive = 2048

// replay parses gen in one piece, then at every two-chunk split, one byte
// at a time and in random chunks, and requires the same outcome each time;
// it also checks that Parse gives the same message and error. It returns
// the one-piece outcome.
func replay(t *testing.T, gen string, opts *harmony.ParseOptions) *outcome {
	t.Helper()
	return replayUpTo(t, gen, opts, maxExhaustive)
}

// replayUpTo is replay with every split point tried up to exhaustive
// bytes; a longer input gets about 257 split points and random chunks.
func replayUpTo(t *testing.T, gen string, opts *harmony.ParseOptions, exhaustive int) *outcome {
	t.Helper()
	ref := streamParse(t, []string{gen}, opts)
	res, err := harmony.Parse(gen, opts)
	if one := summarize(res, err, nil); one.message != ref.message || one.err != ref.err ||
		one.warnings != ref.warnings || one.end != ref.end || one.rest != ref.rest {
		t.Fatalf("Parse and the stream parser differ:\nParse:  %s\nstream: %s", one, ref)
	}
	if err != nil {
		if _, ok := err.(*harmony.ParseError); !ok {
			t.Fatalf("error %T is not a *ParseError", err)
		}
	}
	same := func(how string, chunks []string) {
		t.Helper()
		if got := streamParse(t, chunks, opts); got.String() != ref.String() {
			t.Fatalf("%s differs from one chunk:\ngot:  %s\nwant: %s", how, got, ref)
		}
	}
	splits := len(gen) + 1
	step := 1
	if len(gen) > exhaustive {
		step = len(gen)/257 + 1
	}
	for i := 0; i < splits; i += step {
		same(fmt.Sprintf("split at %d", i), []string{gen[:i], gen[i:]})
	}
	same("one byte at a time", chunksOf(gen, 1))
	rng := rand.New(rand.NewPCG(uint64(len(gen)), 7))
	same("random chunks", randomChunks(gen, rng))
	return ref
}

func chunksOf(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

func randomChunks(s string, rng *rand.Rand) []string {
	var out []string
	for len(s) > 0 {
		n := min(1+rng.IntN(16), len(s))
		out = append(out, s[:n])
		s = s[n:]
	}
	return out
}

// The page's stream example, event by event, at its own chunks.
func TestStreamPageExample(t *testing.T) {
	chunks := pageStreamChunks
	want := [][]string{
		{`{"type": "region_open", "field": "thinking"}`},
		{`{"type": "region_chunk", "field": "thinking", "text": "The user is "}`},
		{`{"type": "region_chunk", "field": "thinking", "text": "greeting me."}`},
		{`{"type": "region_close", "field": "thinking", "value": "The user is greeting me."}`,
			`{"type": "region_open", "field": "content"}`},
		{`{"type": "region_chunk", "field": "content", "text": "Hi! How "}`},
		{`{"type": "region_chunk", "field": "content", "text": "can I help?"}`},
		{`{"type": "region_close", "field": "content", "value": "Hi! How can I help?"}`},
	}
	p := harmony.NewStreamParser(&harmony.ParseOptions{Prefix: render(hello, harmony.Options{})})
	var events []harmony.Event
	for i, c := range chunks {
		var err error
		events, err = p.Feed(c, events[:0])
		if err != nil {
			t.Fatal(err)
		}
		if got := eventLines(events); strings.Join(got, "\n") != strings.Join(want[i], "\n") {
			t.Errorf("chunk %d %q:\ngot  %s\nwant %s", i, c, strings.Join(got, "\n"), strings.Join(want[i], "\n"))
		}
	}
	events, res, err := p.Finish(events[:0])
	if err != nil || len(events) != 0 {
		t.Fatalf("Finish: %v, %d events", err, len(events))
	}
	if got := string(res.Message.AppendJSON(nil)); got != `{"role": "assistant", "thinking": "The user is greeting me.", "content": "Hi! How can I help?"}` {
		t.Errorf("message %s", got)
	}
	if res.End != harmony.MarkerReturn {
		t.Errorf("End %q", res.End)
	}
}

func eventLines(events []harmony.Event) []string {
	var out []string
	for i := range events {
		out = append(out, string(events[i].AppendJSON(nil)))
	}
	return out
}

const weatherCall = "<|channel|>analysis<|message|>I'll call the weather tool.<|end|>" +
	"<|start|>assistant to=get_weather<|channel|>analysis <|constrain|>xml<|message|>" +
	"<rfl:parameter name=\"city\">\nParis\n</rfl:parameter>\n" +
	"<rfl:parameter name=\"days\">\n3\n</rfl:parameter><|call|>"

// Tool-call events: open with index and name, the arguments' JSON in
// fragments (a string value as it arrives, a cast value once complete),
// close with the call.
func TestStreamToolCallEvents(t *testing.T) {
	p := harmony.NewStreamParser(&harmony.ParseOptions{Tools: []harmony.Tool{getWeather}})
	var lines []string
	var events []harmony.Event
	cut := strings.Index(weatherCall, "Par") + 2 // inside the city's value
	for _, c := range []string{weatherCall[:cut], weatherCall[cut:]} {
		events, _ = p.Feed(c, events[:0])
		lines = append(lines, eventLines(events)...)
		lines = append(lines, "--")
	}
	want := []string{
		`{"type": "region_open", "field": "thinking"}`,
		`{"type": "region_chunk", "field": "thinking", "text": "I'll call the weather tool."}`,
		`{"type": "region_close", "field": "thinking", "value": "I'll call the weather tool."}`,
		`{"type": "region_open", "field": "tool_calls", "index": 0, "name": "get_weather"}`,
		`{"type": "region_chunk", "field": "tool_calls", "index": 0, "text": "{\"city\": \"Pa"}`,
		"--",
		`{"type": "region_chunk", "field": "tool_calls", "index": 0, "text": "ris\", \"days\": 3}"}`,
		`{"type": "region_close", "field": "tool_calls", "index": 0, "value": {"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}}}`,
		"--",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// A value that is not known to be a string is written once complete.
func TestStreamCastValueWaits(t *testing.T) {
	p := harmony.NewStreamParser(&harmony.ParseOptions{Tools: []harmony.Tool{getWeather}})
	gen := "<|channel|>analysis<|message|>x<|end|><|start|>assistant to=get_weather<|channel|>analysis<|message|>" +
		"<rfl:parameter name=\"days\">\n12"
	events, err := p.Feed(gen, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		if e.Type == harmony.EventRegionChunk && e.Field == harmony.FieldToolCalls {
			t.Errorf("integer value sent before it is complete: %q", e.Text)
		}
	}
	events, _ = p.Feed("\n</rfl:parameter><|call|>", events[:0])
	if got := eventLines(events)[0]; got != `{"type": "region_chunk", "field": "tool_calls", "index": 0, "text": "{\"days\": 12}"}` {
		t.Errorf("got %s", got)
	}
}

// Parallel calls are numbered within the generation.
func TestStreamCallIndexes(t *testing.T) {
	gen := "<|channel|>analysis<|message|>Both.<|end|>" +
		"<|start|>assistant to=a<|channel|>analysis <|constrain|>xml<|message|><|end|>" +
		"<|start|>assistant to=b<|channel|>analysis <|constrain|>xml<|message|><rfl:parameter name=\"x\">\n1\n</rfl:parameter><|call|>"
	o := replay(t, gen, nil)
	if len(o.regions) != 3 || o.regions[1].index != 0 || o.regions[1].name != "a" || o.regions[2].index != 1 ||
		o.regions[2].name != "b" || o.regions[1].text != "{}" || o.regions[2].text != `{"x": "1"}` {
		t.Errorf("regions %+v", o.regions)
	}
}

// Every reasoning and final message is a region of its own; the message
// joins them with a blank line.
func TestStreamSeveralMessages(t *testing.T) {
	gen := "<|channel|>analysis<|message|>one<|end|><|start|>assistant<|channel|>analysis<|message|>two<|end|>" +
		"<|start|>assistant<|channel|>final<|message|>A<|end|><|start|>assistant<|channel|>final<|message|>B<|return|>"
	o := replay(t, gen, nil)
	if len(o.regions) != 4 || o.regions[0].value != "one" || o.regions[1].value != "two" || o.regions[3].value != "B" {
		t.Errorf("regions %+v", o.regions)
	}
	if o.message != `{"role": "assistant", "thinking": "one\n\ntwo", "content": "A\n\nB"}` {
		t.Errorf("message %s", o.message)
	}
}

// Errors are sticky: every later call returns the first error.
func TestStreamStickyError(t *testing.T) {
	p := harmony.NewStreamParser(nil)
	_, err := p.Feed("<|channel|>analysis<|message|>a<|start|>", nil)
	if err == nil {
		t.Fatal("no error for <|start|> inside the reasoning")
	}
	events, err2 := p.Feed("<|end|>more", nil)
	if err2 == nil || err2.Error() != err.Error() || len(events) != 0 {
		t.Errorf("second Feed: %v, %d events", err2, len(events))
	}
	_, res, err3 := p.Finish(nil)
	if err3 == nil || err3.Error() != err.Error() {
		t.Errorf("Finish: %v", err3)
	}
	if res == nil || res.Message.Reasoning != "a" {
		t.Errorf("partial message %+v", res)
	}
	if _, err := p.Feed("x", nil); err == nil {
		t.Error("Feed after Finish: no error")
	}
	_, res2, _ := p.Finish(nil)
	if res2 != res {
		t.Error("second Finish gave another result")
	}
}

// The limit counts every byte fed; the part before it is still parsed.
func TestStreamLimit(t *testing.T) {
	opts := &harmony.ParseOptions{MaxBufferedBytes: 64}
	gen := "<|channel|>final<|message|>" + strings.Repeat("x", 100)
	o := replay(t, gen, opts)
	if !strings.Contains(o.err, "offset 64: ") || !strings.Contains(o.err, "limit of 64 bytes") {
		t.Errorf("err %q", o.err)
	}
	if o.message != `{"role": "assistant", "content": "`+strings.Repeat("x", 64-len("<|channel|>final<|message|>"))+`"}` {
		t.Errorf("partial message %s", o.message)
	}
	if o := replay(t, gen[:64], opts); o.err != "" {
		t.Errorf("at the limit: %s", o.err)
	}
}

// Feeding plain text allocates nothing beyond the events, whose text is
// the chunk itself; so does a string argument that needs no escaping.
func TestStreamPlainTextAllocs(t *testing.T) {
	for _, tc := range []struct{ name, head string }{
		{"reasoning", "<|channel|>analysis<|message|>"},
		{"string argument", "<|channel|>analysis<|message|>x<|end|><|start|>assistant to=f<|channel|>analysis<|message|><rfl:parameter name=\"a\">\n"},
	} {
		p := harmony.NewStreamParser(nil)
		events := make([]harmony.Event, 0, 8)
		events, _ = p.Feed(tc.head, events)
		for range 1000 { // grow the region's buffer first
			events, _ = p.Feed("abcd", events[:0])
		}
		allocs := testing.AllocsPerRun(1000, func() {
			events, _ = p.Feed("abcd", events[:0])
		})
		if allocs > 0.01 {
			t.Errorf("%s: %.2f allocations per chunk", tc.name, allocs)
		}
	}
}

// A whole streamed parse of a reasoning and an answer, in pieces that keep
// markers whole, allocates the parser,
// each region's text once (its pieces are gathered in a pooled scratch
// buffer), and the result: no header word, no list of regions, no growing
// buffer per region.
func TestStreamParseAllocs(t *testing.T) {
	gen := "<|channel|>analysis<|message|>" + strings.Repeat("Let me think. ", 150) + "<|end|>" +
		"<|start|>assistant<|channel|>final<|message|>" + strings.Repeat("The answer. ", 300) + "<|return|>"
	opts := &harmony.ParseOptions{Prefix: "<|start|>user<|message|>Go.<|end|><|start|>assistant"}
	// Pieces of 4 bytes and whole markers, as an engine streams tokens
	// (a marker cut in two is held back, which costs its own buffers).
	var pieces []string
	for rest := gen; rest != ""; {
		n := min(4, len(rest))
		if i := strings.Index(rest, "<|"); i == 0 {
			n = strings.Index(rest, "|>") + 2
		} else if i > 0 {
			n = min(n, i)
		}
		pieces, rest = append(pieces, rest[:n]), rest[n:]
	}
	events := make([]harmony.Event, 0, 8)
	allocs := testing.AllocsPerRun(100, func() {
		p := harmony.NewStreamParser(opts)
		for _, piece := range pieces {
			events, _ = p.Feed(piece, events[:0])
		}
		if _, res, err := p.Finish(events[:0]); err != nil || len(res.Message.Content) != 12*300 {
			t.Fatal(err)
		}
	})
	// The race detector makes sync.Pool drop buffers at random: a new
	// scratch buffer, and its growth, now and then.
	limit := 4.0
	if raceEnabled {
		limit = 6
	}
	if allocs > limit {
		t.Errorf("%.1f allocations per parse, want at most %.0f", allocs, limit)
	}
}

// BenchmarkStream feeds generations 4 bytes at a time: reasoning and an
// answer, and a call whose string argument is 1 KiB or 256 KiB of code
// (per byte, the two should cost the same: no rescanning), and 256 KiB of
// prose, which needs no JSON escapes.
func BenchmarkStream(b *testing.B) {
	for _, bc := range []struct{ name, gen string }{
		{"reasoning+answer/64KiB", answerGeneration(64 << 10)},
		{"call-string/1KiB", callGeneration(1 << 10)},
		{"call-string/256KiB", callGeneration(256 << 10)},
		{"call-prose/256KiB", strings.Replace(callGeneration(256<<10), code(256<<10), prose(256<<10), 1)},
	} {
		b.Run(bc.name, func(b *testing.B) {
			// The chunks are cut as they are fed, as they would arrive:
			// a slice of 65536 chunks would be scanned by every GC.
			gen := bc.gen
			events := make([]harmony.Event, 0, 16)
			b.SetBytes(int64(len(gen)))
			b.ReportAllocs()
			for b.Loop() {
				p := harmony.NewStreamParser(nil)
				for i := 0; i < len(gen); i += 4 {
					events, _ = p.Feed(gen[i:min(i+4, len(gen))], events[:0])
				}
				if _, _, err := p.Finish(events[:0]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Event texts and values may share memory with the parser's buffers
// (joined chunks, the arguments being built, a region's text); they must
// never change afterwards.
func TestEventTextsNeverChange(t *testing.T) {
	// Several calls: each builds its arguments in a buffer of its own,
	// which chunk texts view (viewArgs).
	var calls strings.Builder
	calls.WriteString("<|start|>assistant<|channel|>analysis<|message|>R<|end|>")
	for i := range 4 {
		calls.WriteString("<|start|>assistant to=get_weather<|channel|>analysis <|constrain|>xml<|message|>" +
			"<rfl:parameter name=\"city\">\n" + strings.Repeat(fmt.Sprintf("city %d ", i), 200) + "\n</rfl:parameter>")
		if i < 3 {
			calls.WriteString("<|end|>")
		}
	}
	calls.WriteString("<|call|>")
	for _, gen := range []string{
		callGeneration(8<<10) + "<|start|>assistant<|channel|>final<|message|>a < b\n<|return|>",
		callGeneration(100), // arguments short enough to stay in one buffer
		// "<" at the end of a chunk is held back and read again joined to
		// the next chunk, in the lexer's arena, which text events view
		// (joinHeld): enough of them to fill several blocks of the arena.
		"<|start|>assistant<|channel|>analysis<|message|>" + strings.Repeat("x<y ", 6000) + "<|end|>",
		calls.String(),
		// A region's value views the buffer its pieces were joined in,
		// which the next region's text follows (textAcc).
		"<|channel|>analysis<|message|>" + strings.Repeat("think ", 500) + "<|end|>" +
			"<|start|>assistant<|channel|>final<|message|>" + strings.Repeat("answer ", 500) + "<|return|>",
	} {
		eventTextsNeverChange(t, gen)
	}
}

func eventTextsNeverChange(t *testing.T, gen string) {
	for _, size := range []int{1, 3, 4, 7, 64} {
		p := harmony.NewStreamParser(nil)
		var texts, copies []string
		var events []harmony.Event
		record := func(evs []harmony.Event) {
			for _, e := range evs {
				texts = append(texts, e.Text, e.Value)
				copies = append(copies, strings.Clone(e.Text), strings.Clone(e.Value))
			}
		}
		for i := 0; i < len(gen); i += size {
			events, _ = p.Feed(gen[i:min(i+size, len(gen))], events[:0])
			record(events)
		}
		events, res, err := p.Finish(events[:0])
		record(events)
		if err != nil {
			t.Fatalf("chunk %d: %v", size, err)
		}
		for i := range texts {
			if texts[i] != copies[i] {
				t.Fatalf("chunk %d: event %d text changed from %q to %q", size, i, copies[i], texts[i])
			}
		}
		// Editing the returned arguments leaves the events alone.
		for _, c := range res.Message.ToolCalls {
			args := c.Function.Arguments
			for i := range args {
				args[i] = 'x'
			}
		}
		for i := range texts {
			if texts[i] != copies[i] {
				t.Fatalf("chunk %d: editing Arguments changed event %d", size, i)
			}
		}
	}
}

// joinWarnings returns the warnings' texts, one per line.
func joinWarnings(ws []harmony.Warning) string { return strings.Join(warningTexts(ws), "\n") }

// warningTexts returns each warning's text.
func warningTexts(ws []harmony.Warning) []string {
	var texts []string
	for _, w := range ws {
		texts = append(texts, w.String())
	}
	return texts
}

// A region's text in pieces is gathered in a scratch buffer that the next
// region and the next parser reuse: the values an earlier parse returned
// (region_close values and the message) must not change when it is reused.
func TestRegionTextsOutliveScratch(t *testing.T) {
	gen := func(c string) string {
		return "<|channel|>analysis<|message|>" + strings.Repeat(c+"think ", 300) + "<|end|>" +
			"<|start|>assistant<|channel|>final<|message|>" + strings.Repeat(c+"answer ", 300) + "<|return|>"
	}
	parse := func(text string) (values []string, res *harmony.Parsed) {
		p := harmony.NewStreamParser(nil)
		var events []harmony.Event
		for i := 0; i < len(text); i += 5 {
			events, _ = p.Feed(text[i:min(i+5, len(text))], events[:0])
			for _, e := range events {
				if e.Type == harmony.EventRegionClose {
					values = append(values, e.Value)
				}
			}
		}
		events, res, err := p.Finish(events[:0])
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range events {
			if e.Type == harmony.EventRegionClose {
				values = append(values, e.Value)
			}
		}
		return values, res
	}
	values, res := parse(gen("a"))
	want := []string{strings.Repeat("athink ", 300), strings.Repeat("aanswer ", 300)}
	for range 3 {
		parse(gen("b"))
	}
	if len(values) != 2 || values[0] != want[0] || values[1] != want[1] {
		t.Errorf("region_close values changed by later parses: %.40q...", values)
	}
	if res.Message.Reasoning != want[0] || res.Message.Content != want[1] {
		t.Errorf("message changed by later parses: %.40q... %.40q...", res.Message.Reasoning, res.Message.Content)
	}
}

// A caller's reused slice may hold anything: a chunk event written into a
// slot holding another field of the same length, or the same field at
// another address, still says its own field (emitChunk skips the store
// only for the same string in memory).
func TestEventSlotReuse(t *testing.T) {
	gen := "<|channel|>analysis<|message|>abcdefgh<|end|><|start|>assistant<|channel|>final<|message|>ijklmnop<|return|>"
	for _, junk := range []harmony.Field{"CONTENT", "THINKING", harmony.Field(strings.Clone("content")), "tool_callz", ""} {
		p := harmony.NewStreamParser(nil)
		var got []harmony.Event
		for i := 0; i < len(gen); i += 4 {
			events := make([]harmony.Event, 0, 8)
			slots := events[:8]
			for k := range slots {
				slots[k] = harmony.Event{Type: harmony.EventRegionClose, Field: junk, Name: "n", Value: "v", Index: 3, Call: &harmony.ToolCall{}}
			}
			events, _ = p.Feed(gen[i:min(i+4, len(gen))], events)
			got = append(got, events...)
		}
		events, _, err := p.Finish(nil)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, events...)
		var thinking, content strings.Builder
		for _, e := range got {
			if e.Type != harmony.EventRegionChunk {
				continue
			}
			if e.Name != "" || e.Value != "" || e.Index != 0 || e.Call != nil {
				t.Errorf("junk %q: chunk event keeps old members: %+v", junk, e)
			}
			switch e.Field {
			case harmony.FieldThinking:
				thinking.WriteString(e.Text)
			case harmony.FieldContent:
				content.WriteString(e.Text)
			default:
				t.Errorf("junk %q: chunk event of field %q", junk, e.Field)
			}
		}
		if thinking.String() != "abcdefgh" || content.String() != "ijklmnop" {
			t.Errorf("junk %q: thinking %q, content %q", junk, thinking.String(), content.String())
		}
	}
}
