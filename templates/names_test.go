package templates_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/beamharmony/harmony/internal/schema"
	"github.com/beamharmony/harmony/templates"
	"golang.org/x/text/unicode/norm"
)

// templateList returns the pairs of the template's list literal named
// name ({%- set NAME = [['a', 'b'], ...] -%}), in order.
func templateList(t *testing.T, name string) [][2]string {
	t.Helper()
	start := strings.Index(templates.ChatTemplate, "{%- set "+name+" = [")
	if start < 0 {
		t.Fatalf("the template sets no %s", name)
	}
	line := templates.ChatTemplate[start:]
	line = line[:strings.IndexByte(line, '\n')]
	var pairs [][2]string
	for _, m := range regexp.MustCompile(`\['([^']*)', '([^']*)'\]`).FindAllStringSubmatch(line, -1) {
		pairs = append(pairs, [2]string{m[1], m[2]})
	}
	return pairs
}

// The template's FORMAT_FLAWS is every Unicode format character (Cf) of
// Go's tables, each with the Go renderer's words for it, so that the
// template refuses the names the renderer refuses.
func TestTemplateFormatCharacters(t *testing.T) {
	var want [][2]string
	for c := rune(0); c <= unicode.MaxRune; c++ {
		if unicode.Is(unicode.Cf, c) {
			want = append(want, [2]string{string(c), fmt.Sprintf("the format character U+%04X", c)})
		}
	}
	got := templateList(t, "FORMAT_FLAWS")
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("FORMAT_FLAWS holds %d entries, Go's Cf table %d; regenerate the list:\n%q", len(got), len(want), want)
	}
}

// The template's NFKC_LETTERS maps every character whose NFKC form is
// lowercase ASCII letters to that form: replacing them all gives a name's
// NFKC form whenever that form could be a role or a built-in tool.
func TestTemplateNFKCLetters(t *testing.T) {
	var want [][2]string
	for c := rune(0x80); c <= unicode.MaxRune; c++ {
		if c >= 0xD800 && c <= 0xDFFF {
			continue
		}
		folded := norm.NFKC.String(string(c))
		if folded != "" && strings.Trim(folded, "abcdefghijklmnopqrstuvwxyz") == "" {
			want = append(want, [2]string{string(c), folded})
		}
	}
	got := templateList(t, "NFKC_LETTERS")
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("NFKC_LETTERS holds %d entries, want %d; regenerate the list:\n%q", len(got), len(want), want)
	}
}

// The template's PERCENT table decodes a $ref's percent-escapes as
// schema.UnescapeFragment does (the Go renderer's and the grammar's
// pointers): each key is an escape's two hex digits, its value the
// character; every escape the Go side decodes is a key, and no other.
func TestTemplatePercentTable(t *testing.T) {
	start := strings.Index(templates.ChatTemplate, "{%- set PERCENT = {")
	if start < 0 {
		t.Fatal("the template sets no PERCENT")
	}
	line := templates.ChatTemplate[start:]
	line = line[:strings.IndexByte(line, '\n')]
	got := map[string]string{}
	for _, m := range regexp.MustCompile(`'([0-9A-Fa-f]{2})': '((?:\\.|[^'\\])*)'`).FindAllStringSubmatch(line, -1) {
		v := strings.NewReplacer(`\'`, `'`, `\\`, `\`).Replace(m[2])
		got[m[1]] = v
	}
	for a := range 256 {
		for _, hex := range []string{fmt.Sprintf("%02X", a), fmt.Sprintf("%02x", a)} {
			decoded := schema.UnescapeFragment("%" + hex)
			v, in := got[hex]
			switch {
			case decoded != "%"+hex && (!in || v != decoded):
				t.Errorf("%%%s: the Go side decodes it to %q, the template's table has %q (listed: %v)", hex, decoded, v, in)
			case decoded == "%"+hex && in:
				t.Errorf("%%%s: the template's table decodes it to %q, the Go side does not decode it", hex, v)
			}
		}
	}
	if len(got) != 130 {
		t.Errorf("the table has %d entries, want 130 (95 characters, 35 of them with hex letters in both cases)", len(got))
	}
}
