package pyjson

import (
	"strings"
	"testing"
)

func TestSkimMembers(t *testing.T) {
	type member struct{ key, value string }
	for _, c := range []struct {
		src  string
		want []member
		ok   bool
	}{
		{`{}`, nil, true},
		{` { } `, nil, true},
		{`{"a": 1}`, []member{{`"a"`, `1`}}, true},
		{`{"a":1,"b" : [1, {"c": "]}"}], "d": {"e": [[]]}, "f": "x\"y", "g": null, "h": NaN}`,
			[]member{{`"a"`, `1`}, {`"b"`, `[1, {"c": "]}"}]`}, {`"d"`, `{"e": [[]]}`}, {`"f"`, `"x\"y"`}, {`"g"`, `null`}, {`"h"`, `NaN`}}, true},
		{"{\"a\\u0062\": -1.5e3\n}", []member{{`"a\u0062"`, `-1.5e3`}}, true},
		// Not one object to the skim.
		{``, nil, false},
		{`[1]`, nil, false},
		{`{"a": 1} x`, []member{{`"a"`, `1`}}, false},
		{`{"a": [1, 2}`, []member{{`"a"`, `[1, 2}`}}, false}, // brackets are counted, not matched
		{`{"a": [1, 2]`, []member{{`"a"`, `[1, 2]`}}, false},
		{`{"a": "open}`, nil, false},
		{`{"a" 1}`, nil, false},
		{`{"a": }`, nil, false},
		{`{"a": 1 "b": 2}`, []member{{`"a"`, `1`}}, false},
		{`{"a": 1,}`, []member{{`"a"`, `1`}}, false},
		{`{a: 1}`, nil, false},
		{`{"a": 1`, []member{{`"a"`, `1`}}, false},
	} {
		var got []member
		ok := SkimMembers([]byte(c.src), func(k, v []byte) bool {
			got = append(got, member{string(k), string(v)})
			return true
		})
		if ok != c.ok || len(got) != len(c.want) {
			t.Errorf("SkimMembers(%q): %v %q, want %v %q", c.src, ok, got, c.ok, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("SkimMembers(%q) member %d = %q, want %q", c.src, i, got[i], c.want[i])
			}
		}
	}
}

func TestSkimMembersStops(t *testing.T) {
	n := 0
	ok := SkimMembers([]byte(`{"a": 1, "b": 2, "c": 3}`), func(k, v []byte) bool { n++; return !KeyEqual(k, "b") })
	if !ok || n != 2 {
		t.Fatalf("stopped after %d members (ok %v), want 2 (true)", n, ok)
	}
}

func TestKeyEqual(t *testing.T) {
	for _, c := range []struct {
		key, s string
		want   bool
	}{
		{`"id"`, "id", true}, {`"id"`, "ID", false}, {`"\u0069d"`, "id", true}, {`"a\"b"`, `a"b`, true}, {`""`, "", true}, {`"\u12"`, "", false}, {`"\"`, `"`, false}, {`"a\`, "a", false},
	} {
		if got := KeyEqual([]byte(c.key), c.s); got != c.want {
			t.Errorf("KeyEqual(%s, %q) = %v", c.key, c.s, got)
		}
	}
}

// FuzzSkimMembers: on every input the skim never panics, and on valid JSON
// objects it gives the members the parse gives, in order, with the same
// raw text.
func FuzzSkimMembers(f *testing.F) {
	for _, s := range []string{`{}`, `{"a": [1, {"b": "}"}], "c": "\\\""}`, `{"a":1,"a":2}`, `[1]`, `{"a": "\u00e9"}`, "{\"a\":\n NaN}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		var keys, values []string
		ok := SkimMembers(src, func(k, v []byte) bool {
			keys, values = append(keys, string(k)), append(values, string(v))
			KeyEqual(k, "id") // never panics, whatever the skim let through
			KeyString(k)
			return true
		})
		d, err := ParseBytes(src)
		if err != nil || d.Kind(0) != Object {
			return
		}
		if !ok {
			t.Fatalf("a valid object the skim refused: %q", src)
		}
		i := 0
		d.Members(0, func(k, v int) bool {
			if i >= len(keys) || keys[i] != string(d.Raw(k)) || strings.TrimSpace(values[i]) != string(d.Raw(v)) {
				t.Fatalf("member %d of %q: skim %q, parse %q: %q", i, src, keys, d.Raw(k), d.Raw(v))
			}
			if !KeyEqual([]byte(keys[i]), d.Str(k)) {
				t.Fatalf("KeyEqual(%s, %q) is false", keys[i], d.Str(k))
			}
			if got, ok := KeyString([]byte(keys[i])); !ok || got != d.Str(k) {
				t.Fatalf("KeyString(%s) = %q, %v; want %q", keys[i], got, ok, d.Str(k))
			}
			i++
			return true
		})
		if i != len(keys) {
			t.Fatalf("skim found %d members, parse %d: %q", len(keys), i, src)
		}
	})
}
