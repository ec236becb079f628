package split

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// pieces returns the matches of m in s, as All gives them.
func pieces(m Matcher, s string) []string {
	var out []string
	for start, end := range All(m, s) {
		out = append(out, s[start:end])
	}
	return out
}

func spans(m Matcher, s string) [][2]int {
	var out [][2]int
	for start, end := range All(m, s) {
		out = append(out, [2]int{start, end})
	}
	return out
}

// handChecked holds, per known pattern, inputs and the pieces worked out by
// hand from the pattern's leftmost-first alternatives (the reasoning is in
// the row name).
var handChecked = []struct {
	name, pattern, in string
	want              []string
}{
	{"gpt2: words take one leading space; a contraction splits; trailing whitespace is one piece",
		PatternGPT2, "Hello world's 123 test!!  \n",
		[]string{"Hello", " world", "'s", " 123", " test", "!!", "  \n"}},
	{"gpt2: a space run before a word leaves its last space to the word",
		PatternGPT2, "I'm  fine",
		[]string{"I", "'m", " ", " fine"}},
	{"gpt2: contractions are lowercase only",
		PatternGPT2, "DON'T",
		[]string{"DON", "'", "T"}},
	{"cl100k: case-insensitive contraction, newline runs, digit triples",
		PatternCL100K, "HELLO'S world\r\n\r\n  x 12345",
		[]string{"HELLO", "'S", " world", "\r\n\r\n", " ", " x", " ", "123", "45"}},
	{"qwen2: as cl100k with single digits",
		PatternQwen2, "HELLO'S world\r\n\r\n  x 12345",
		[]string{"HELLO", "'S", " world", "\r\n\r\n", " ", " x", " ", "1", "2", "3", "4", "5"}},
	{"o200k: case runs split words; contractions join the word; slash prefixes a word",
		PatternO200K, "HelloWorld's CAPS'LL don't\n\n/x",
		[]string{"Hello", "World's", " CAPS'LL", " don't", "\n\n", "/x"}},
	{"o200k: punctuation takes trailing newlines and slashes",
		PatternO200K, "a.\n\nb ,//c",
		[]string{"a", ".\n\n", "b", " ,//", "c"}},
}

