package tokgen

import (
	"math/rand/v2"
	"strings"
)

// Texts returns the texts that the tokenizer's differential tests encode: every
// marker alone and in context, emoji, CJK, combining marks, code, white
// space runs (tabs, NBSP, \r\n, U+2028), very long words, and random strings
// over an alphabet of tricky characters.
func Texts() []string {
	texts := []string{
		"", " ", "  ", "\n", "\t", "a", "Hello, world!", "hello world", " hello", "Hello  world  ",
		"The quick brown fox jumps over the lazy dog.",
		"I'm sure it's fine; they're here, we've won, you'll see, he'd go. DON'T SHOUT, I'LL GO",
		"日本語のテキスト", "中文文本，标点。", "한국어 텍스트", "ภาษาไทย", "Ελληνικά κείμενο", "русский текст", "עברית", "العربية",
		"🙂", "🙂🙂🙂", "👍🏽", "👨‍👩‍👧‍👦 family", "🇫🇷🇩🇪", "a🙂b", " 🙂 ",
		"e\u0301", "cafe\u0301 re\u0301sume\u0301", "naïve café", "Z\u0351\u036b\u0343\u036a\u0302\u036b\u033d\u034f\u0334\u0319\u0324\u031e\u0349\u035a\u032f\u031e\u0320\u034dA\u036b\u0357\u0334\u0362\u0335\u031c\u0330\u0354L\u0368\u0367\u0369\u0358\u0320G\u0311\u0357\u030e\u0305\u035b\u0341\u0334\u033b\u0348\u034d\u0354\u0339O\u0342\u030c\u030c\u0358\u0328\u0335\u0339\u033b\u031d\u0333",
		"\u00c5ngstr\u00f6m \u212bngstr\u00f6m \ufb01 \u2460\u2461 \u00bd \u2075 x\u00b2",
		"func main() {\n\tfmt.Println(\"hello, world\")\n}\n",
		"if err != nil {\r\n\treturn fmt.Errorf(\"read %s: %w\", path, err)\r\n}\r\n",
		"def f(x):\n    return x**2  # square\n\n\n",
		"<div class=\"a\">&nbsp;</div>  // path/to/file.go:12:34",
		"a\tb\t\tc   d    \t  e", "\t\t\t", "    \n    \n", "a\u00a0b\u00a0\u00a0c \u00a0 d", "\u00a0", "line\u2028next\u2029para", "\r\n\r\n", "a\r\nb\rc\nd",
		"x\u3000y\u2003z\u200bw", "tab\t\n\t end", "   leading and trailing   ",
		"12345", "1234567890123", "3.14159 2,000,000 -42 1e10", "٣٤٥ ١٢ ௧௨௩ Ⅻ ½", "0x1F 0b1010 007",
		"$$$ %%% ^^^ &&& *** ((( ))) --- +++ === ||| \\\\ /// ??? !!! ...",
		"hello.world/foo/bar\n//comment\n/*x*/", "a/\n", "!!!\n\n", "foo:\r\n", "'s 'S 'll 'LL 'Re 'd 'x",
		"don't DON'T Don'T o'clock rock'n'roll",
		"<|endoftext|> <|startoftext|>", "<|", "|>", "<|start", "start|>", "<||>", "<|start|", "|start|>",
		"Ünïcödé ÜBER ünter ÄÖÜ", "ǅemal ǈudi ǋak", "ʰʲʷ ˢ", "ǂǃ ǀ", "ⅰⅱⅲ",
		// Characters Unicode 15.1 and 16.0 assign (letters, marks, digits,
		// punctuation and symbols), which Hugging Face's tables know and
		// Go's (Unicode 15.0) do not: the tokenizer classes them as
		// Hugging Face does (internal/split/unicode_added.go).
		"\u1c89\u1c8a \ua7cb\ua7cc\ua7cd's \U00010d50\U00010d70 \U0002ebf0\U00013460 a\u0897b \u1c89'LL",
		"\U00010d40\U00010d41\U00010d42\U00010d43 \U00016d70\U00016d71 \U0001ccf0\U0001ccf1\U0001ccf2\U0001ccf3 x\U00010d40",
		"\U000113d4\U00016d6d \u2427\U0001fae9 \U00013b03'S}\U00013b03'S \U0002ec93\u2019s\u6587",
		// An added token with single_word (the gpt2 fixture's [WORD]) beside
		// them: a word character of 16.0 keeps it text.
		"\U0001395e[WORD] \u1c89[WORD]x [WORD]\U00010d40 [WORD] \u2427[WORD]",
	}
	for _, m := range Markers {
		texts = append(texts, m, " "+m+" ", "x"+m+"y", m+m, "\n"+m+"\n", strings.ToUpper(m))
	}
	texts = append(texts,
		"<|start|>user<|message|>What is 2 + 2?<|end|><|start|>assistant<|channel|>analysis<|message|>Simple arithmetic.<|end|><|start|>assistant<|channel|>final<|message|>4<|return|>",
		"<|start|>assistant<|channel|>analysis to=get_weather <|constrain|>xml<|message|><rfl:parameter name=\"city\">Paris</rfl:parameter><|call|>",
		"<|start|><|start|>  <|end|>\n<|message|>\t<|return|>",
		strings.Repeat("a", 10000), strings.Repeat("ab", 3000), strings.Repeat("Hello", 2000), strings.Repeat("9", 3001),
		strings.Repeat(" ", 5000)+"x", strings.Repeat("\n", 3000), strings.Repeat("🙂", 2000), strings.Repeat("日本", 2000),
		strings.Repeat("Supercalifragilisticexpialidocious", 300), strings.Repeat("z", 70000),
	)
	texts = append(texts, RandomTexts(400, 1)...)
	return texts
}

// tricky is the alphabet of RandomTexts.
var tricky = []string{
	"a", "b", "Z", "é", "e\u0301", "ß", "ǅ", "ʰ", "ǃ", "日", "本", "한", "ก", "ั", "\u0301", "\u0903",
	"0", "7", "٣", "½", "²", "Ⅻ", " ", "  ", "\t", "\n", "\r\n", "\r", "\u00a0", "\u2028", "\u3000", "\u200b",
	"'", "'s", "'LL", "'re", ".", ",", "!", "?", "/", "//", "\\", "-", "_", "(", ")", "{", "}", "<", ">", "|",
	"🙂", "👍🏽", "\U0001F1EB\U0001F1F7", "$", "%", "\"", "`", "~", "the", "The", "HELLO", "world", "func", ":=",
	"<|", "|>", "<|start|>", "<|end|>", "<|message|>", "<|return|>",
}

// RandomTexts returns n random strings over an alphabet of tricky
// characters (tricky), the same for the same seed.
func RandomTexts(n int, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, seed*7919))
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for k := r.IntN(40); k >= 0; k-- {
			b.WriteString(tricky[r.IntN(len(tricky))])
		}
		out[i] = b.String()
	}
	return out
}
