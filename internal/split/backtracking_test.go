package split

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRefusesExponentialPatterns: patterns that backtrack exponentially are
// refused when compiled, with an error naming the pattern and the repeat
// (issue 17). (a+)+b|\s+|[^\sa]+ ran forever on a 33-byte text before.
func TestRefusesExponentialPatterns(t *testing.T) {
	tests := []struct {
		pattern string
		offset  int // of the repeat that can backtrack exponentially
	}{
		{`(a+)+b|\s+|[^\sa]+`, 4},
		{`(a+)+b`, 4},
		{`(?:a|aa)+b`, 8},
		{`(a|a)*$`, 5},
		{`(x(a|a))+y`, 8},
		{`(?:a*)*b`, 6},
		{`(?<n>\s+)+(?!\S)`, 9},
		{`(?:\p{L}+\s?)+\.`, 13},
		{`(?:a{1,3})+b`, 10},
		{`a{1,3}+b`, 1},        // Oniguruma reads x{n,m}+ as (?:x{n,m})+
		{`(?:a+){30,}`, 6},     // at the end, but needing 30 repetitions
		{`(?=(a+)+b)a`, 7},     // inside a look-ahead the loop still fails slowly
		{`((?:a|b)+)+c`, 10},   // the outer repeat holds a repeat
		{`(?:(?:a+){10})+`, 9}, // at the end, but its body is not
	}
	for _, tc := range tests {
		t.Run(tc.pattern, func(t *testing.T) {
			_, err := Regex(tc.pattern)
			var pe *PatternError
			if !errors.As(err, &pe) {
				t.Fatalf("Regex(%q) error = %v, want a *PatternError", tc.pattern, err)
			}
			if pe.Pattern != tc.pattern || pe.Offset != tc.offset || !strings.Contains(err.Error(), "backtrack exponentially") {
				t.Errorf("Regex(%q) error = %q (offset %d), want the pattern, offset %d and why", tc.pattern, err, pe.Offset, tc.offset)
			}
			if !strings.Contains(err.Error(), strconv.Quote(tc.pattern)) {
				t.Errorf("error %q does not name the pattern", err)
			}
		})
	}
}

// TestAcceptsRealPatterns: every published pattern known here, and nested
// repeats that cannot backtrack exponentially (possessive, atomic, or last
// in their alternative), still compile.
func TestAcceptsRealPatterns(t *testing.T) {
	patterns := []string{
		PatternGPT2, PatternCL100K, PatternQwen2, PatternO200K,
		// tiktoken's newer cl100k spelling (\p{N}{1,3}+ is a nested repeat,
		// last in its alternative).
		`'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s`,
		// DeepSeek V3.
		`\p{N}{1,3}`,
		`[一-龥\x{3040}-ゟ゠-ヿ]+`,
		"[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
		// Small fixtures of the tokenizer tests.
		`\w+`, `\s+`, `\p{P}+`, ` ?\p{L}+|\p{N}+|\s+`,
		// Not exponential.
		`(a+)+`, `(?:a+)+|b`, `(?>a+)+b`, `(?:a++)+b`, `(?:a|b)?c`, `(?i:'s|'t)?x`,
		`(?:ab)+c`, `[(+]+c`, `a{2}?b`, `\{a+\}+b`, `(?=(a+)+)a`, `(?!(?:a|b)+)x`,
		`[ab]*[ac]*[ad]*z`, // polynomial: bounded by the match time instead
	}
	for _, p := range patterns {
		if _, err := Backtrack(p); err != nil {
			t.Errorf("Backtrack(%q): %v", p, err)
		}
	}
}

// slowPattern is accepted at load (no repeat inside a repeat) but
// backtracks polynomially, to the sixth power: on about 200 a's a search
// runs for days.
const slowPattern = `[ab]*[ac]*[ad]*[ae]*[af]*[ag]*z|\s+|[^\sa]+`

func slowText() string { return "z" + strings.Repeat("a", 200) + "c" }

// findBounded runs FindContext in a goroutine and fails the test, instead
// of hanging, when it has not returned within a generous bound.
func findBounded(t *testing.T, ctx context.Context, m *BacktrackMatcher, s string, pos int) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, _, err := m.FindContext(ctx, s, pos)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(2 * time.Minute):
		t.Fatal("FindContext did not return: the search is not bounded")
		return nil
	}
}

// TestFindContextBounded: a search that would run for days ends with an
// error at the context's deadline, at its cancellation, or at MaxMatchTime
// (issue 17: a request can never pin a core past its deadline).
func TestFindContextBounded(t *testing.T) {
	m, err := Backtrack(slowPattern)
	if err != nil {
		t.Fatal(err)
	}
	s := slowText()
	if start, end, err := m.FindContext(context.Background(), s, 0); err != nil || s[start:end] != "z" {
		t.Fatalf("FindContext at 0 = %d, %d, %v; want the match z", start, end, err)
	}

	t.Run("deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		err := findBounded(t, ctx, m, s, 1)
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), strconv.Quote(slowPattern)) {
			t.Errorf("error = %v, want context.DeadlineExceeded naming the pattern", err)
		}
	})
	t.Run("canceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := findBounded(t, ctx, m, s, 1); !errors.Is(err, context.Canceled) {
			t.Errorf("error = %v, want context.Canceled", err)
		}
	})
	t.Run("match time", func(t *testing.T) {
		defer func(d time.Duration) { MaxMatchTime = d }(MaxMatchTime)
		MaxMatchTime = 50 * time.Millisecond
		err := findBounded(t, context.Background(), m, s, 1)
		if !errors.Is(err, ErrMatchTimeout) || !strings.Contains(err.Error(), strconv.Quote(slowPattern)) {
			t.Errorf("error = %v, want ErrMatchTimeout naming the pattern", err)
		}
		if strings.Contains(err.Error(), "aaaa") {
			t.Errorf("error %q quotes the text", err)
		}
	})
	t.Run("splits", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		var got []string
		done := make(chan error, 1)
		go func() {
			done <- SplitsContext(ctx, m, s, func(start, end int, _ bool) bool {
				got = append(got, s[start:end])
				return true
			})
		}()
		select {
		case err := <-done:
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("SplitsContext error = %v, want context.DeadlineExceeded", err)
			}
			if len(got) != 1 || got[0] != "z" {
				t.Errorf("pieces before the error = %q, want [z]", got)
			}
		case <-time.After(2 * time.Minute):
			t.Fatal("SplitsContext did not return")
		}
	})
}

// TestSplitsContextAgrees: with time to spare, SplitsContext gives what
// Splits gives, for the regexp2 matcher and for a scanner.
func TestSplitsContextAgrees(t *testing.T) {
	text := "Hello world's 123 test!!  \n\n x"
	for _, p := range []string{PatternO200K, ` ?\p{L}+|\p{N}+|\s+(?!\S)|\s+|[^\s\p{L}\p{N}]+`} {
		m, err := Regex(p)
		if err != nil {
			t.Fatal(err)
		}
		type piece struct {
			start, end int
			hit        bool
		}
		var want, got []piece
		Splits(m, text, func(start, end int, hit bool) bool {
			want = append(want, piece{start, end, hit})
			return true
		})
		err = SplitsContext(context.Background(), m, text, func(start, end int, hit bool) bool {
			got = append(got, piece{start, end, hit})
			return true
		})
		if err != nil || len(got) != len(want) {
			t.Fatalf("%q: SplitsContext = %v, %v; want %v", p, got, err, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%q: SplitsContext = %v, want %v", p, got, want)
			}
		}
	}
}
