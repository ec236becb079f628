package serve

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestPublicAddr(t *testing.T) {
	for _, tt := range []struct {
		addr   string
		public bool
	}{
		{"93.184.215.14", true},
		{"2606:2800:21f:cb07:6820:80da:af6b:8b2c", true},
		{"127.0.0.1", false},
		{"127.8.9.10", false},
		{"::1", false},
		{"10.1.2.3", false},
		{"172.16.0.1", false},
		{"192.168.1.1", false},
		{"169.254.169.254", false}, // cloud metadata
		{"fe80::1", false},
		{"fc00::1", false},
		{"0.0.0.0", false},
		{"::", false},
		{"100.64.0.1", false},
		{"224.0.0.1", false},
		{"255.255.255.255", false},
		{"::ffff:127.0.0.1", false}, // IPv4-mapped loopback
		{"::ffff:10.0.0.1", false},
		{"64:ff9b::a00:1", false}, // NAT64 of 10.0.0.1
		{"198.18.0.1", false},
	} {
		if got := publicAddr(netip.MustParseAddr(tt.addr)); got != tt.public {
			t.Errorf("publicAddr(%s) = %v, want %v", tt.addr, got, tt.public)
		}
	}
}

// TestFetchCaps: a page without end is cut at the size cap as it is read,
// a page that stalls at the deadline, a redirect loop at the redirect cap;
// the guard refuses loopback unless allowed; what is not text is refused.
func TestFetchCaps(t *testing.T) {
	f := newWebFakes(t)
	open, _ := newWebClient(&WebSearch{Backend: "http://search.invalid", AllowPrivate: true})
	guarded, _ := newWebClient(&WebSearch{Backend: "http://search.invalid"})
	for _, tt := range []struct {
		name    string
		wc      *webClient
		path    string
		timeout time.Duration
		code    string // the toolError's code; "" for a page
		model   string // in the error's words for the model
		check   func(t *testing.T, p *webPage)
	}{
		{name: "endless page cut at the cap", wc: open, path: "/endless", check: func(t *testing.T, p *webPage) {
			if !p.Truncated || len(p.Text) != maxPageText {
				t.Errorf("truncated %v, %d bytes of text kept, want %d", p.Truncated, len(p.Text), maxPageText)
			}
		}},
		{name: "stalled page at the deadline", wc: open, path: "/stall", timeout: 50 * time.Millisecond, code: "unavailable", model: "did not answer in time"},
		{name: "redirect followed", wc: open, path: "/moved", check: func(t *testing.T, p *webPage) {
			if !strings.HasSuffix(p.URL, "/page") || p.Title != "Beam Harmony & friends" {
				t.Errorf("url %s, title %q", p.URL, p.Title)
			}
		}},
		{name: "redirect loop", wc: open, path: "/loop", code: "url_not_accessible", model: "could not be fetched"},
		{name: "not text", wc: open, path: "/image", code: "unsupported_content_type", model: "image/png, not text"},
		{name: "404", wc: open, path: "/nothing", code: "url_not_accessible", model: "answered HTTP 404"},
		{name: "loopback refused", wc: guarded, path: "/page", code: "url_not_allowed", model: "is a private, loopback or link-local address"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			if tt.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.timeout)
				defer cancel()
			}
			before := f.siteHits.Load()
			p, err := tt.wc.fetchPage(ctx, f.site.URL+tt.path)
			if tt.code == "" {
				if err != nil {
					t.Fatalf("error %v", err)
				}
				tt.check(t, p)
				return
			}
			if err == nil || err.code != tt.code || !strings.Contains(err.model, tt.model) {
				t.Fatalf("error %+v, want %s saying %q", err, tt.code, tt.model)
			}
			if tt.code == "url_not_allowed" && f.siteHits.Load() != before {
				t.Errorf("the refused site was asked")
			}
		})
	}
	for _, bad := range []string{"", "ftp://example.org/", "http://user:pw@example.org/", "http://" + strings.Repeat("a", maxURLBytes)} {
		if _, err := open.fetchPage(context.Background(), bad); err == nil {
			t.Errorf("%q fetched", bad)
		}
	}
}

