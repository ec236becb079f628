package grammar

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Past memoFrom classes, a pattern's parser keeps one expression per set
// of characters and the encoders encode each set once (gap decision
// 317). Patterns of 18 to 20 classes written out, each set met several
// times, still match as the regular expression does: inside a JSON
// string, and as a strict tool's raw argument, which holds no "<".
func TestPatternSharedClasses(t *testing.T) {
	alphabet := []rune{'a', 'b', 'c', '1', '7', '"', '\\', '\n', 'é', '<', 'x'}
	rng := rand.New(rand.NewPCG(3, 17))
	for _, units := range [][]string{
		{`[^a]`, `[a-c]`, `\d`, `[^"]`},
		{`\d`, `[^\\]`},
		{`[ab"]`, `[^\n<]`, `[\\x]`},
	} {
		var classes []*regexp.Regexp
		for _, u := range units {
			classes = append(classes, regexp.MustCompile(`^`+u+`$`))
		}
		n := 20 / len(units) * len(units)
		if n <= memoFrom {
			t.Fatalf("%v: %d classes, not past memoFrom", units, n)
		}
		pattern := "^" + strings.Repeat(strings.Join(units, ""), n/len(units)) + "$"
		re := regexp.MustCompile(pattern)
		format, err := compileFormat(`{"type": "string", "pattern": `+strconv.Quote(pattern)+`}`, true)
		if err != nil {
			t.Fatal(err)
		}
		params := `{"type": "object", "properties": {"s": {"type": "string", "pattern": ` + strconv.Quote(pattern) + `}}, "required": ["s"], "additionalProperties": false}`
		tool, err := Compile(context.Background(), &Spec{Tools: []Tool{{Name: "f", Parameters: json.RawMessage(params), Strict: true}}, Choice: Required})
		if err != nil {
			t.Fatal(err)
		}
		matched := 0
		for range 300 {
			// A value each of whose characters its class allows, then
			// half the time one character changed at random.
			value := make([]rune, n)
			for i := range value {
				for {
					value[i] = alphabet[rng.IntN(len(alphabet))]
					if classes[i%len(units)].MatchString(string(value[i])) {
						break
					}
				}
			}
			if rng.IntN(2) == 0 {
				value[rng.IntN(n)] = alphabet[rng.IntN(len(alphabet))]
			}
			s := string(value)
			want := re.MatchString(s)
			if want {
				matched++
			}
			var text strings.Builder
			for _, c := range s {
				text.WriteString(jsonCharText(c))
			}
			if got := format.Matches(analysisPrefix + finalHeader + `"` + text.String() + `"`); got != want {
				t.Errorf("pattern %s, JSON string %q: grammar %v, regexp %v", pattern, s, got, want)
			}
			wantRaw := want && !strings.Contains(s, "<")
			if got := tool.Matches(argCall + xmlArg("s", s)); got != wantRaw {
				t.Errorf("pattern %s, raw argument %q: grammar %v, want %v", pattern, s, got, wantRaw)
			}
		}
		if matched < 100 {
			t.Errorf("pattern %s: only %d of 300 values match", pattern, matched)
		}
	}
}
