package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

// The network side of the hosted web search (WebSearch, websearch.go): a
// SearXNG-compatible search API, and a bounded fetch of web pages that
// refuses private addresses at dial time. Every read is capped while it
// reads, every call has a deadline, and nothing here reaches the client:
// failures become a toolError, whose words for the model never name the
// search backend.

// Caps of one search or fetch (docs/gap-decisions.md 138).
const (
	// maxToolTime bounds one search or page fetch, within the request's
	// WebSearch.Timeout.
	maxToolTime = 20 * time.Second
	// maxSearchReplyBytes caps the search backend's reply.
	maxSearchReplyBytes = 1 << 20
	// maxSearchResults is how many results of a search reach the model.
	maxSearchResults = 10
	// maxPageBytes caps the bytes of a page read; the rest is not read.
	maxPageBytes = 2 << 20
	// maxPageText caps the text kept of a page, which browse's pattern
	// searches.
	maxPageText = 512 << 10
	// maxToolText caps a tool result's text: browse's preview and its
	// pattern output, about 8000 tokens as the browse definition says.
	maxToolText = 32000
	// maxRedirects caps the redirects a page fetch follows.
	maxRedirects = 5
	// maxURLBytes caps a URL to browse; maxQueryBytes a search query;
	// maxPatternBytes browse's pattern.
	maxURLBytes     = 2048
	maxQueryBytes   = 1000
	maxPatternBytes = 1000
	// maxPagesCached bounds the pages one request keeps for browse's
	// pattern searches.
	maxPagesCached = 8
)

// toolError is a search or fetch that failed: code is the Messages API's
// error code for it (unavailable, too_many_requests, url_not_accessible,
// ...), model what the model reads in the tool result, and detail what
// only the log gets (it may name the search backend).
type toolError struct {
	code, model, detail string
}

func (e *toolError) Error() string { return e.code + ": " + e.detail }

// blockedAddrError is a dial refused because the address is not public.
type blockedAddrError struct{ addr netip.Addr }

func (e *blockedAddrError) Error() string {
	return "refused to connect to " + e.addr.String() + ": not a public address (--search-allow-private allows it)"
}

// publicAddr reports whether a is an address on the public internet: not
// loopback, private, link-local, unspecified, multicast, nor one of the
// ranges reserved for carrier NAT, documentation, benchmarks, NAT64 or
// future use.
func publicAddr(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return false
	}
	for _, p := range reservedPrefixes {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

var reservedPrefixes = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{"0.0.0.0/8", "100.64.0.0/10", "192.0.0.0/24", "192.0.2.0/24", "198.18.0.0/15",
		"198.51.100.0/24", "203.0.113.0/24", "240.0.0.0/4", "64:ff9b::/96", "64:ff9b:1::/48", "2001:db8::/32", "100::/64"} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// dialGuard is a net.Dialer Control func that refuses every address that
// is not public, unless allowPrivate. It runs on the address being dialled,
// after name resolution, so a name that resolves (or is rebound) to a
// private address is refused too.
func dialGuard(allowPrivate bool) func(network, address string, _ syscall.RawConn) error {
	return func(_, address string, _ syscall.RawConn) error {
		if allowPrivate {
			return nil
		}
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return err
		}
		a, err := netip.ParseAddr(host)
		if err != nil {
			return err
		}
		if !publicAddr(a) {
			return &blockedAddrError{addr: a}
		}
		return nil
	}
}

// webClient runs the hosted search's network calls.
type webClient struct {
	// base is the search backend's URL without a trailing slash.
	base string
	// search calls the backend, which the operator chose: no redirect is
	// followed, and its address may be private.
	search *http.Client
	// fetch fetches pages: public addresses only (unless allowed),
	// bounded redirects, no proxy (the guard must see the page's own
	// address).
	fetch *http.Client
}

