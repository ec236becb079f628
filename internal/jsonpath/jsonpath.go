// Package jsonpath joins the parts of the JSON paths that errors name, such
// as "messages[1].content[0].type", so that the root package's RenderError
// and the gateway's errors write them the same way.
package jsonpath

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
