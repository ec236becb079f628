package harmony_test

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/beamharmony/harmony"
)

var updateStreamGolden = flag.Bool("update-stream-golden", false,
	"rewrite testdata/stream/outcomes.jsonl.gz from the current parser")

// streamGoldenCase is one generation, what the parser gave for it when the
// golden file was written, and what it must still give in every chunking.
type streamGoldenCase struct {
	Prefix  []byte `json:"prefix,omitempty"` // bytes: a string field would
	Gen     []byte `json:"gen"`              // lose invalid UTF-8 to JSON
	Tools   bool   `json:"tools,omitempty"`
	Outcome string `json:"outcome"`
}

// streamGoldenInputs returns generations that reach every state of the
// lexer and every error: the parse cases, rendered random turns after
// their prompts, and both mutated (a byte range dropped, a marker, tag,
// quote, newline or invalid byte put in, the end cut off).
func streamGoldenInputs() []streamGoldenCase {
	var cases []streamGoldenCase
	for _, tc := range parseCases {
		cases = append(cases, streamGoldenCase{Prefix: []byte(tc.prefix), Gen: []byte(tc.gen), Tools: tc.tools})
	}
	rng := rand.New(rand.NewPCG(20, 3))
	inserts := []string{"<|end|>", "<|start|>", "<|message|>", "<|channel|>", "<|call|>", "<|return|>", "<|constrain|>",
		"<rfl:parameter name=\"", "</rfl:parameter>", "\"", ">", "\n", " ", "<", "<|", "\xff", "\xe4\xb8", "to=", "final", "assistant"}
	base := len(cases)
	for range 160 {
		turn, tools := randomTurn(rng)
		history := []harmony.Message{{Role: "user", Content: "Go."}, turn}
		prompt, err := harmony.RenderPrompt(history, &harmony.Options{Tools: tools})
		if err != nil {
			panic(err)
		}
		span := prompt.AssistantSpans[0]
		prefix := prompt.Text[:span.Start]
		if rng.IntN(4) == 0 {
			prefix = "" // the generation starts with its header
		}
		cases = append(cases, streamGoldenCase{Prefix: []byte(prefix), Gen: []byte(prompt.Text[span.Start:span.End]), Tools: tools != nil})
	}
	for i := range len(cases) - base {
		c := cases[base+i]
		for range 4 {
			g := string(c.Gen)
			at := rng.IntN(len(g) + 1)
			switch rng.IntN(3) {
			case 0:
				g = g[:at] + g[min(len(g), at+1+rng.IntN(8)):]
			case 1:
				g = g[:at] + inserts[rng.IntN(len(inserts))] + g[at:]
			default:
				g = g[:at]
			}
			cases = append(cases, streamGoldenCase{Prefix: c.Prefix, Gen: []byte(g), Tools: c.Tools})
		}
	}
	return cases
}

// goldenOutcome parses c's generation in chunks of size (0: one piece)
// and describes the result.
func goldenOutcome(t *testing.T, c streamGoldenCase, size int) string {
	opts := &harmony.ParseOptions{Prefix: string(c.Prefix)}
	if c.Tools {
		opts.Tools = []harmony.Tool{getWeather, castTool(`{"type": ["integer", "string", "null"]}`)}
	}
	chunks := []string{string(c.Gen)}
	if size > 0 {
		chunks = chunksOf(string(c.Gen), size)
	}
	return streamParse(t, chunks, opts).String()
}

const streamGoldenPath = "testdata/stream/outcomes.jsonl.gz"

// The stream parser gives, for each generation of the golden file, in one
// piece and in chunks of 1, 2, 5 and 13 bytes, the events, message,
// warnings and error it gave when the file was written (before the lexer
// and assembler were separated by a token type): a differential test of
// the two designs, which must not differ in any byte.
func TestStreamGolden(t *testing.T) {
	if *updateStreamGolden {
		writeStreamGolden(t)
	}
	f, err := os.Open(streamGoldenPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<24)
	n := 0
	for sc.Scan() {
		var c streamGoldenCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		n++
		for _, size := range []int{0, 1, 2, 5, 13} {
			if got := goldenOutcome(t, c, size); got != c.Outcome {
				t.Fatalf("case %d in chunks of %d: prefix %q gen %q\n got %s\nwant %s", n, size, c.Prefix, c.Gen, got, c.Outcome)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 500 {
		t.Fatalf("only %d cases in %s", n, streamGoldenPath)
	}
}

func writeStreamGolden(t *testing.T) {
	if err := os.MkdirAll("testdata/stream", 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(streamGoldenPath)
	if err != nil {
		t.Fatal(err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	enc := json.NewEncoder(zw)
	for _, c := range streamGoldenInputs() {
		c.Outcome = goldenOutcome(t, c, 0)
		if err := enc.Encode(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
