package pyjson

// SkimMembers calls fn with the raw text of each member of the JSON object
// src holds, in order: its key with the quotes, and its value. It builds no
// tape: values are skipped over by their strings and brackets, not checked,
// so it costs a fraction of a parse. It stops early when fn returns false,
// and reports whether src looked like one object to the skim (a key and a
// value in each member, strings closed, brackets balanced, nothing after
// it). A true result does not make src valid JSON: it is for a document
// that is parsed in full afterwards, when a few of its top-level members
// are wanted first (a dataset row's id column, its renamed columns).
func SkimMembers(src []byte, fn func(key, value []byte) bool) bool {
	pos := skipSpace(src, 0)
	if pos == len(src) || src[pos] != '{' {
		return false
	}
	if pos = skipSpace(src, pos+1); pos < len(src) && src[pos] == '}' {
		return skipSpace(src, pos+1) == len(src)
	}
	for pos < len(src) {
		if src[pos] != '"' {
			return false
		}
		keyEnd := skimString(src, pos)
		if keyEnd < 0 {
			return false
		}
		key := src[pos:keyEnd]
		if pos = skipSpace(src, keyEnd); pos == len(src) || src[pos] != ':' {
			return false
		}
		pos = skipSpace(src, pos+1)
		end := skimValue(src, pos)
		if end <= pos {
			return false
		}
		if !fn(key, src[pos:end]) {
			return true
		}
		if pos = skipSpace(src, end); pos == len(src) {
			return false
		}
		switch src[pos] {
		case ',':
			pos = skipSpace(src, pos+1)
		case '}':
			return skipSpace(src, pos+1) == len(src)
		default:
			return false
		}
	}
	return false
}

// KeyEqual reports whether key, a member's key as SkimMembers gives it
// (with its quotes, escapes as written), is s.
func KeyEqual(key []byte, s string) bool {
	if len(key) >= 2 && key[0] == '"' && key[len(key)-1] == '"' && escapeIndex(key[1:len(key)-1]) < 0 {
		return string(key[1:len(key)-1]) == s // no copy
	}
	k, ok := KeyString(key)
	return ok && k == s
}

// KeyString decodes key, a member's key as SkimMembers gives it. ok is
// false when it is not a valid JSON string: the skim does not check its
// escapes, which are then parsed (rarely).
func KeyString(key []byte) (string, bool) {
	if len(key) < 2 || key[0] != '"' || key[len(key)-1] != '"' {
		return "", false
	}
	if inner := key[1 : len(key)-1]; escapeIndex(inner) < 0 {
		return string(inner), true
	}
	d, err := ParseBytes(key)
	if err != nil || d.Kind(0) != String {
		return "", false
	}
	return d.Str(0), true
}

// skimString returns the index just past the string that starts with the
// quote at src[pos], or -1 when it is not closed.
func skimString(src []byte, pos int) int {
	for pos++; ; {
		pos = scanString(src, pos)
		switch {
		case pos >= len(src):
			return -1
		case src[pos] == '"':
			return pos + 1
		case src[pos] == '\\':
			pos += 2
		default: // a control character: the parse that follows refuses it
			pos++
		}
	}
}

// skimValue returns the index just past the value that starts at src[pos]:
// a string, an array or object (to its matching bracket, strings skipped),
// or a scalar (to the next delimiter). It returns -1 for a string or
// bracket that is not closed.
func skimValue(src []byte, pos int) int {
	if pos == len(src) {
		return -1
	}
	switch src[pos] {
	case '"':
		return skimString(src, pos)
	case '[', '{':
		depth := 0
		for pos < len(src) {
			switch src[pos] {
			case '"':
				if pos = skimString(src, pos); pos < 0 {
					return -1
				}
				continue
			case '[', '{':
				depth++
			case ']', '}':
				if depth--; depth == 0 {
					return pos + 1
				}
			}
			pos++
		}
		return -1
	}
	for pos < len(src) {
		switch src[pos] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return pos
		}
		pos++
	}
	return pos
}