// newWebClient returns the client for cfg, or nil when the hosted search
// is off.
func newWebClient(cfg *WebSearch) (*webClient, error) {
	if cfg.Backend == "" {
		return nil, nil
	}
	u, err := url.Parse(cfg.Backend)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("search backend: want an http or https URL without a query, such as http://127.0.0.1:8888")
	}
	if cfg.MaxRounds < 0 || cfg.Timeout < 0 {
		return nil, errors.New("search backend: the rounds and the timeout must not be negative")
	}
	st := http.DefaultTransport.(*http.Transport).Clone()
	st.MaxIdleConnsPerHost = 16
	st.ResponseHeaderTimeout = maxToolTime
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: dialGuard(cfg.AllowPrivate)}
	ft := &http.Transport{
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           64,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        30 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		ResponseHeaderTimeout:  maxToolTime,
		MaxResponseHeaderBytes: 64 << 10,
	}
	return &webClient{
		base: strings.TrimRight(u.String(), "/"),
		search: &http.Client{Transport: st, CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		}},
		fetch: &http.Client{Transport: ft, CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > maxRedirects {
				return fmt.Errorf("more than %d redirects", maxRedirects)
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return fmt.Errorf("a redirect to a %s URL", req.URL.Scheme)
			}
			if !domainRulesFrom(req.Context()).allows(req.URL) {
				return errDomainNotAllowed
			}
			return nil
		}},
	}, nil
}

// searchHit is one search result.
type searchHit struct {
	URL, Title, Content string
	// Age is when the page was published, as the backend says
	// (publishedDate), or "".
	Age string
}

// searxReply is the part of a SearXNG JSON reply the search reads.
type searxReply struct {
	Results *[]struct {
		URL           string  `json:"url"`
		Title         string  `json:"title"`
		Content       string  `json:"content"`
		PublishedDate *string `json:"publishedDate"`
	} `json:"results"`
}

// errBackend is what the model reads when the search backend failed: it
// says nothing of the backend's address or its words.
const errBackendText = "the search service is unavailable; try again later, or answer without searching"

// searchWeb asks the backend for query: GET {base}/search?q=...&format=json.
func (wc *webClient) searchWeb(ctx context.Context, query string) ([]searchHit, *toolError) {
	u := wc.base + "/search?" + url.Values{"q": {query}, "format": {"json"}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, &toolError{code: "unavailable", model: errBackendText, detail: "search request: " + redactError(err)}
	}
	req.Header.Set("Accept", "application/json")
	resp, err := wc.search.Do(req)
	if err != nil {
		return nil, &toolError{code: "unavailable", model: errBackendText, detail: "search backend: " + redactError(err)}
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		return nil, &toolError{code: "too_many_requests", model: "the search service is busy; try again later, or answer without searching",
			detail: "search backend answered HTTP 429"}
	case resp.StatusCode != http.StatusOK:
		return nil, &toolError{code: "unavailable", model: errBackendText, detail: fmt.Sprintf("search backend answered HTTP %d", resp.StatusCode)}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxSearchReplyBytes+1))
	if err != nil {
		return nil, &toolError{code: "unavailable", model: errBackendText, detail: "reading the search backend's reply: " + redactError(err)}
	}
	if len(data) > maxSearchReplyBytes {
		return nil, &toolError{code: "unavailable", model: errBackendText, detail: "the search backend's reply is larger than 1 MiB"}
	}
	var r searxReply
	if err := json.Unmarshal(data, &r); err != nil || r.Results == nil {
		why := "no results list"
		if err != nil {
			why = err.Error()
		}
		return nil, &toolError{code: "unavailable", model: errBackendText,
			detail: "the search backend's reply is not SearXNG JSON (" + why + "): " + string(truncate(data, 120))}
	}
	var hits []searchHit
	for _, x := range *r.Results {
		u, err := url.Parse(x.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || len(x.URL) > maxURLBytes {
			continue
		}
		h := searchHit{URL: x.URL, Title: clip(oneLine(x.Title), 300), Content: clip(oneLine(x.Content), 1500)}
		if x.PublishedDate != nil {
			h.Age = clip(oneLine(*x.PublishedDate), 40)
		}
		hits = append(hits, h)
		if len(hits) == maxSearchResults {
			break
		}
	}
	return hits, nil
}

