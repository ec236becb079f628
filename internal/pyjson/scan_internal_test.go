package pyjson

import (
	"bytes"
	"encoding/json"
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

// spaceSeparators writes compact JSON with Python's separators, ", " and
// ": ", on one line.
func spaceSeparators(src []byte) []byte {
	var out []byte
	inString := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		out = append(out, c)
		switch {
		case inString && c == '\\':
			i++
			out = append(out, src[i])
		case c == '"':
			inString = !inString
		case !inString && (c == ',' || c == ':'):
			out = append(out, ' ')
		}
	}
	return out
}

// BenchmarkParse parses the realistic request of the root package's
// benchmarks: 29 KB, strings of every length, a hundred messages, as it
// stands (indented), compact, and on one line with ", " and ": ".
func BenchmarkParse(b *testing.B) {
	src, err := os.ReadFile("../../testdata/bench/realistic_request.json")
	if err != nil {
		b.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, src); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		src  []byte
	}{{"indented", src}, {"compact", compact.Bytes()}, {"spaced", spaceSeparators(compact.Bytes())}} {
		b.Run(c.name, func(b *testing.B) {
			var d Doc
			b.SetBytes(int64(len(c.src)))
			b.ReportAllocs()
			for b.Loop() {
				if err := d.Parse(c.src); err != nil {
					b.Fatal(err)
				}
			}
		})
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
		// Both decode as encoding/json does (which also makes a lone
		// surrogate U+FFFD).
		var want string
		if err := json.Unmarshal([]byte(`"`+string(raw)+`"`), &want); err != nil {
			t.Fatal(err)
		}
		if got := unquote(raw); got != want {
			t.Fatalf("unquote(%q) = %q, encoding/json %q", raw, got, want)
		}
	}
}

// AppendEscaped escapes as the byte-at-a-time definition, at every length
// and escape density, and writes nothing past its result in dst's array
// (its 8-byte stores must be overwritten by the bytes that follow them).
func TestAppendEscaped(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	specials := []byte{'"', '\\', 0, 0x1f, 0x20, 0x7f, 0x80, 0xff, '\n', 'a'}
	for range 30000 {
		b := make([]byte, r.IntN(70))
		density := 1 + r.IntN(12)
		for i := range b {
			if r.IntN(density) == 0 {
				b[i] = specials[r.IntN(len(specials))]
			} else {
				b[i] = byte(' ' + r.IntN(95))
			}
		}
		s := string(b)
		prefix := []byte("ab")[:r.IntN(3)]
		slow := append([]byte(nil), prefix...)
		for i := 0; i < len(s); i++ {
			if stringSpecial[s[i]] {
				slow = appendEscapedByte(slow, s[i])
			} else {
				slow = append(slow, s[i])
			}
		}
		// A buffer with room for the result and a guard past it.
		buf := make([]byte, len(slow)+16)
		for i := range buf {
			buf[i] = 0xee
		}
		dst := append(buf[:0], prefix...)
		got := AppendEscaped(dst, s)
		if string(got) != string(slow) {
			t.Fatalf("AppendEscaped(%q, %q) = %q, want %q", prefix, s, got, slow)
		}
		if &got[:1][0] != &buf[0] && len(got) > 0 {
			t.Fatalf("AppendEscaped(%q) moved to a new array with room in dst", s)
		}
		for i := len(got); i < len(buf); i++ {
			if buf[i] != 0xee {
				t.Fatalf("AppendEscaped(%q) wrote byte %d of dst's array, past its result (%d bytes)", s, i, len(got))
			}
		}
		if got := AppendEscaped(nil, s); string(got) != string(slow[len(prefix):]) {
			t.Fatalf("AppendEscaped(nil, %q) = %q, want %q", s, got, slow[len(prefix):])
		}
	}
}

// FuzzUnquote: every string literal the parser accepts decodes as
// encoding/json decodes it, through Str and AppendString.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`a\nb`, `\"\\\/\b\f\r\t`, `\u00e9\ud83d\ude00\ud83d`, `caf\u00e9 and more`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		lit := []byte(`"` + string(raw) + `"`)
		var d Doc
		if d.Parse(lit) != nil {
			return
		}
		var want string
		if err := json.Unmarshal(lit, &want); err != nil {
			t.Fatalf("%s: parsed, but encoding/json refuses it: %v", lit, err)
		}
		if got := d.Str(0); got != want {
			t.Fatalf("Str of %s = %q, encoding/json %q", lit, got, want)
		}
		if got := d.AppendString(nil, 0); string(got) != want {
			t.Fatalf("AppendString of %s = %q, encoding/json %q", lit, got, want)
		}
	})
}

// TestStrOwnsItsBytes: a decoded string (made with unsafe.String over the
// buffer unquote fills) keeps its value when the source is overwritten and
// when other strings are decoded after it, from the same document or
// another: unquote never writes to a buffer it has made a string of.
func TestStrOwnsItsBytes(t *testing.T) {
	src := []byte(`["a\nb\"c", "\u00e9\t\\d", "x\/y"]`)
	want := []string{"a\nb\"c", "\u00e9\t\\d", "x/y"}
	var d Doc
	if err := d.Parse(src); err != nil {
		t.Fatal(err)
	}
	var got []string
	d.Elements(0, func(e, _ int) bool {
		got = append(got, d.Str(e))
		return true
	})
	// Decode again, from a document parsed into the same Doc over the same
	// (now rewritten) bytes: earlier strings must not change.
	copy(src, `["z\nz\"z", "\u00e0\t\\z", "z\/z"]`)
	if err := d.Parse(src); err != nil {
		t.Fatal(err)
	}
	d.Elements(0, func(e, _ int) bool {
		d.Str(e)
		return true
	})
	for i := range src {
		src[i] = '#'
	}
	for i, s := range got {
		if s != want[i] {
			t.Errorf("string %d = %q after the source changed, want %q", i, s, want[i])
		}
	}
}
