package serve

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A client that goes away while the gateway fetches a page for Beam's
// browse cancels the fetch: the page's server sees its request end, and
// the engine is not asked for another round (issue 32: the fetches run
// under the request's context). The waits are bounded generously; the
// test asserts what happens, not how fast.
func TestWebSearchClientGoneCancelsFetch(t *testing.T) {
	arrived, ended := make(chan struct{}), make(chan struct{})
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-r.Context().Done() // holds the page until the gateway gives up on it
		close(ended)
	}))
	defer site.Close()
	f := newWebFakes(t)
	script := searchScript(site.URL + "/slow")
	fe := newFakeEngine(t, script)
	gw := webGateway(t, fe, f)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	body := `{"input":"What channels does Beam Harmony have?","tools":[{"type":"web_search"}]}`
	req, err := http.NewRequestWithContext(ctx, "POST", gw.URL+"/v1/responses", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	done := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	select {
	case <-arrived:
	case <-time.After(time.Minute):
		t.Fatal("the page was never fetched")
	}
	cancel() // the client goes away mid-fetch
	// A fetch that ignored the client would still end at its own cap,
	// maxToolTime: the wait stops well before that (and is generous for a
	// cancellation that takes microseconds).
	select {
	case <-ended:
	case <-time.After(maxToolTime / 2):
		t.Fatal("the fetch went on after the client left")
	}
	<-done
	// Two rounds reached the engine (the search, then the browse); the
	// third, which would read the page, never comes.
	time.Sleep(50 * time.Millisecond) // room for a wrong third round to show up
	if n := len(fe.requests()); n != 2 {
		t.Errorf("the engine got %d requests after the client left, want 2", n)
	}
}
