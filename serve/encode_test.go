package serve

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/beamharmony/harmony/internal/tokgen"
	"github.com/beamharmony/harmony/tokenizer"
)

// slowPattern passes the tokenizer's load-time check but backtracks
// polynomially, to the sixth power, on a run of a: slowContent takes days
// to search.
const slowPattern = `[ab]*[ac]*[ad]*[ae]*[af]*[ag]*z|\s+|[^\sa]+`

var slowContent = "z" + strings.Repeat("a", 200) + "c"

// watchedEncoder is a tokenizer that reports each bounded encoding's end.
type watchedEncoder struct {
	*tokenizer.Tokenizer
	ended chan error
}

func (w *watchedEncoder) AppendEncodeOrdinaryContext(ctx context.Context, dst []int, text string) ([]int, error) {
	ids, err := w.Tokenizer.AppendEncodeOrdinaryContext(ctx, dst, text)
	if err != nil {
		w.ended <- err
	}
	return ids, err
}

// TestTokenizeBounded: with a tokenizer whose split pattern backtracks on
// the request's text, the request ends at the server's timeout with a 400
// naming the cause, and the work stops when the client leaves: no request
// holds a core past its deadline (issue 17; before, one 41-byte message
// pinned a core for good, even after the client left).
func TestTokenizeBounded(t *testing.T) {
	tk, err := tokenizer.New(tokgen.SplitPattern(slowPattern), nil)
	if err != nil {
		t.Fatal(err)
	}
	fe := newFakeEngine(t, fixed(answer("r", "ok")))
	body := `{"model": "beam", "messages": [{"role": "user", "content": "` + slowContent + `"}]}`
	bounded := func(t *testing.T, f func()) {
		t.Helper()
		done := make(chan struct{})
		go func() { f(); close(done) }()
		select {
		case <-done:
		case <-time.After(2 * time.Minute):
			t.Fatal("the request did not end: tokenizing is not bounded")
		}
	}

	gw := newGateway(t, fe, func(c *Config) { c.Tokenizer = tk; c.Timeout = 100 * time.Millisecond })
	for _, path := range []string{"/v1/chat/completions", "/v1/messages/count_tokens"} {
		t.Run(path, func(t *testing.T) {
			bounded(t, func() {
				resp, err := http.Post(gw.URL+path, "application/json", strings.NewReader(body))
				if err != nil {
					t.Error(err)
					return
				}
				defer resp.Body.Close()
				data, _ := io.ReadAll(resp.Body)
				if resp.StatusCode != 400 || !strings.Contains(string(data), "could not encode the prompt within its time limit") {
					t.Errorf("%s: %d %s; want a 400 saying the tokenizer ran out of time", path, resp.StatusCode, data)
				}
			})
		})
	}
	if n := len(fe.requests()); n != 0 {
		t.Errorf("the engine got %d requests", n)
	}

	t.Run("client leaves", func(t *testing.T) {
		w := &watchedEncoder{Tokenizer: tk, ended: make(chan error, 8)}
		gw := newGateway(t, fe, func(c *Config) { c.Tokenizer = w; c.Timeout = time.Hour })
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "POST", gw.URL+"/v1/chat/completions", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			t.Fatalf("the request ended with %d before the client left", resp.StatusCode)
		}
		bounded(t, func() {
			if err := <-w.ended; !errors.Is(err, context.Canceled) {
				t.Errorf("the encoding ended with %v, want context.Canceled", err)
			}
		})
	})
}
