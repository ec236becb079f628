package serve

import (
	"errors"
	"net/url"
)

// redactURL returns rawURL with its user information, if any, replaced by
// xxxxx: a backend URL such as http://user:password@host is shown and
// logged as http://xxxxx@host.
func redactURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.User == nil {
		return rawURL
	}
	u.User = url.User("xxxxx")
	return u.String()
}

// redactError returns the text of an engine transport error for the log.
// The HTTP client's errors quote the request URL, user name included; it
// is replaced by the request's method and path.
func redactError(err error) string {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return err.Error()
	}
	where := ue.URL
	if u, perr := url.Parse(ue.URL); perr == nil {
		where = u.EscapedPath()
	} else {
		where = redactURL(where)
	}
	return ue.Op + " " + where + ": " + ue.Err.Error()
}
