package grammar

import (
	"strconv"
	"strings"
	"testing"
)

// The distinct patterns one compile translates are capped together
// (maxPatternBytes), and a pattern repeated is translated once: 100
// distinct 3.9 KB alternations took 100 MB and 95 ms before the cap (gap
// decision 246). Past the cap a pattern is reported (not strict) or an
// error naming it (strict); the patterns within it are enforced.
func TestPatternBudget(t *testing.T) {
	alternation := func(i int) string {
		return "^(" + strings.Repeat("ab|", 1300) + "c)" + strconv.Itoa(i) + "$"
	}
	properties := func(n int, pattern func(i int) string) string {
		var members []string
		for i := range n {
			members = append(members, `"p`+strconv.Itoa(i)+`": {"type": "string", "pattern": `+strconv.Quote(pattern(i))+`}`)
		}
		return `{"type": "object", "properties": {` + strings.Join(members, ", ") + `}, "required": ["p0"]}`
	}
	// Which property first passes the cap: the patterns are read in order.
	first := 0
	for total := 0; total+len(alternation(first))+patternCharge <= maxPatternBytes; first++ {
		total += len(alternation(first)) + patternCharge
	}
	firstPath := "response_format.json_schema.schema.properties.p" + strconv.Itoa(first) + ".pattern"

	distinct := properties(100, alternation)
	for _, strict := range []bool{false, true} {
		var g *Grammar
		var err error
		n := allocated(func() { g, err = compileFormat(distinct, strict) })
		if n > maxCompileBytes {
			t.Errorf("strict %v: %d bytes allocated", strict, n)
		}
		if strict {
			if err == nil || !strings.HasPrefix(err.Error(), firstPath+": ") || !strings.Contains(err.Error(), "distinct patterns are longer than") {
				t.Errorf("strict: %v, want an error at %s", err, firstPath)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		reported := map[string]bool{}
		for _, d := range g.Dropped {
			reported[d.Path] = true
		}
		for i := range 100 {
			path := "response_format.json_schema.schema.properties.p" + strconv.Itoa(i) + ".pattern"
			if reported[path] != (i >= first) {
				t.Errorf("%s reported %v, want %v", path, reported[path], i >= first)
			}
		}
		// Within the cap the pattern is enforced.
		checkContents(t, "p0", g, []string{`{"p0": "c0"}`, `{"p0": "ab0"}`}, []string{`{"p0": "c1"}`, `{"p0": "abc0"}`})
	}

	// One pattern on 400 properties (1.6 MB) is translated once: within the cap,
	// enforced on each, nothing reported.
	same := properties(400, func(int) string { return alternation(7) })
	g, err := compileFormat(same, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Dropped) > 0 {
		t.Errorf("reported %v", g.Dropped)
	}
	checkContents(t, "same", g, []string{`{"p0": "ab7", "p399": "c7"}`}, []string{`{"p0": "ab7", "p399": "c8"}`})
}

// Each distinct pattern counts patternCharge bytes more than its length
// against maxPatternBytes (gap decision 317): thousands of patterns of a
// few bytes each cost far more than their bytes. The first pattern past
// the cap is reported, the ones before it enforced.
func TestPatternBudgetCountsEachPattern(t *testing.T) {
	pattern := func(i int) string { return "^q" + strconv.Itoa(10000+i) + "$" } // 8 bytes
	var props []string
	for i := range 900 {
		props = append(props, `"p`+strconv.Itoa(i)+`": {"type": "string", "pattern": `+strconv.Quote(pattern(i))+`}`)
	}
	schema := `{"type": "object", "properties": {` + strings.Join(props, ", ") + `}}`
	first := maxPatternBytes / (len(pattern(0)) + patternCharge)
	g, err := compileFormat(schema, false)
	if err != nil {
		t.Fatal(err)
	}
	reported := map[string]bool{}
	for _, d := range g.Dropped {
		reported[d.Path] = true
	}
	for _, i := range []int{0, first - 1, first, 899} {
		path := "response_format.json_schema.schema.properties.p" + strconv.Itoa(i) + ".pattern"
		if reported[path] != (i >= first) {
			t.Errorf("%s reported %v, want %v", path, reported[path], i >= first)
		}
	}
	last := "p" + strconv.Itoa(first-1)
	checkContents(t, last, g, []string{`{"` + last + `": "q` + strconv.Itoa(10000+first-1) + `"}`}, []string{`{"` + last + `": "q1"}`})
	_, err = compileFormat(schema, true)
	want := "response_format.json_schema.schema.properties.p" + strconv.Itoa(first) + ".pattern: "
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "distinct patterns are longer than") {
		t.Errorf("strict: %v, want an error at %s", err, want)
	}
}
