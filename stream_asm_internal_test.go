package harmony

import (
	"strings"
	"testing"
)

func TestMarkerLengths(t *testing.T) {
	for _, mk := range markers {
		if len(mk) > maxMarkerLen {
			t.Errorf("%s is longer than maxMarkerLen (%d)", mk, maxMarkerLen)
		}
	}
}

// findMarkerParts finds the same marker as findMarkerBytes on the joined
// text, wherever the text is cut.
func TestFindMarkerParts(t *testing.T) {
	for _, text := range []string{
		"",
		"no marker here",
		"<|constrain|>",
		"ab<|end|>cd",
		"<|<|end|>",
		"x <| y <|call|> z <|start|>",
		"<|channel <|message|>",
		"12345678901234<|return|>",
		"<|start<|end|>",
	} {
		want := findMarkerBytes([]byte(text))
		// Every cut into first, two parts and last, some of them empty.
		for i := 0; i <= len(text); i++ {
			for j := i; j <= len(text); j++ {
				for k := j; k <= len(text); k++ {
					b := []byte(text)
					got := findMarkerParts(b[:i], [][]byte{b[i:j], b[j:k]}, b[k:])
					if got != want {
						t.Fatalf("%q cut at %d, %d, %d: %q, want %q", text, i, j, k, got, want)
					}
				}
			}
		}
		// One byte per part.
		var parts [][]byte
		for i := range len(text) {
			parts = append(parts, []byte(text[i:i+1]))
		}
		if got := findMarkerParts(nil, parts, nil); got != want {
			t.Errorf("%q a byte at a time: %q, want %q", text, got, want)
		}
	}
}

// A long streamed value spans several blocks of the arguments (newBlock):
// the arguments, the chunks joined and the warning about a marker in the
// value, wherever it falls, are those of Parse, which reads the value in
// one block.
func TestStreamArgumentBlocks(t *testing.T) {
	step := 61
	if testing.Short() {
		step = 997
	}
	body := strings.Repeat("a \"quoted\"\tline\n", 40<<10/16)
	for at := 0; at < len(body); at += step {
		value := body[:at] + "<|end|>" + body[at:]
		gen := "<|channel|>analysis<|message|>x<|end|><|start|>assistant to=f<|channel|>analysis <|constrain|>xml<|message|>" +
			"<rfl:parameter name=\"a\">\n" + value + "\n</rfl:parameter><|call|>"
		want, err := Parse(gen, nil)
		if err != nil {
			t.Fatal(err)
		}
		p := NewStreamParser(nil)
		var events []Event
		var chunks strings.Builder
		for i := 0; i < len(gen); i += 4 {
			events, _ = p.Feed(gen[i:min(i+4, len(gen))], events[:0])
			for _, e := range events {
				if e.Field == FieldToolCalls {
					chunks.WriteString(e.Text)
				}
			}
		}
		events, got, err := p.Finish(events[:0])
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range events {
			if e.Field == FieldToolCalls {
				chunks.WriteString(e.Text)
			}
		}
		if p.asm.call.partsLen == 0 {
			t.Fatal("the arguments stayed in one block") // the test's premise
		}
		args := string(got.Message.ToolCalls[0].Function.Arguments)
		if args != string(want.Message.ToolCalls[0].Function.Arguments) || chunks.String() != args {
			t.Fatalf("marker at %d: arguments differ from Parse's or from the chunks joined", at)
		}
		if g, w := warningsText(got.Warnings), warningsText(want.Warnings); g != w || !strings.Contains(g, "<|end|>") {
			t.Fatalf("marker at %d: warnings %q, want %q", at, g, w)
		}
	}
}

func warningsText(ws []Warning) string {
	var b strings.Builder
	for _, w := range ws {
		b.WriteString(w.String() + "\n")
	}
	return b.String()
}
