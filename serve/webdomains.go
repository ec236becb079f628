package serve

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strconv"
	"strings"
)

// domainRules are a web search tool's domain lists: Anthropic's
// allowed_domains or blocked_domains, OpenAI's filters.allowed_domains.
// A rule names a host and, optionally, a path: example.com covers
// example.com and its subdomains (docs.example.com), example.com/blog the
// paths under /blog of those hosts. The search's results are filtered by
// them, and browse does not fetch, or follow a redirect to, a page they
// exclude (gap decision 151).
type domainRules struct {
	allowed, blocked []domainRule
}

type domainRule struct{ host, path string }

// maxDomainRules bounds a list.
const maxDomainRules = 256

// parseDomainList reads a list of domains at path.
func parseDomainList(raw json.RawMessage, path string) ([]domainRule, *apiError) {
	if isNull(raw) {
		return nil, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, paramError(path, "invalid_value", "must be a list of domain names")
	}
	if len(list) > maxDomainRules {
		return nil, paramError(path, "invalid_value", "at most "+strconv.Itoa(maxDomainRules)+" domains")
	}
	rules := make([]domainRule, 0, len(list))
	for i, d := range list {
		d = strings.ToLower(strings.TrimSpace(d))
		d = strings.TrimPrefix(strings.TrimPrefix(d, "https://"), "http://")
		host, p, _ := strings.Cut(d, "/")
		host = strings.TrimPrefix(host, "*.")
		if host == "" || strings.ContainsAny(host, " :@?#") || len(d) > 512 {
			return nil, paramError(path+"["+strconv.Itoa(i)+"]", "invalid_value", "must be a domain name such as example.com, optionally with a path (example.com/blog)")
		}
		if p != "" {
			p = "/" + strings.TrimSuffix(p, "/")
		}
		rules = append(rules, domainRule{host: strings.TrimSuffix(host, "."), path: p})
	}
	return rules, nil
}

func (r domainRule) matches(u *url.URL) bool {
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host != r.host && !strings.HasSuffix(host, "."+r.host) {
		return false
	}
	if r.path == "" {
		return true
	}
	p := u.EscapedPath()
	return p == r.path || strings.HasPrefix(p, r.path+"/")
}

// allows reports whether the rules let the search show, or browse fetch,
// the page at u.
func (d *domainRules) allows(u *url.URL) bool {
	if d == nil {
		return true
	}
	for _, r := range d.blocked {
		if r.matches(u) {
			return false
		}
	}
	if len(d.allowed) == 0 {
		return true
	}
	for _, r := range d.allowed {
		if r.matches(u) {
			return true
		}
	}
	return false
}

// allowsURL is allows for a URL as text; one that does not parse is not
// allowed.
func (d *domainRules) allowsURL(raw string) bool {
	if d == nil {
		return true
	}
	u, err := url.Parse(raw)
	return err == nil && d.allows(u)
}

// filter keeps the hits the rules allow.
func (d *domainRules) filter(hits []searchHit) []searchHit {
	if d == nil {
		return hits
	}
	kept := hits[:0]
	for _, h := range hits {
		if d.allowsURL(h.URL) {
			kept = append(kept, h)
		}
	}
	return kept
}

// errDomainNotAllowed stops a fetch redirected to a page the rules
// exclude.
var errDomainNotAllowed = errors.New("a redirect to a domain the request's rules exclude")

type domainRulesKey struct{}

// withDomainRules puts the rules where the fetch client's redirect check
// finds them.
func withDomainRules(ctx context.Context, d *domainRules) context.Context {
	if d == nil {
		return ctx
	}
	return context.WithValue(ctx, domainRulesKey{}, d)
}

func domainRulesFrom(ctx context.Context) *domainRules {
	d, _ := ctx.Value(domainRulesKey{}).(*domainRules)
	return d
}

// notAllowedError is browse's result for a page the rules exclude.
func notAllowedError(raw string) *toolError {
	host := raw
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		host = u.Hostname()
	}
	return &toolError{code: "url_not_allowed", model: "the request's domain rules do not allow " + quoteText(clip(host, 200)),
		detail: "excluded by allowed_domains/blocked_domains"}
}
