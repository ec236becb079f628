package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

func TestDomainRuleMatches(t *testing.T) {
	tests := []struct {
		rule, url string
		want      bool
	}{
		{"example.com", "https://example.com/a", true},
		{"example.com", "https://docs.example.com/a", true},
		{"example.com", "https://EXAMPLE.com./a", true},
		{"example.com", "https://notexample.com/a", false},
		{"example.com", "https://example.com.evil.org/a", false},
		{"example.com/blog", "https://example.com/blog", true},
		{"example.com/blog", "https://example.com/blog/post", true},
		{"example.com/blog", "https://example.com/blogger", false},
		{"example.com/blog/", "https://example.com/blog/x", true},
		{"https://example.com", "http://example.com/", true},
		{"*.example.com", "https://a.example.com/", true},
	}
	for _, tt := range tests {
		rules, err := parseDomainList(json.RawMessage(fmt.Sprintf("[%q]", tt.rule)), "allowed_domains")
		if err != nil {
			t.Fatalf("%s: %v", tt.rule, err)
		}
		u, _ := url.Parse(tt.url)
		if got := rules[0].matches(u); got != tt.want {
			t.Errorf("%s matches %s: %v, want %v", tt.rule, tt.url, got, tt.want)
		}
	}
	for _, bad := range []string{`"example.com"`, `[""]`, `["user@host"]`, `["a b"]`, `[1]`} {
		if _, err := parseDomainList(json.RawMessage(bad), "allowed_domains"); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// The web search tool's domain lists are applied, not reported: results
// outside allowed_domains (or inside blocked_domains, or outside
// Responses' filters.allowed_domains) are not shown to the model, browse
// refuses such a page and a redirect to one, and the two lists together
// are a 400.
func TestWebSearchDomainRules(t *testing.T) {
	f := newWebFakes(t)
	var hits []string
	// localhost and 127.0.0.1 are one server under two names: a page on
	// one redirects to the other.
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits = append(hits, r.Host+r.URL.Path)
		if r.URL.Path == "/away" {
			http.Redirect(w, r, strings.Replace("http://"+r.Host, "localhost", "127.0.0.1", 1)+"/page", http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "a page")
	}))
	defer other.Close()
	viaLocalhost := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	for _, tt := range []struct {
		name, api, tool string
		browse          string
		wantInPrompt    []string // in the last round's prompt
		wantOut         []string // not in it
	}{
		{"allowed: results and browse", "messages", `{"type":"web_search_20250305","name":"web_search","allowed_domains":["example.org"]}`, f.site.URL + "/page",
			[]string{"URL: https://example.org/other", "the request's domain rules do not allow \"127.0.0.1\""}, []string{"URL: " + f.site.URL + "/page"}},
		{"blocked: results and browse", "messages", `{"type":"web_search_20250305","name":"web_search","blocked_domains":["127.0.0.1"]}`, f.site.URL + "/page",
			[]string{"URL: https://example.org/other", "the request's domain rules do not allow \"127.0.0.1\""}, []string{"URL: " + f.site.URL + "/page"}},
		{"responses filters", "responses", `{"type":"web_search","filters":{"allowed_domains":["example.org"]}}`, f.site.URL + "/page",
			[]string{"URL: https://example.org/other", "the request's domain rules do not allow"}, []string{"URL: " + f.site.URL + "/page"}},
		{"a redirect out of the allowed domains", "messages", `{"type":"web_search_20250305","name":"web_search","allowed_domains":["localhost"]}`, viaLocalhost + "/away",
			[]string{"redirected to a page the request's domain rules do not allow"}, []string{"a page<|end|>"}},
		{"allowed by its path", "messages", `{"type":"web_search_20250305","name":"web_search","allowed_domains":["localhost/page"]}`, viaLocalhost + "/page",
			[]string{"a page<|end|>"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			script := searchScript(tt.browse)
			fe := newFakeEngine(t, script)
			gw := webGateway(t, fe, f)
			var status int
			var header string
			if tt.api == "messages" {
				resp := postMessages(t, gw, `{"max_tokens":100,"messages":[{"role":"user","content":"Hi"}],"tools":[`+tt.tool+`]}`)
				status, header = resp.StatusCode, resp.Header.Get(UnenforcedHeader)
				resp.Body.Close()
			} else {
				resp, _ := postResponses(t, gw, `{"input":"Hi","tools":[`+tt.tool+`]}`)
				status, header = resp.StatusCode, resp.Header.Get(UnenforcedHeader)
			}
			if status != 200 || strings.Contains(header, "domains") {
				t.Fatalf("status %d, %s %q", status, UnenforcedHeader, header)
			}
			prompt := fe.lastRequest(t).Prompt
			for _, want := range tt.wantInPrompt {
				if !strings.Contains(prompt, want) {
					t.Errorf("the prompt lacks %q:\n%s", want, prompt)
				}
			}
			for _, not := range tt.wantOut {
				if strings.Contains(prompt, not) {
					t.Errorf("the prompt holds %q", not)
				}
			}
		})
	}
	fe := newFakeEngine(t, searchScript(f.site.URL+"/page"))
	gw := webGateway(t, fe, f)
	resp := postMessages(t, gw, `{"max_tokens":100,"messages":[{"role":"user","content":"Hi"}],"tools":[{"type":"web_search_20250305","name":"web_search","allowed_domains":["a.org"],"blocked_domains":["b.org"]}]}`)
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("both lists: status %d, want 400", resp.StatusCode)
	}
}
