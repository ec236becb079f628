package tokenizer

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/beamharmony/harmony/internal/tokgen"
)

// beamTokenizer loads Beam's generated tokenizer once for the internal
// tests.
var beamTokenizer = sync.OnceValues(func() (*Tokenizer, error) {
	dir, err := tokgen.BeamDir()
	if err != nil {
		return nil, err
	}
	return Load(dir)
})

func loadBeam(t testing.TB) *Tokenizer {
	t.Helper()
	tk, err := beamTokenizer()
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// spanTexts are texts whose spans meet in every way encodeSpan and
// joinText handle: at the cut (after a line break), a few pieces past it,
// never (a run of digits cut off the three-digit grid meets nothing until
// the run ends), across cuts inside one long piece (a word or a run of
// spaces longer than a span), and between multi-byte and invalid UTF-8
// characters.
func spanTexts() []string {
	r := rand.New(rand.NewPCG(7, 11))
	alphabet := []string{"a", "b", "Z", "é", "東", "😀", "1", "23", " ", "  ", "\n", "\r\n", "'s", "'LL", ".", ",", "\t", "\xff", "\xe2\x82", "-", "/"}
	var random []string
	for n := range 6 {
		var sb strings.Builder
		for range 200 + 300*n {
			sb.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		random = append(random, sb.String())
	}
	readme, _ := os.ReadFile(filepath.Join("..", "README.md"))
	return append(random,
		string(readme[:min(len(readme), 6000)]),
		strings.Repeat("1234567", 300),
		"x"+strings.Repeat(" ", 700)+"y"+strings.Repeat("\n", 300)+"z",
		strings.Repeat("abc", 400)+" "+strings.Repeat("DEF", 300),
		strings.Repeat("東京の天気は晴れ。😀👍🏽 Погода в Москве. ", 20),
		strings.Repeat("don't we'LL it's\n", 60),
		"", "a", "\n",
	)
}

// TestSpansJoin: cut into spans of every size, encoded one by one in any
// order and joined, each text has the ids of its encoding whole; and every
// way two spans can meet happened.
func TestSpansJoin(t *testing.T) {
	tk := loadBeam(t)
	if !tk.spannable(true) || tk.spannable(false) {
		t.Fatalf("Beam's tokenizer: spannable(ordinary) = %v, spannable(with added tokens) = %v; want true, false",
			tk.spannable(true), tk.spannable(false))
	}
	texts := spanTexts()
	want := make([][]int, len(texts))
	for i, s := range texts {
		want[i] = tk.AppendEncodeOrdinary(nil, s)
	}
	var met, later, gaveUp, chained, resumed int
	// The batch, and each text alone (factoring cuts only the last texts
	// of a batch).
	batches := [][]int{nil}
	for i := range texts {
		batches = append(batches, []int{i})
	}
	for _, batch := range batches {
		texts, want := texts, want
		if batch != nil {
			texts, want = []string{texts[batch[0]]}, [][]int{want[batch[0]]}
		}
		for _, minSpan := range []int{1, 2, 3, 5, 8, 13, 64, 1000} {
			for _, workers := range []int{2, 3, 4} {
				for _, reverse := range []bool{false, true} {
					jobs := tk.planBatch(texts, true, workers, minSpan)
					order := make([]int, len(jobs))
					for j := range order {
						order[j] = j
					}
					if reverse {
						slices.Reverse(order)
					}
					st := tk.getState()
					st.spans.reset()
					for _, j := range order {
						tk.runJob(st, texts, jobs, j, true)
					}
					for j, jb := range jobs {
						switch {
						case jb.joinTo < 0:
						case jb.joinTo != jb.next:
							gaveUp++
						case jb.joinAt == jobs[jb.next].from:
							met++
						default:
							later++
						}
						if k := jb.joinTo; k >= 0 && jobs[k].joinTo >= 0 && jobs[k].joinAt <= jb.joinAt {
							chained++
						}
						if jb.from > 0 {
							continue
						}
						got, at := tk.joinText(st, texts[jb.text], jobs, j)
						if at >= 0 {
							resumed++
						}
						if !slices.Equal(got, want[jb.text]) {
							t.Fatalf("minSpan %d, workers %d, reverse %v: text %q: %d ids, want %d; first difference at %d",
								minSpan, workers, reverse, clip(texts[jb.text]), len(got), len(want[jb.text]), firstDiff(got, want[jb.text]))
						}
					}
					tk.putState(st)
				}
			}
		}
	}
	t.Logf("spans met at the cut %d times, past it %d, gave up %d, met a span that had met the next %d; joins resumed %d",
		met, later, gaveUp, chained, resumed)
	if met == 0 || later == 0 || gaveUp == 0 || chained == 0 {
		t.Errorf("a way of meeting never happened: met %d, later %d, gave up %d, chained %d", met, later, gaveUp, chained)
	}
}

// TestJoinResumes: when the span met does not hold the start where the
// two met (joinText's fallback), the join encodes the rest of the text
// from there, and the ids are still those of the whole text.
func TestJoinResumes(t *testing.T) {
	tk := loadBeam(t)
	text := "The pieces meet here, and the rest is encoded again.\nSecond line, 12345 digits."
	at := strings.Index(text, " here") // a piece start: " here"
	st := tk.getState()
	defer tk.putState(st)
	var head sink
	for i := 0; i < at; {
		e := tk.scan(text, i)
		tk.encodePiece(st, &head, text[i:e])
		i = e
	}
	jobs := []batchJob{
		{text: 0, from: 0, next: 1, ids: head.ids, joinTo: 1, joinAt: at},
		// The span met recorded no start (as one that met a span after it
		// before at would not have): its ids must not be used.
		{text: 0, from: at - 3, next: -1, ids: []int{-1, -1}, joinTo: -1},
	}
	got, resumed := tk.joinText(st, text, jobs, 0)
	if resumed != at {
		t.Errorf("joinText resumed at %d, want %d", resumed, at)
	}
	if want := tk.AppendEncodeOrdinary(nil, text); !slices.Equal(got, want) {
		t.Errorf("joinText = %v, want %v", got, want)
	}
}

// TestEncodeBatchSpans: encodeBatchWith, spans encoded on several
// goroutines at once and joined by whichever finishes a text's last,
// gives each text's ids, for batches of one text and of many.
func TestEncodeBatchSpans(t *testing.T) {
	tk := loadBeam(t)
	texts := spanTexts()
	want := make([][]int, len(texts))
	for i, s := range texts {
		want[i] = tk.AppendEncodeOrdinary(nil, s)
	}
	rounds := 3
	if testing.Short() {
		rounds = 1
	}
	for range rounds {
		for _, minSpan := range []int{1, 7, 64, spanMin} {
			for _, workers := range []int{2, 4} {
				for i, got := range tk.encodeBatchWith(texts, true, workers, minSpan) {
					if !slices.Equal(got, want[i]) {
						t.Fatalf("minSpan %d, workers %d: text %d (%q): first difference at %d of %d ids",
							minSpan, workers, i, clip(texts[i]), firstDiff(got, want[i]), len(want[i]))
					}
				}
				for i, s := range texts {
					got := tk.encodeBatchWith([]string{s}, true, workers, minSpan)[0]
					if !slices.Equal(got, want[i]) {
						t.Fatalf("minSpan %d, workers %d: text %d alone: first difference at %d of %d ids",
							minSpan, workers, i, firstDiff(got, want[i]), len(want[i]))
					}
				}
			}
		}
	}
}

// TestPlanBatch: a tokenizer whose texts cannot be cut (added tokens to
// match) gets one job per text; one that can gets jobs that cover each
// text in order, from its start, each (but a text's last) at least
// minSpan bytes long and starting at a character.
func TestPlanBatch(t *testing.T) {
	tk := loadBeam(t)
	texts := spanTexts()
	if jobs := tk.planBatch(texts, false, 4, 1); len(jobs) != len(texts) {
		t.Errorf("with added tokens to match: %d jobs for %d texts, want one each", len(jobs), len(texts))
	}
	if jobs := tk.planBatch(texts, true, 1, 1); len(jobs) != len(texts) {
		t.Errorf("one worker: %d jobs for %d texts, want one each", len(jobs), len(texts))
	}
	for _, minSpan := range []int{1, 5, 100} {
		jobs := tk.planBatch(texts, true, 2, minSpan)
		if len(jobs) <= len(texts) {
			t.Errorf("minSpan %d: %d jobs for %d texts, want texts cut", minSpan, len(jobs), len(texts))
		}
		for j, jb := range jobs {
			s := texts[jb.text]
			if j == 0 || jobs[j-1].text != jb.text {
				if jb.from != 0 {
					t.Fatalf("minSpan %d: text %d's first job starts at %d", minSpan, jb.text, jb.from)
				}
			} else if jobs[j-1].next != j {
				t.Fatalf("minSpan %d: job %d does not lead to job %d", minSpan, j-1, j)
			}
			if jb.next >= 0 {
				if n := jobs[jb.next].from - jb.from; n < minSpan {
					t.Errorf("minSpan %d: job %d is %d bytes", minSpan, j, n)
				}
			}
			if jb.from > 0 && (jb.from >= len(s) || !isCharStart(s, jb.from)) {
				t.Errorf("minSpan %d: job %d starts at %d, not at a character of a %d-byte text", minSpan, j, jb.from, len(s))
			}
		}
	}
}

// isCharStart reports whether a character starts at s[i] as a decoder of
// s from its start finds them (an invalid byte is a character).
func isCharStart(s string, i int) bool {
	for k := 0; k < len(s); {
		if k == i {
			return true
		}
		if k > i {
			return false
		}
		_, n := utf8.DecodeRuneInString(s[k:])
		k += n
	}
	return false
}

// FuzzSpansJoin: any text, cut into spans of any size, is joined into the
// ids of the whole text.
func FuzzSpansJoin(f *testing.F) {
	for _, s := range spanTexts()[6:] {
		f.Add(s[:min(len(s), 500)], uint8(3))
	}
	tk := loadBeam(f)
	f.Fuzz(func(t *testing.T, s string, size uint8) {
		minSpan := 1 + int(size)%64
		texts := []string{s, s + s}
		jobs := tk.planBatch(texts, true, 3, minSpan)
		st := tk.getState()
		defer tk.putState(st)
		st.spans.reset()
		for j := len(jobs) - 1; j >= 0; j-- {
			tk.runJob(st, texts, jobs, j, true)
		}
		for j, jb := range jobs {
			if jb.from > 0 {
				continue
			}
			got, _ := tk.joinText(st, texts[jb.text], jobs, j)
			if want := tk.AppendEncodeOrdinary(nil, texts[jb.text]); !slices.Equal(got, want) {
				t.Fatalf("minSpan %d: text %d (%q): first difference at %d of %d ids", minSpan, jb.text, texts[jb.text], firstDiff(got, want), len(want))
			}
		}
	})
}

func firstDiff(a, b []int) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
