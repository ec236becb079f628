package grammar

import (
	"math"
	"strings"
	"testing"
)

// The nots of required a view takes together, and the names one not
// holds, are read in work linear in the schema (gap decision 316): four
// times the nots or names, at most about four times the allocations,
// and bytes, where a view's nots took minutes (4,000 nots of one name
// each, read again for each) and one not's allOf of 1,600 members 0.24 s
// (its set of names grown one member at a time, copied each time). Past 64 names the nots of a view are
// reported, an error under strict naming the first not left out.
func TestNotRequiredWorkIsLinear(t *testing.T) {
	object := func(n int, members string) string {
		var props []string
		for i := range n {
			props = append(props, `"p`+itoa(i)+`": {}`)
		}
		return `{"type": "object", "properties": {` + strings.Join(props, ", ") + `}, ` + members + `}`
	}
	list := func(n int, item func(i int) string) string {
		var items []string
		for i := range n {
			items = append(items, item(i))
		}
		return strings.Join(items, ", ")
	}
	shapes := []struct {
		name   string
		schema func(n int) string
	}{
		{"nots of one name each", func(n int) string {
			return object(n, `"allOf": [`+list(n, func(i int) string { return `{"not": {"required": ["q` + itoa(i) + `"]}}` })+`]`)
		}},
		{"a not of an allOf", func(n int) string {
			return object(n, `"not": {"allOf": [`+list(n, func(i int) string { return `{"required": ["r` + itoa(i) + `", "s` + itoa(i) + `"]}` })+`]}`)
		}},
	}
	for _, sh := range shapes {
		count := func(n int) (allocs float64, bytes uint64) {
			s := sh.schema(n)
			// The bytes are the process's (tests running beside this one
			// add theirs): the least of three runs.
			bytes = math.MaxUint64
			for range 3 {
				bytes = min(bytes, allocated(func() { compileFormat(s, true) }))
			}
			return testing.AllocsPerRun(2, func() { compileFormat(s, true) }), bytes
		}
		small, smallBytes := count(250)
		large, largeBytes := count(1000)
		// (Bytes only past 8 MiB, where another test's could not be
		// all of it: before, 125 MB for a 1,000-member allOf.)
		if large > 5*small || largeBytes > 5*smallBytes && largeBytes > 8<<20 {
			t.Errorf("%s: 250: %.0f allocations, %d bytes; 1,000: %.0f, %d bytes", sh.name, small, smallBytes, large, largeBytes)
		}
	}
	nots := func(n int) string {
		return object(1, `"allOf": [`+list(n, func(i int) string { return `{"not": {"required": ["q` + itoa(i) + `"]}}` })+`]`)
	}
	if _, err := compileFormat(nots(65), true); err == nil || !strings.Contains(err.Error(), "schema.allOf[64].not:") || !strings.Contains(err.Error(), "at most 64 names") {
		t.Errorf("the 65th not of one name: %v, want an error at allOf[64].not that says why", err)
	}
	if _, err := compileFormat(nots(64), true); err != nil {
		t.Errorf("64 nots of one name: %v", err)
	}
}
