package pyjson

import (
	"math/rand/v2"
	"os"
	"testing"
)

// scanStringSlow is scanString's definition: one byte at a time.
func scanStringSlow(src []byte, pos int) int {
	for pos < len(src) && !stringSpecial[src[pos]] {
		pos++
	}
	return pos
}

// The word-at-a-time scan stops where the byte loop stops: every byte
// value at every position of a 17-byte window over plain text, then pairs
// of special bytes and random text, from every start.
func TestScanStringMatchesByteLoop(t *testing.T) {
	check := func(src []byte) {
		t.Helper()
		for pos := 0; pos <= len(src); pos++ {
			if got, want := scanString(src, pos), scanStringSlow(src, pos); got != want {
				t.Fatalf("scanString(%q, %d) = %d, want %d", src, pos, got, want)
			}
		}
	}
	for n := 0; n <= 17; n++ {
		for at := 0; at < n; at++ {
			for c := 0; c < 256; c++ {
				src := make([]byte, n)
				for i := range src {
					src[i] = 'a'
				}
				src[at] = byte(c)
				check(src)
			}
		}
	}
	specials := []byte{'"', '\\', 0, 0x1f, 0x20, 0x21, 0x7f, 0x80, 0xff, 0x01, 0x5b, 0x5d}
	for _, a := range specials {
		for _, b := range specials {
			for i := 0; i < 16; i++ {
				for j := i + 1; j < 16; j++ {
					src := []byte("abcdefghijklmnop")
					src[i], src[j] = a, b
					check(src)
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		src := make([]byte, r.IntN(40))
		for i := range src {
			switch r.IntN(8) {
			case 0:
				src[i] = byte(r.IntN(256))
			case 1:
				src[i] = specials[r.IntN(len(specials))]
			default:
				src[i] = byte(' ' + r.IntN(95))
			}
		}
		check(src)
	}
}

// BenchmarkParse parses the realistic request of the root package's
// benchmarks: 29 KB, strings of every length, a hundred messages.
func BenchmarkParse(b *testing.B) {
	src, err := os.ReadFile("../../testdata/bench/realistic_request.json")
	if err != nil {
		b.Fatal(err)
	}
	var d Doc
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if err := d.Parse(src); err != nil {
			b.Fatal(err)
		}
	}
}

// unquote decodes like appendUnquoted, escapes of every kind, lone and
// paired surrogates included.
func TestUnquoteMatchesAppendUnquoted(t *testing.T) {
	pieces := []string{`a`, `é`, `\n`, `\"`, `\\`, `\/`, `\b`, `\f`, `\r`, `\t`, `\u0041`, `\u00e9`, `\u4e2d`,
		`\ud83d\ude00`, `\ud83d`, `\ude00`, `\ud83dx`, `\u0000`, `世界`, ` `}
	r := rand.New(rand.NewPCG(5, 6))
	for range 5000 {
		var raw []byte
		for range r.IntN(8) {
			raw = append(raw, pieces[r.IntN(len(pieces))]...)
		}
		if got, want := unquote(raw), string(appendUnquoted(nil, raw)); got != want {
			t.Fatalf("unquote(%q) = %q, want %q", raw, got, want)
		}
	}
}

// escapeIndex finds the first byte to escape exactly where a byte loop
// does, and AppendEscaped escapes as the byte-at-a-time definition.
func TestEscapeIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	specials := []byte{'"', '\\', 0, 0x1f, 0x20, 0x7f, 0x80, 0xff, '\n', 'a'}
	for range 30000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			if r.IntN(6) == 0 {
				b[i] = specials[r.IntN(len(specials))]
			} else {
				b[i] = byte(' ' + r.IntN(95))
			}
		}
		s := string(b)
		want := 0
		for want < len(s) && !stringSpecial[s[want]] {
			want++
		}
		if got := escapeIndex(s); got != want {
			t.Fatalf("escapeIndex(%q) = %d, want %d", s, got, want)
		}
		var slow []byte
		for i := 0; i < len(s); i++ {
			if stringSpecial[s[i]] {
				slow = appendEscapedByte(slow, s[i])
			} else {
				slow = append(slow, s[i])
			}
		}
		if got := AppendEscaped(nil, s); string(got) != string(slow) {
			t.Fatalf("AppendEscaped(%q) = %q, want %q", s, got, slow)
		}
	}
}
