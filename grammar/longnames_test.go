package grammar

import (
	"errors"
	"strings"
	"testing"
)

// Long names and strings are bounded as they are read (gap decision 219):
// a required name of a million characters made, under strict, a key trie
// of as many rules (413 MB for 256,000 characters, 25 GB and three
// minutes for 15 million), and a strict not of a long const an automaton
// of as many states; without strict, a long required name was written out
// before a cap saw it. Every schema here is refused, or compiled, within
// maxCompileBytes.
func TestLongNamesAreBounded(t *testing.T) {
	for _, c := range []struct {
		name, schema string
		strict       bool
		path, msg    string // of the error, when one is expected
	}{
		{"required, strict", `{"type": "object", "required": ["NAME"]}`, true, "response_format.json_schema.schema", "make a trie of more than " + itoa(maxTrieNodes) + " characters"},
		{"declared, strict", `{"type": "object", "properties": {"NAME": {"type": "integer"}}}`, true, "", ""},
		{"required", `{"type": "object", "required": ["NAME"]}`, false, "", ""},
		{"two required", `{"type": "object", "required": ["NAME", "NAMEb"]}`, false, "", ""},
		{"not const, strict", `{"type": "string", "not": {"const": "NAME"}}`, true, "response_format.json_schema.schema.not", "past its limits"},
		{"not enum, strict", `{"type": "string", "not": {"enum": ["NAME", "NAMEc"]}}`, true, "response_format.json_schema.schema.not", "past its limits"},
	} {
		for _, n := range []int{60000, 1000000} {
			schema := strings.ReplaceAll(c.schema, "NAME", strings.Repeat("n", n))
			var err error
			if b := allocated(func() { _, err = compileFormat(schema, c.strict) }); b > maxCompileBytes {
				t.Errorf("%s, %d characters: %d bytes allocated", c.name, n, b)
			}
			var ge *Error
			if err != nil && !errors.As(err, &ge) {
				t.Errorf("%s, %d characters: %v, not *Error", c.name, n, err)
			}
			if c.msg != "" && (ge == nil || ge.Path != c.path || !strings.Contains(ge.Msg, c.msg)) {
				t.Errorf("%s, %d characters: %v", c.name, n, err)
			}
		}
	}
	// Under the cap, a long required name is a key of a strict open
	// object, kept apart from the other keys.
	name := strings.Repeat("k", 2000)
	g, err := compileFormat(`{"type": "object", "required": ["`+name+`"]}`, true)
	if err != nil {
		t.Fatal(err)
	}
	checkContents(t, "long required name", g,
		[]string{`{"` + name + `": 1}`, `{"` + name + `": 1, "x": 2}`},
		[]string{`{}`, `{"x": 2}`, `{"` + name[1:] + `": 1}`})
}
