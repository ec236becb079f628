// Package jsonpath joins the parts of the JSON paths that errors name, such
// as "messages[1].content[0].type", so that the root package's RenderError
// and the gateway's errors write them the same way.
package jsonpath

import "github.com/beamharmony/harmony/internal/pyjson"

// Join joins two parts of a path: an index part follows without a dot
// ("tools" and "[2]" give "tools[2]"), another part after a dot
// ("messages[1]" and "content" give "messages[1].content"), and an empty
// part gives the other.
func Join(prefix, path string) string {
	switch {
	case path == "":
		return prefix
	case prefix == "" || path[0] == '[':
		return prefix + path
	}
	return prefix + "." + path
}

// Key is the path of the member key of the object at prefix: after a dot
// when key is made of letters, digits and underscores ("messages[1]" and
// "role" give "messages[1].role"), otherwise quoted in brackets ("" and
// "a b" give `["a b"]`), so that the path names it unambiguously.
func Key(prefix, key string) string {
	plain := key != ""
	for _, c := range key {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			plain = false
			break
		}
	}
	if plain {
		return Join(prefix, key)
	}
	return prefix + "[" + string(pyjson.AppendQuoted(nil, key)) + "]"
}
