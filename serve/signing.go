package serve

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// signer signs the reasoning the gateway hands out, so that it can tell,
// when a client sends it back, whether it is the text Beam wrote. A
// thinking block's signature (Messages API) is the HMAC-SHA256 of its text
// under the server's key; a reasoning item's encrypted_content (Responses
// API) carries the text itself with that signature, because some clients
// send back only encrypted_content. Neither is encrypted: the text is the
// one the reply already shows.
type signer struct {
	key []byte
}

// signingContext separates these MACs from any other use of the key.
const signingContext = "beamharmony reasoning v1\x00"

// sealPrefix starts every encrypted_content the gateway writes.
const sealPrefix = "bh1."

// newSigner returns a signer with key, or with a random key when key is
// empty (signatures then hold only within this process).
func newSigner(key string) *signer {
	if key != "" {
		return &signer{key: []byte(key)}
	}
	k := make([]byte, 32)
	_, _ = rand.Read(k) // never fails (crypto/rand documents it)
	return &signer{key: k}
}

func (s *signer) mac(text string) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(signingContext))
	m.Write([]byte(text))
	return m.Sum(nil)
}

// sign returns the signature of text: its MAC in standard base64.
func (s *signer) sign(text string) string {
	return base64.StdEncoding.EncodeToString(s.mac(text))
}

// verify reports whether sig is the signature of text.
func (s *signer) verify(text, sig string) bool {
	got, err := base64.StdEncoding.DecodeString(sig)
	return err == nil && hmac.Equal(got, s.mac(text))
}

// seal returns text and its MAC as one opaque string:
// "bh1." + base64url(text) + "." + base64url(mac).
func (s *signer) seal(text string) string {
	enc := base64.RawURLEncoding
	var b strings.Builder
	b.Grow(len(sealPrefix) + enc.EncodedLen(len(text)) + 1 + enc.EncodedLen(sha256.Size))
	b.WriteString(sealPrefix)
	b.WriteString(enc.EncodeToString([]byte(text)))
	b.WriteByte('.')
	b.WriteString(enc.EncodeToString(s.mac(text)))
	return b.String()
}

// open returns the text sealed in sealed, and false when sealed was not
// written by seal under this key or was altered.
func (s *signer) open(sealed string) (string, bool) {
	rest, ok := strings.CutPrefix(sealed, sealPrefix)
	if !ok {
		return "", false
	}
	body, sig, ok := strings.Cut(rest, ".")
	if !ok {
		return "", false
	}
	enc := base64.RawURLEncoding
	text, err1 := enc.DecodeString(body)
	mac, err2 := enc.DecodeString(sig)
	if err1 != nil || err2 != nil || !hmac.Equal(mac, s.mac(string(text))) {
		return "", false
	}
	return string(text), true
}
