package cli

import (
	"strings"
	"testing"
	"time"
)

func TestByteSize(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{
		{0, "0 B"}, {999, "999 B"}, {1000, "1.0 kB"}, {1500, "1.5 kB"}, {12_345, "12 kB"},
		{999_999, "1000 kB"}, {2_900_000, "2.9 MB"}, {3_400_000_000, "3.4 GB"}, {1 << 62, "4.6 EB"},
	} {
		if got := byteSize(c.n); got != c.want {
			t.Errorf("byteSize(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestProgressLine(t *testing.T) {
	for _, c := range []struct {
		done, total, rows int64
		elapsed           time.Duration
		want              string
	}{
		{0, 2000, 0, 0, "rendering   0% [>                             ] 0 B / 2.0 kB, 0 rows"},
		{1000, 2000, 300, 2 * time.Second, "rendering  50% [===============>              ] 1.0 kB / 2.0 kB, 300 rows, 150 rows/s, 2s left"},
		{2000, 2000, 600, 4 * time.Second, "rendering 100% [==============================] 2.0 kB / 2.0 kB, 600 rows, 150 rows/s"},
		// A pipe: no total, so no bar and no time left.
		{5_000_000, 0, 10, time.Second, "rendering 5.0 MB, 10 rows, 10 rows/s"},
	} {
		if got := progressLine(c.done, c.total, c.rows, c.elapsed); got != c.want {
			t.Errorf("progressLine(%d, %d, %d, %v) =\n%q, want\n%q", c.done, c.total, c.rows, c.elapsed, got, c.want)
		}
	}
}

// TestProgressRedrawsAndClears: the line is redrawn at most every
// progressInterval, a shorter line covers the longer one before it, and
// Finish blanks it.
func TestProgressRedrawsAndClears(t *testing.T) {
	var out strings.Builder
	now := time.Unix(1000, 0)
	p := &progress{w: &out, now: func() time.Time { return now }}
	p.Start(0)
	now = now.Add(time.Second)
	p.Advance(5_000_000, 123456)
	first := out.String()
	if want := "\rrendering 5.0 MB, 123456 rows, 123456 rows/s"; first != want {
		t.Fatalf("first draw %q, want %q", first, want)
	}
	now = now.Add(progressInterval / 2)
	p.Advance(6_000_000, 123457)
	if out.String() != first {
		t.Fatalf("redrawn before progressInterval: %q", out.String())
	}
	now = now.Add(progressInterval)
	p.Advance(7_000_000, 1)
	second := strings.TrimPrefix(out.String(), first)
	line := "rendering 7.0 MB, 1 rows, 1 rows/s"
	if want := "\r" + line + strings.Repeat(" ", len(first)-1-len(line)); second != want {
		t.Fatalf("second draw %q, want %q", second, want)
	}
	before := out.Len()
	p.Finish()
	if got, want := out.String()[before:], "\r"+strings.Repeat(" ", len(line))+"\r"; got != want {
		t.Fatalf("Finish wrote %q, want %q", got, want)
	}
}
