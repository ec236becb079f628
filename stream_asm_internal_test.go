package harmony

import (
	"math/rand/v2"
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

// plainText's word test says what plainClass's table says of every text
// of 4 to 8 bytes it reads a word at a time: each byte value at each
// position among bytes of no class, and random texts.
func TestWordClass(t *testing.T) {
	check := func(s string) {
		var class byte
		for i := 0; i < len(s); i++ {
			class |= plainClass[s[i]]
		}
		if class&classStop != 0 {
			class = classStop
		}
		n := len(s)
		if got := wordClass(uint64(load32(s)) | uint64(load32(s[n-4:]))<<32); got != class {
			t.Fatalf("wordClass(%q) = %d; the table says %d", s, got, class)
		}
	}
	for n := 4; n <= 8; n++ {
		for i := 0; i < n; i++ {
			for c := 0; c < 256; c++ {
				b := []byte(strings.Repeat("x", n))
				b[i] = byte(c)
				check(string(b))
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := "ab <\"\\\n\x1f\x20\x7f\x80\xc3\xa9~=;"
	for range 200000 {
		b := make([]byte, 4+r.IntN(5))
		for i := range b {
			if r.IntN(3) == 0 {
				b[i] = alphabet[r.IntN(len(alphabet))]
			} else {
				b[i] = byte(r.IntN(256))
			}
		}
		check(string(b))
	}
}