// webPage is a fetched page: its final URL, its title and its text.
type webPage struct {
	URL, Title, Text string
	// Truncated is set when the page was longer than what was read or
	// kept.
	Truncated bool
	// Fetched is when it was fetched.
	Fetched time.Time
}

// checkPageURL refuses what browse does not fetch: other schemes,
// credentials, an overlong URL.
func checkPageURL(raw string) (*url.URL, *toolError) {
	if raw == "" {
		return nil, &toolError{code: "invalid_tool_input", model: "browse needs a url", detail: "browse without a url"}
	}
	if len(raw) > maxURLBytes {
		return nil, &toolError{code: "url_too_long", model: fmt.Sprintf("the URL is longer than %d bytes", maxURLBytes), detail: "url too long"}
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &toolError{code: "invalid_tool_input", model: "not an http or https URL: " + quoteText(clip(raw, 200)), detail: "bad url"}
	}
	if u.User != nil {
		return nil, &toolError{code: "url_not_allowed", model: "URLs with credentials are not fetched", detail: "url with userinfo"}
	}
	return u, nil
}

// fetchPage fetches a page: at most maxPageBytes are read, at most
// maxRedirects followed, within ctx's deadline. HTML is reduced to its
// text (htmlText); other text types are kept as they are; anything else
// is refused.
func (wc *webClient) fetchPage(ctx context.Context, raw string) (*webPage, *toolError) {
	u, terr := checkPageURL(raw)
	if terr != nil {
		return nil, terr
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, &toolError{code: "invalid_tool_input", model: "not a URL that can be fetched", detail: err.Error()}
	}
	req.Header.Set("User-Agent", "beamharmony-browse/1")
	req.Header.Set("Accept", "text/html,text/plain;q=0.9,*/*;q=0.1")
	resp, err := wc.fetch.Do(req)
	if err != nil {
		return nil, fetchError(u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return nil, &toolError{code: "url_not_accessible", model: fmt.Sprintf("%s answered HTTP %d", u.Host, resp.StatusCode),
			detail: fmt.Sprintf("HTTP %d", resp.StatusCode)}
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	isHTML := ct == "text/html" || ct == "application/xhtml+xml"
	if !isHTML && !strings.HasPrefix(ct, "text/") && ct != "application/json" && ct != "application/xml" && ct != "" {
		return nil, &toolError{code: "unsupported_content_type", model: "the page is " + ct + ", not text", detail: "content type " + ct}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxPageBytes+1))
	if err != nil {
		return nil, fetchError(u, err)
	}
	p := &webPage{URL: resp.Request.URL.String(), Fetched: time.Now().UTC()}
	if len(data) > maxPageBytes {
		data, p.Truncated = data[:maxPageBytes], true
	}
	if isHTML || (ct == "" && looksLikeHTML(data)) {
		p.Title, p.Text = htmlText(data, maxPageText)
	} else {
		p.Text = string(data)
	}
	p.Text = strings.ToValidUTF8(p.Text, "\uFFFD")
	if len(p.Text) > maxPageText {
		p.Text, p.Truncated = clip(p.Text, maxPageText), true
	}
	return p, nil
}

// fetchError words a failed fetch for the model and the log.
func fetchError(u *url.URL, err error) *toolError {
	var blocked *blockedAddrError
	switch {
	case errors.Is(err, errDomainNotAllowed):
		return &toolError{code: "url_not_allowed", model: u.Host + " redirected to a page the request's domain rules do not allow",
			detail: "redirect excluded by allowed_domains/blocked_domains"}
	case errors.As(err, &blocked):
		return &toolError{code: "url_not_allowed", model: u.Hostname() + " is a private, loopback or link-local address, which this gateway does not fetch",
			detail: blocked.Error()}
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded):
		return &toolError{code: "unavailable", model: u.Host + " did not answer in time", detail: "timeout: " + redactError(err)}
	case errors.Is(err, context.Canceled):
		return &toolError{code: "unavailable", model: "the fetch was cancelled", detail: "cancelled"}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &toolError{code: "unavailable", model: u.Host + " did not answer in time", detail: "timeout: " + redactError(err)}
	}
	return &toolError{code: "url_not_accessible", model: u.Host + " could not be fetched", detail: redactError(err)}
}