func TestBacktrackHandChecked(t *testing.T) {
	for _, tc := range handChecked {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Backtrack(tc.pattern)
			if err != nil {
				t.Fatal(err)
			}
			if got := pieces(b, tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("pieces(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestRegexHandChecked(t *testing.T) {
	for _, tc := range handChecked {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Regex(tc.pattern)
			if err != nil {
				t.Fatal(err)
			}
			if got := pieces(m, tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("pieces(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestGPT2IsByteLevelPattern(t *testing.T) {
	if got := pieces(GPT2, "I'm  fine"); !reflect.DeepEqual(got, []string{"I", "'m", " ", " fine"}) {
		t.Errorf("GPT2 pieces = %q", got)
	}
}

// TestAllEmptyMatches checks the onig crate's iteration (its own tests give
// the \d* row) on patterns that can match nothing.
func TestAllEmptyMatches(t *testing.T) {
	tests := []struct {
		name, pattern, in string
		want              [][2]int
	}{
		{"an empty match right after a match is dropped", `\d*`, "a1bbb2", [][2]int{{0, 0}, {1, 2}, {3, 3}, {4, 4}, {5, 6}}},
		{"the first empty match after a match is dropped even when it is further on", `ab|(?=d)`, "abcd", [][2]int{{0, 2}}},
		{"empty matches step one character, multi-byte included", `x*`, "éa", [][2]int{{0, 0}, {2, 2}, {3, 3}}},
		{"an empty text has one empty match", `x*`, "", [][2]int{{0, 0}}},
		{"a non-empty match at the end", `a`, "ba", [][2]int{{1, 2}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Regex(tc.pattern)
			if err != nil {
				t.Fatal(err)
			}
			if got := spans(m, tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("All(%q, %q) = %v, want %v", tc.pattern, tc.in, got, tc.want)
			}
		})
	}
}

func TestSplits(t *testing.T) {
	type piece struct {
		s     string
		match bool
	}
	tests := []struct {
		name string
		m    Matcher
		in   string
		want []piece
	}{
		{"gaps and matches cover the text", Literal(" "), "How are you", []piece{{"How", false}, {" ", true}, {"are", false}, {" ", true}, {"you", false}}},
		{"an empty text is one empty gap", Literal(" "), "", []piece{{"", false}}},
		{"an empty literal matches around every character", Literal(""), "ab", []piece{{"", true}, {"a", false}, {"", true}, {"b", false}, {"", true}}},
		{"a match at both ends", Literal("x"), "xax", []piece{{"x", true}, {"a", false}, {"x", true}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []piece
			Splits(tc.m, tc.in, func(start, end int, isMatch bool) bool {
				got = append(got, piece{tc.in[start:end], isMatch})
				return true
			})
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Splits = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestLiteral(t *testing.T) {
	tests := []struct {
		name, lit, in string
		want          [][2]int
	}{
		{"non-overlapping, left to right", "aa", "aaaaa", [][2]int{{0, 2}, {2, 4}}},
		{"metacharacters are literal", "a.b", "axb a.b", [][2]int{{4, 7}}},
		{"case matters", "Hello", "hello Hello", [][2]int{{6, 11}}},
		{"the empty literal steps by character", "", "é", [][2]int{{0, 0}, {2, 2}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := spans(Literal(tc.lit), tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("spans = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestLiteralAgreesWithRegex checks Literal against the escaped pattern on
// regexp2, as Hugging Face compiles a String pattern.
func TestLiteralAgreesWithRegex(t *testing.T) {
	for _, lit := range []string{"", " ", "aa", "a.b", "(x)", "é", "\n"} {
		var esc strings.Builder
		for _, c := range lit {
			if strings.ContainsRune(`\.+*?()|[]{}^$`, c) {
				esc.WriteByte('\\')
			}
			esc.WriteRune(c)
		}
		b, err := Backtrack(esc.String())
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range []string{"", "aaaaa", "axb a.b (x)", "éé \n\n", "a\xffb"} {
			if got, want := spans(Literal(lit), in), spans(b, in); !reflect.DeepEqual(got, want) {
				t.Errorf("Literal(%q) on %q = %v, regexp2 %v", lit, in, got, want)
			}
		}
	}
}

func TestFindStartsAtPos(t *testing.T) {
	m, err := Regex(`(?<=a)b`)
	if err != nil {
		t.Fatal(err)
	}
	// Look-behind sees the text before pos.
	if s, e := m.Find("ab", 1); s != 1 || e != 2 {
		t.Errorf("Find(ab, 1) = %d, %d; want 1, 2", s, e)
	}
	// A position inside a character moves to the next character.
	m2, _ := Regex(`.`)
	if s, e := m2.Find("éa", 1); s != 2 || e != 3 {
		t.Errorf("Find(éa, 1) = %d, %d; want 2, 3", s, e)
	}
	if s, _ := m2.Find("a", 2); s != -1 {
		t.Errorf("Find past the end = %d, want -1", s)
	}
}

// TestTranslateSemantics checks translated constructs against what
// Oniguruma does with them.
func TestTranslateSemantics(t *testing.T) {
	tests := []struct {
		name, pattern, in string
		want              [][2]int
	}{
		{"^ is a line anchor, not after a final newline", `^`, "a\nb\n", [][2]int{{0, 0}, {2, 2}}},
		{"$ is a line anchor", `$`, "a\nb\n", [][2]int{{1, 1}, {3, 3}, {4, 4}}},
		{". is anything but \\n", `.`, "a\r\n", [][2]int{{0, 1}, {1, 2}}},
		{"\\s is White_Space (NBSP, U+0085, U+2028) and not U+200B or U+FEFF", `\s`, "\u00a0\u0085\u2028\u200b\ufeff", [][2]int{{0, 2}, {2, 4}, {4, 7}}},
		{"\\d is Nd only", `\d+`, "1٣²Ⅷ", [][2]int{{0, 3}}},
		{"\\h is a hexadecimal digit", `\h+`, "0fG", [][2]int{{0, 2}}},
		{"\\w is letters, marks, numbers and connectors", `\w+`, "a_²\u0301-b", [][2]int{{0, 6}, {7, 8}}},
		{"{,n} is {0,n}", `a{,2}b`, "aaab", [][2]int{{1, 4}}},
		{"a brace that is no interval is literal", `a{x}`, "a{x}", [][2]int{{0, 4}}},
		{"long property names", `\p{Uppercase_Letter}+`, "abCD", [][2]int{{2, 4}}},
		{"negated property", `\p{^L}+`, "ab12", [][2]int{{2, 4}}},
		{"script", `\p{Han}+`, "a漢字b", [][2]int{{1, 7}}},
		{"code point escapes", `\x{1F600}|\u00e9|\x41`, "😀éA", [][2]int{{0, 4}, {4, 6}, {6, 7}}},
		{"case-insensitive group over ASCII", `(?i:ab)c`, "ABc ABC", [][2]int{{0, 3}}},
		{"case-insensitive s matches long s", `(?i:'s)`, "'ſ", [][2]int{{0, 3}}},
		{"(?i) at the start of a group", `x((?i)a|b)`, "xA xB", [][2]int{{0, 2}, {3, 5}}},
		{"named group", `(?<n>a)b`, "ab", [][2]int{{0, 2}}},
		{"possessive quantifier", `a*+a|b`, "aab", [][2]int{{2, 3}}},
		{"class escapes", `[\s\d\w-]+`, "a1 -", [][2]int{{0, 4}}},
		{"an interval then + is a nested repeat, not possessive", `\d{1,3}+`, "12345 6", [][2]int{{0, 5}, {6, 7}}},
		{"a fixed interval then ? is optional, not lazy", `a{2}?b`, "b aab ab", [][2]int{{0, 1}, {2, 5}, {7, 8}}},
		{"a group then an interval then + wraps the group", `(?:ab){1}+c`, "ababc", [][2]int{{0, 5}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Regex(tc.pattern)
			if err != nil {
				t.Fatal(err)
			}
			if got := spans(m, tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("All(%q, %q) = %v, want %v (translated %q)", tc.pattern, tc.in, got, tc.want, m.(*BacktrackMatcher).Translated())
			}
		})
	}
}

func TestTranslateRefuses(t *testing.T) {
	tests := []struct {
		pattern, mentions string
	}{
		{`\bword\b`, `word boundary`},
		{`(a)\1`, `back-references`},
		{`(?m:.)`, `option (?m)`},
		{`(?x) a`, `option (?x)`},
		{`[[:alpha:]]`, `nested class`},
		{`[a-z&&[^x]]`, `intersection`},
		{`\p{C}`, `property \p{C}`},
		{`\p{Alphabetic}`, `property`},
		{`(?i:ß)`, `non-ASCII`},
		{`(?i:class)`, `'s' after 's'`},
		{`(?i:a+)`, `quantifier`},
		{`(?i:\p{Lu})`, `case-insensitive`},
		{`a(?i)b|c`, `after the start`},
		{`\xff`, `raw byte`},
		{`\K`, `escape \K`},
		{`(?#comment)`, `(?#`},
		{`[]a]`, `] first`},
		{`(a`, `missing )`},
		{`a)`, `unmatched )`},
		{`[a`, `unterminated`},
		{`*a`, `without anything to repeat`},
		{`a**`, `nested quantifier`},
	}
	for _, tc := range tests {
		t.Run(tc.pattern, func(t *testing.T) {
			_, err := Regex(tc.pattern)
			var pe *PatternError
			if !errors.As(err, &pe) {
				t.Fatalf("Regex(%q) error = %v, want a *PatternError", tc.pattern, err)
			}
			if !strings.Contains(err.Error(), tc.mentions) {
				t.Errorf("Regex(%q) error = %q, want it to mention %q", tc.pattern, err, tc.mentions)
			}
		})
	}
}

// TestRealPatterns runs patterns of published tokenizer.json files that have
// no scanner, with outputs worked out by hand from Oniguruma's reading.
func TestRealPatterns(t *testing.T) {
	tests := []struct {
		name, pattern, in string
		want              []string
	}{
		// tiktoken's newer cl100k spelling: under Oniguruma \p{N}{1,3}+ is
		// (?:\p{N}{1,3})+, so a digit run is one piece (tiktoken's
		// possessive reading would give 123 and 45).
		{"cl100k possessive spelling", `'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s`,
			"abc 12345 It'S  \n\n", []string{"abc", " ", "12345", " It", "'S", "  \n\n"}}, // \s++$ takes the final run
		{"cl100k possessive spelling, inner newlines", `'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s`,
			"a  \n\nb", []string{"a", "  \n\n", "b"}}, // \s*[\r\n] backs off to the last newline
		// DeepSeek V3's three Split patterns.
		{"deepseek digits", `\p{N}{1,3}`, "12345", []string{"123", "45"}},
		{"deepseek cjk", `[一-龥\x{3040}-ゟ゠-ヿ]+`, "ab日本語ひらがなカタカナcd", []string{"日本語ひらがなカタカナ"}},
		{"deepseek words", "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
			".git foo, bar!!\n", []string{".git", " foo", ",", " bar", "!!\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Regex(tc.pattern)
			if err != nil {
				t.Fatal(err)
			}
			if got := pieces(m, tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("pieces(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestKnown(t *testing.T) {
	tests := []struct{ pattern, want string }{
		{PatternGPT2, "gpt2"},
		{PatternCL100K, "cl100k"},
		{PatternQwen2, "qwen2"},
		{PatternO200K, "o200k"},
		{`\s+`, ""},
		{PatternO200K + " ", ""}, // exact string match only
	}
	for _, tc := range tests {
		if got := Known(tc.pattern); got != tc.want {
			t.Errorf("Known(%q) = %q, want %q", tc.pattern, got, tc.want)
		}
		m, err := Regex(tc.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if _, isBacktrack := m.(*BacktrackMatcher); isBacktrack != (tc.want == "") {
			t.Errorf("Regex(%q) is %T", tc.pattern, m)
		}
	}
}

// TestConcurrentUse runs one matcher of each kind from several goroutines on
// different texts (the backtracking matcher caches the last text decoded).
func TestConcurrentUse(t *testing.T) {
	texts := []string{"Hello world's 123 test!!  \n", "I'm  fine", "日本語 text\r\n\r\n", "x  y\tz"}
	for _, pattern := range []string{PatternO200K, `\p{L}+|\s+(?!\S)|\s+|\p{N}{1,3}|[^\s\p{L}\p{N}]+`} {
		m, err := Regex(pattern)
		if err != nil {
			t.Fatal(err)
		}
		want := make([][][2]int, len(texts))
		for i, s := range texts {
			want[i] = spans(m, s)
		}
		done := make(chan string)
		for g := range 4 {
			go func() {
				for k := range 200 {
					i := (g + k) % len(texts)
					if got := spans(m, texts[i]); !reflect.DeepEqual(got, want[i]) {
						done <- fmt.Sprintf("%q on %q: %v, want %v", pattern, texts[i], got, want[i])
						return
					}
				}
				done <- ""
			}()
		}
		for range 4 {
			if msg := <-done; msg != "" {
				t.Error(msg)
			}
		}
	}
}
