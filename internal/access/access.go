// Package access holds the gateway's rules for who may call it: what an
// API key and a browser origin are. Package serve enforces them on its
// Config; the command line checks the key file and the origin list it
// reads with the same rules, so that its errors name the line or the
// value before a server is made.
package access

import (
	"errors"
	"fmt"
	"net/url"
)

// MaxKeyLen bounds one API key, in bytes.
const MaxKeyLen = 4096

// CheckKey accepts an API key of 1 to MaxKeyLen bytes of visible ASCII
// (what a header carries intact). Its errors never show the key.
func CheckKey(k string) error {
	switch {
	case k == "":
		return errors.New("empty")
	case len(k) > MaxKeyLen:
		return fmt.Errorf("longer than %d bytes", MaxKeyLen)
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; c < 0x21 || c > 0x7e {
			return fmt.Errorf("byte %d is not visible ASCII (a header cannot carry it intact)", i+1)
		}
	}
	return nil
}

// CheckOrigin accepts "*" and scheme://host[:port], as a browser sends it
// in Origin.
func CheckOrigin(o string) error {
	if o == "*" {
		return nil
	}
	u, err := url.Parse(o)
	if err != nil || u.Scheme == "" || u.Host == "" || u.Opaque != "" {
		return fmt.Errorf("cors origin %q: want scheme://host[:port], such as https://app.example.com, or *", o)
	}
	if u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("cors origin %q: an origin has no path, query, fragment or user name", o)
	}
	return nil
}
