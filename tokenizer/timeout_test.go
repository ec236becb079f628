package tokenizer_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/internal/split"
	"github.com/beamharmony/harmony/internal/tokgen"
	"github.com/beamharmony/harmony/tokenizer"
)

var _ harmony.ContextTokenEncoder = (*tokenizer.Tokenizer)(nil)

// slowPattern passes the load-time check (no repeat inside a repeat) but
// backtracks polynomially, to the sixth power, on runs of a: slowText
// takes days to search.
const slowPattern = `[ab]*[ac]*[ad]*[ae]*[af]*[ag]*z|\s+|[^\sa]+`

var slowText = "z" + strings.Repeat("a", 200) + "c"

// TestLoadRefusesExponentialPattern: a Split pattern that backtracks
// exponentially is a load error naming the pattern (issue 17: (a+)+b|\s+|
// [^\sa]+ never finished on a 33-byte text).
func TestLoadRefusesExponentialPattern(t *testing.T) {
	const hostile = `(a+)+b|\s+|[^\sa]+`
	_, err := tokenizer.New(tokgen.SplitPattern(hostile), nil)
	if err == nil || !strings.Contains(err.Error(), strconv.Quote(hostile)) || !strings.Contains(err.Error(), "backtrack exponentially") {
		t.Fatalf("New with %q: error = %v, want a refusal naming the pattern", hostile, err)
	}
	if _, err := tokenizer.New(tokgen.SplitPattern(slowPattern), nil); err != nil {
		t.Fatalf("New with %q: %v", slowPattern, err)
	}
}

// encodeBounded runs f in a goroutine and fails the test, instead of
// hanging, when it does not return within a generous bound.
func encodeBounded(t *testing.T, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(2 * time.Minute):
		t.Fatal("the encoding did not return: it is not bounded")
		return nil
	}
}

// TestEncodeContextBounded: the Context encodings stop at the context's
// deadline and at split.MaxMatchTime, with an error, and encode ordinary
// text as the unbounded ones do.
func TestEncodeContextBounded(t *testing.T) {
	tk, err := tokenizer.New(tokgen.SplitPattern(slowPattern), nil)
	if err != nil {
		t.Fatal(err)
	}
	const ok = "abc def\n z"
	e, err := tk.EncodeContext(context.Background(), ok)
	if err != nil || !slices.Equal(e.IDs, tk.Encode(ok).IDs) {
		t.Fatalf("EncodeContext(%q) = %v, %v; want %v", ok, e, err, tk.Encode(ok).IDs)
	}
	ids, err := tk.AppendEncodeOrdinaryContext(context.Background(), []int{7}, ok)
	if err != nil || !slices.Equal(ids, tk.AppendEncodeOrdinary([]int{7}, ok)) {
		t.Fatalf("AppendEncodeOrdinaryContext(%q) = %v, %v", ok, ids, err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err = encodeBounded(t, func() error { _, err := tk.EncodeContext(ctx, "hi "+slowText); return err })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("EncodeContext past the deadline: error = %v, want context.DeadlineExceeded", err)
	}

	defer func(d time.Duration) { split.MaxMatchTime = d }(split.MaxMatchTime)
	split.MaxMatchTime = 50 * time.Millisecond
	var got []int
	err = encodeBounded(t, func() error {
		var err error
		got, err = tk.AppendEncodeOrdinaryContext(context.Background(), []int{7}, slowText)
		return err
	})
	if !errors.Is(err, tokenizer.ErrTimeout) || !slices.Equal(got, []int{7}) {
		t.Errorf("AppendEncodeOrdinaryContext past MaxMatchTime = %v, %v; want [7] and ErrTimeout", got, err)
	}

	// RenderTokens goes through the tokenizer's bounded encoding.
	msgs := []harmony.Message{{Role: "user", Content: slowText}}
	err = encodeBounded(t, func() error {
		_, err := harmony.RenderTokens(context.Background(), msgs, &harmony.Options{}, tk)
		return err
	})
	if !errors.Is(err, tokenizer.ErrTimeout) {
		t.Errorf("RenderTokens: error = %v, want ErrTimeout", err)
	}
	canceled, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if _, err := harmony.RenderTokens(canceled, []harmony.Message{{Role: "user", Content: "hi"}}, &harmony.Options{}, tk); !errors.Is(err, context.Canceled) {
		t.Errorf("RenderTokens with a canceled context: error = %v, want context.Canceled", err)
	}
}
