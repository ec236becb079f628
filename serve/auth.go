package serve

import (
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/beamharmony/harmony/internal/access"
)

// API keys. With keys configured, every endpoint but /health needs one:
// the OpenAI routes read it from "Authorization: Bearer KEY" (what the
// OpenAI SDKs send), the Anthropic routes from x-api-key (what the
// Anthropic SDKs send for an API key) or a bearer token (what they send
// for an auth token). /v1/models and /metrics take either. A missing or
// wrong key is a 401 in the route's own error shape, before the body is
// read.

// apiFamily is whose conventions a route follows: the header its key
// comes in, and the shape of its errors.
type apiFamily uint8

const (
	familyOpenAI    apiFamily = iota // Authorization: Bearer; OpenAI errors
	familyAnthropic                  // x-api-key or Bearer; Anthropic errors
	familyEither                     // either header; the shape the request's headers suggest
)

// maxKeyLen bounds one API key, in bytes.
const maxKeyLen = access.MaxKeyLen

// keySet is the accepted API keys, kept as SHA-256 digests: comparing
// digests of equal length in constant time tells nothing about a key's
// length or its first differing byte.
type keySet struct {
	digests [][sha256.Size]byte
}

// newKeySet checks keys and returns their set. A key must be 1 to 4096
// bytes of visible ASCII (what a header carries intact); an error names the
// key by its position, never by its text.
func newKeySet(keys []string) (*keySet, error) {
	if len(keys) == 0 {
		return nil, errors.New("api keys: none given")
	}
	ks := &keySet{digests: make([][sha256.Size]byte, 0, len(keys))}
	for i, k := range keys {
		if err := access.CheckKey(k); err != nil {
			return nil, fmt.Errorf("api key %d of %d: %w", i+1, len(keys), err)
		}
		ks.digests = append(ks.digests, sha256.Sum256([]byte(k)))
	}
	return ks, nil
}

// match reports whether key is one of the set's, comparing it with every
// key in constant time.
func (ks *keySet) match(key string) bool {
	if key == "" || len(key) > maxKeyLen {
		return false
	}
	return ks.matchDigest(sha256.Sum256([]byte(key)))
}

// matchDigest is match for a key's SHA-256 digest, d.
func (ks *keySet) matchDigest(d [32]byte) bool {
	ok := 0
	for i := range ks.digests {
		ok |= subtle.ConstantTimeCompare(d[:], ks.digests[i][:])
	}
	return ok == 1
}

// SetAPIKeys replaces the accepted API keys, for requests that start after
// it returns (a key file reloaded on SIGHUP, say). It fails, keeping the
// current keys, on an invalid key, on an empty list (which would lock every
// client out), and on a Server created without keys: authentication is on
// or off for a Server's whole life.
func (s *Server) SetAPIKeys(keys []string) error {
	if s.keys.Load() == nil {
		return errors.New("api keys: the server was started without keys; restart it with keys to turn authentication on")
	}
	ks, err := newKeySet(keys)
	if err != nil {
		return err
	}
	s.keys.Store(ks)
	return nil
}

// AuthEnabled reports whether the server requires an API key.
func (s *Server) AuthEnabled() bool { return s.keys.Load() != nil }

// bearerToken returns the token of an "Authorization: Bearer TOKEN"
// header, and whether the header was present at all.
func bearerToken(r *http.Request) (token string, present bool) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return "", false
	}
	scheme, token, _ := strings.Cut(strings.TrimSpace(h), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", true
	}
	return strings.TrimSpace(token), true
}

// authCheck is the outcome of checking a request's key.
type authCheck uint8

const (
	authOff     authCheck = iota // the server takes no keys
	authOK                       // a valid key
	authMissing                  // no key in the headers the route reads
	authInvalid                  // a key, but not a valid one
)

// checkAuth checks the key a request carries in the headers its route's
// family reads.
func (s *Server) checkAuth(r *http.Request, fam apiFamily) authCheck {
	ks := s.keys.Load()
	if ks == nil {
		return authOff
	}
	present := false
	if fam != familyOpenAI {
		if k := r.Header.Get("X-Api-Key"); k != "" {
			if ks.match(k) {
				return authOK
			}
			present = true
		}
	}
	tok, hasAuth := bearerToken(r)
	if hasAuth {
		if ks.match(tok) {
			return authOK
		}
		present = true
	}
	if present {
		return authInvalid
	}
	return authMissing
}

// authError is the 401 of a request without a valid key, worded for its
// route's family.
func authError(c authCheck, fam apiFamily) *apiError {
	e := &apiError{status: http.StatusUnauthorized, kind: kindUnauthorized, code: "invalid_api_key"}
	how := "send it as Authorization: Bearer KEY"
	if fam == familyAnthropic {
		how = "send it in the x-api-key header (or as Authorization: Bearer KEY)"
	} else if fam == familyEither {
		how = "send it as Authorization: Bearer KEY or in the x-api-key header"
	}
	if c == authMissing {
		e.code = "missing_api_key"
		e.msg = "this server requires an API key; " + how
	} else {
		e.msg = "invalid API key; " + how
	}
	return e
}

// errorWriterFor returns the error writer of a route family: Anthropic's
// shape for the Anthropic routes, and for the shared routes when the
// request looks like an Anthropic client's (x-api-key or
// anthropic-version sent).
func errorWriterFor(fam apiFamily, r *http.Request) func(http.ResponseWriter, *apiError) {
	switch fam {
	case familyAnthropic:
		return writeAnthropicError
	case familyEither:
		if r.Header.Get("X-Api-Key") != "" || r.Header.Get("Anthropic-Version") != "" {
			return writeAnthropicError
		}
	}
	return writeError
}