func TestHTMLText(t *testing.T) {
	for _, tt := range []struct {
		name, html, title, text string
		limit                   int
	}{
		{"tags and entities", `<p>a &amp; b</p><p>c&lt;d</p>`, "", "a & b\n\nc<d", 100},
		{"script and style skipped", `<script>x<y</script><STYLE>p{}</STYLE>text<noscript>no</noscript>`, "", "text", 100},
		{"title apart", `<title> The  Title </title><body>body</body>`, "The Title", "body", 100},
		{"comments", `a<!-- <p>hidden</p> -->b`, "", "ab", 100},
		{"white space collapsed", "a \n\t b<br>c", "", "a b\nc", 100},
		{"bounded", `<p>` + strings.Repeat("x", 50) + `</p>`, "", strings.Repeat("x", 10), 10},
		{"unclosed script ends the text", `a<script>never closed`, "", "a", 100},
		{"unclosed tag", `a<p`, "", "a", 100},
	} {
		t.Run(tt.name, func(t *testing.T) {
			title, text := htmlText([]byte(tt.html), tt.limit)
			if title != tt.title || text != tt.text {
				t.Errorf("htmlText = %q, %q; want %q, %q", title, text, tt.title, tt.text)
			}
		})
	}
}

func TestFindInPage(t *testing.T) {
	p := &webPage{URL: "https://example.org/", Text: "alpha\nbeta\ngamma\nBeta two\ndelta"}
	head := "URL: https://example.org/\nPattern: "
	two := 2
	for _, tt := range []struct {
		name, pattern string
		o             browseOptions
		want          string
	}{
		{"lines", "eta", browseOptions{}, head + "eta\n\n2: beta\n4: Beta two"},
		{"ignore case", "^beta", browseOptions{IgnoreCase: true}, head + "^beta\n\n2: beta\n4: Beta two"},
		{"count", "a$", browseOptions{OutputMode: "count"}, head + "a$\n\n4 matching lines"},
		{"context", "gamma", browseOptions{ContextLines: 1}, head + "gamma\n\n2- beta\n3: gamma\n4- Beta two"},
		{"offset and max lines", "a", browseOptions{Offset: 1, MaxLines: &two}, head + "a\n\n2: beta\n3: gamma\n[2 more matching lines; raise offset or max_lines to see them.]"},
		{"multiline", "alpha.beta", browseOptions{Multiline: true}, head + "alpha.beta\n\n1: alpha\n2: beta"},
		{"no match", "zeta", browseOptions{}, head + "zeta\n\nNo line matches."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := findInPage(p, tt.pattern, &tt.o)
			if err != nil || got != tt.want {
				t.Errorf("findInPage = %q, %v\nwant %q", got, err, tt.want)
			}
		})
	}
	if _, err := findInPage(p, "(", &browseOptions{}); err == nil {
		t.Error("a bad pattern is accepted")
	}
}

// TestSearchBackendCaps: the search reply is read up to its cap and no
// further; results are clipped and limited.
func TestSearchBackendCaps(t *testing.T) {
	f := newWebFakes(t)
	wc, err := newWebClient(&WebSearch{Backend: f.searx.URL + "/"})
	if err != nil {
		t.Fatal(err)
	}
	var many strings.Builder
	many.WriteString(`{"results":[`)
	for i := range 30 {
		if i > 0 {
			many.WriteByte(',')
		}
		many.WriteString(`{"url":"https://example.org/` + strings.Repeat("p", i) + `","title":"` + strings.Repeat("t", 400) + `","content":"c"}`)
	}
	many.WriteString(`]}`)
	f.searxReply = many.String()
	hits, terr := wc.searchWeb(context.Background(), "q")
	if terr != nil || len(hits) != maxSearchResults || len(hits[0].Title) != 300 {
		t.Fatalf("%d hits, first title %d bytes, error %v", len(hits), len(hits[0].Title), terr)
	}
	if _, err := newWebClient(&WebSearch{Backend: "ftp://x"}); err == nil {
		t.Error("an ftp backend is accepted")
	}
}