// looksLikeHTML reports whether an untyped body starts like HTML.
func looksLikeHTML(b []byte) bool {
	b = bytes.TrimSpace(b[:min(len(b), 512)])
	return len(b) > 0 && b[0] == '<'
}

// oneLine collapses the white space of s to single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// clip cuts s to at most n bytes, at a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Tags whose content is not text, skipped whole, and tags that break a
// line.
var (
	skippedTags = map[string]bool{"script": true, "style": true, "noscript": true, "template": true, "svg": true, "iframe": true, "object": true}
	blockTags   = map[string]bool{"p": true, "div": true, "br": true, "li": true, "tr": true, "h1": true, "h2": true, "h3": true, "h4": true,
		"h5": true, "h6": true, "section": true, "article": true, "header": true, "footer": true, "pre": true, "table": true, "ul": true,
		"ol": true, "blockquote": true, "hr": true, "dd": true, "dt": true, "main": true, "nav": true, "aside": true, "form": true, "td": true, "th": true}
)

// htmlText returns an HTML page's title and text, at most limit bytes of
// it: tags are dropped (script, style and the like with their content),
// block tags break lines, entities are decoded, and runs of white space
// are collapsed. It is a simple scanner, not a parser: one pass, never
// backwards, over at most maxPageBytes.
func htmlText(src []byte, limit int) (title, text string) {
	lower := asciiLower(src)
	var b strings.Builder
	var tb strings.Builder
	inTitle := false
	space, lines := false, 2 // pending white space; newlines just written
	emit := func(s string) {
		for _, r := range s {
			if b.Len() >= limit {
				return
			}
			switch r {
			case ' ', '\t', '\r', '\n', '\f', '\u00a0':
				space = true
				continue
			}
			if space && lines == 0 {
				b.WriteByte(' ')
			}
			space, lines = false, 0
			b.WriteRune(r)
		}
	}
	newline := func() {
		if lines < 2 && b.Len() < limit {
			b.WriteByte('\n')
			lines++
		}
		space = false
	}
	i := 0
	for i < len(src) && b.Len() < limit {
		lt := bytes.IndexByte(src[i:], '<')
		if lt < 0 {
			lt = len(src) - i
		}
		if lt > 0 {
			chunk := html.UnescapeString(string(src[i : i+lt]))
			if inTitle {
				tb.WriteString(chunk)
			} else {
				emit(chunk)
			}
			i += lt
			continue
		}
		// At '<'.
		if bytes.HasPrefix(src[i:], []byte("<!--")) {
			end := bytes.Index(src[i+4:], []byte("-->"))
			if end < 0 {
				break
			}
			i += 4 + end + 3
			continue
		}
		gt := bytes.IndexByte(src[i:], '>')
		if gt < 0 {
			break
		}
		tag := src[i+1 : i+gt]
		closing := len(tag) > 0 && tag[0] == '/'
		if closing {
			tag = tag[1:]
		}
		n := 0
		for n < len(tag) && (isASCIILetter(tag[n]) || (n > 0 && tag[n] >= '0' && tag[n] <= '9')) {
			n++
		}
		name := string(lower[i+1+btoi(closing) : i+1+btoi(closing)+n])
		i += gt + 1
		switch {
		case name == "title" && !closing:
			inTitle = true
		case name == "title":
			inTitle = false
		case skippedTags[name] && !closing && !bytes.HasSuffix(tag, []byte("/")):
			end := bytes.Index(lower[i:], []byte("</"+name))
			if end < 0 {
				i = len(src)
				break
			}
			i += end
		case blockTags[name]:
			newline()
		}
	}
	return clip(oneLine(tb.String()), 300), strings.TrimSpace(b.String())
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func isASCIILetter(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }

// asciiLower is src with A-Z lowered, byte for byte (so indices agree).
func asciiLower(src []byte) []byte {
	out := make([]byte, len(src))
	for i, c := range src {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}
