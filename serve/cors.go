package serve

import (
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/beamharmony/harmony/internal/access"
)

// Cross-origin requests (CORS), for browser clients. With no allowed
// origin configured (the default) the gateway sends no CORS headers, so
// browsers keep pages of other origins from reading its replies, and a
// preflight is a 403. With allowed origins, a preflight from one of them
// is answered 204 with the methods and headers the OpenAI and Anthropic
// SDKs send, and every reply to one of them carries
// Access-Control-Allow-Origin. Replies vary by Origin.

// corsAllowedHeaders are the request headers a preflight may ask for: the
// key headers, the APIs' own headers, and what the official SDKs add.
// Headers starting with x-stainless- (the SDKs' telemetry and retry
// headers, whose set grows between releases) are allowed by prefix.
var corsAllowedHeaders = []string{
	"authorization", "content-type", "x-api-key", "x-request-id", "idempotency-key",
	"anthropic-version", "anthropic-beta", "anthropic-dangerous-direct-browser-access",
	"openai-organization", "openai-project", "openai-beta",
}

const corsHeaderPrefix = "x-stainless-"

// corsMaxAge is how long, in seconds, a browser may cache a preflight.
const corsMaxAge = "600"

// corsPolicy is the set of allowed origins.
type corsPolicy struct {
	any     bool
	origins map[string]bool
}

func newCORSPolicy(origins []string) (*corsPolicy, error) {
	if len(origins) == 0 {
		return nil, nil
	}
	p := &corsPolicy{origins: make(map[string]bool, len(origins))}
	for _, o := range origins {
		if err := access.CheckOrigin(o); err != nil {
			return nil, err
		}
		if o == "*" {
			p.any = true
		}
		p.origins[strings.ToLower(o)] = true
	}
	return p, nil
}

func (p *corsPolicy) allows(origin string) bool {
	if p == nil || origin == "" {
		return false
	}
	// "*" is any web origin, not "null": the Origin of sandboxed frames,
	// file: pages and some redirects, which anyone can make a browser send.
	return p.any && !strings.EqualFold(origin, "null") || p.origins[strings.ToLower(origin)]
}

// isPreflight reports a CORS preflight: OPTIONS with an Origin and the
// method the browser means to send.
func isPreflight(r *http.Request) bool {
	return r.Method == http.MethodOptions && r.Header.Get("Origin") != "" && r.Header.Get("Access-Control-Request-Method") != ""
}

// cors sets the CORS headers of the reply to r, and answers a preflight:
// handled is true when it has written the reply, or e is the error to
// reply with.
func (s *Server) cors(w http.ResponseWriter, r *http.Request, rt *route) (handled bool, e *apiError) {
	origin := r.Header.Get("Origin")
	h := w.Header()
	if s.corsPolicy != nil {
		h.Add("Vary", "Origin")
	}
	allowed := s.corsPolicy.allows(origin)
	if allowed {
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Expose-Headers", "X-Request-Id, "+UnenforcedHeader+", "+RestoredHeader)
	}
	if rt == nil || !isPreflight(r) {
		return false, nil
	}
	if s.corsPolicy != nil {
		h.Add("Vary", "Access-Control-Request-Method")
		h.Add("Vary", "Access-Control-Request-Headers")
	}
	if !allowed {
		return false, &apiError{status: http.StatusForbidden, kind: kindForbidden, code: "cors_origin_not_allowed",
			msg: "cross-origin request from " + quoteText(truncateString(origin, 200)) + " not allowed; start the server with --cors-origins listing it"}
	}
	method := r.Header.Get("Access-Control-Request-Method")
	if !slices.Contains(rt.methods, method) {
		h.Set("Allow", strings.Join(rt.methods, ", "))
		return false, &apiError{status: http.StatusMethodNotAllowed, kind: kindMethodNotAllowed, code: "method_not_allowed",
			msg: "OPTIONS " + r.URL.Path + ": a cross-origin " + quoteText(truncateString(method, 20)) + " is not allowed here; use " + strings.Join(rt.methods, " or ")}
	}
	headers, err := corsRequestHeaders(r.Header.Values("Access-Control-Request-Headers"))
	if err != nil {
		return false, &apiError{status: http.StatusForbidden, kind: kindForbidden, code: "cors_header_not_allowed", msg: err.Error()}
	}
	h.Set("Access-Control-Allow-Methods", strings.Join(rt.methods, ", ")+", OPTIONS")
	h.Set("Access-Control-Allow-Headers", headers)
	h.Set("Access-Control-Max-Age", corsMaxAge)
	w.WriteHeader(http.StatusNoContent)
	return true, nil
}

// corsRequestHeaders checks the headers a preflight asks for and returns
// the Access-Control-Allow-Headers value: every allowed header, and the
// x-stainless- ones asked for.
func corsRequestHeaders(values []string) (string, error) {
	allow := strings.Join(corsAllowedHeaders, ", ")
	n := 0
	for _, v := range values {
		for _, name := range strings.Split(v, ",") {
			name = strings.ToLower(strings.TrimSpace(name))
			if name == "" {
				continue
			}
			n++
			switch {
			case n > 64:
				return "", errors.New("cross-origin request asks for more than 64 headers")
			case slices.Contains(corsAllowedHeaders, name):
			case strings.HasPrefix(name, corsHeaderPrefix) && len(name) <= 64 && isToken(name):
				allow += ", " + name
			default:
				return "", errors.New("cross-origin request header " + quoteText(truncateString(name, 64)) +
					" not allowed; the gateway allows " + strings.Join(corsAllowedHeaders, ", ") + " and x-stainless-*")
			}
		}
	}
	return allow, nil
}

// isToken reports whether s is an HTTP token (a header name).
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0 || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return s != ""
}

func truncateString(s string, n int) string { return string(truncate([]byte(s), n)) }
