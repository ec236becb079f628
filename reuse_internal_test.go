package harmony

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/beamharmony/harmony/internal/corpus"
)

// declareBoth declares tool with and without reusing $ref expansions.
func declareBoth(t *testing.T, tool Tool) (reused, walked string, errReused, errWalked error) {
	t.Helper()
	reused, errReused = DeclareTool(tool)
	reuseExpansions = false
	defer func() { reuseExpansions = true }()
	walked, errWalked = DeclareTool(tool)
	return
}

// randomDefs returns parameters whose properties and definitions refer to
// random definitions: shared targets, cycles, self references, refs
// through anyOf and items, at random depths, so that reuse meets every
// shape, including paths that reach the depth limit.
func randomDefs(r *rand.Rand) string {
	n := 1 + r.IntN(6)
	ref := func() string { return fmt.Sprintf(`{"$ref": "#/$defs/d%d"}`, r.IntN(n+1)) } // d(n) is missing: any
	var schema func(depth int) string
	schema = func(depth int) string {
		if depth > 3 {
			return ref()
		}
		switch r.IntN(8) {
		case 0, 1:
			return ref()
		case 2:
			return `{"anyOf": [` + schema(depth+1) + `, ` + schema(depth+1) + `, {"type": "null"}]}`
		case 3:
			return `{"type": "array", "items": ` + schema(depth+1) + `}`
		case 4:
			return `{"type": ["string", "null"]}`
		case 5:
			return `{"enum": ["a", "b"]}`
		default:
			var props []string
			for i := r.IntN(3); i >= 0; i-- {
				props = append(props, fmt.Sprintf(`"p%d": %s`, i, schema(depth+1)))
			}
			return `{"type": "object", "properties": {` + strings.Join(props, ", ") + `}, "nullable": true}`
		}
	}
	var defs []string
	for i := 0; i < n; i++ {
		defs = append(defs, fmt.Sprintf(`"d%d": %s`, i, schema(0)))
	}
	var props []string
	for i := 0; i < 1+r.IntN(3); i++ {
		props = append(props, fmt.Sprintf(`"x%d": %s`, i, schema(0)))
	}
	return `{"type": "object", "properties": {` + strings.Join(props, ", ") + `}, "$defs": {` + strings.Join(defs, ", ") + `}}`
}

// Reusing an expansion gives the same declaration, or the same error, as
// walking the target again: on random reference graphs and on the
// interop corpus.
func TestReuseMatchesWalk(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 1))
	reusedSome := 0
	for i := 0; i < 3000; i++ {
		params := randomDefs(r)
		tool := Tool{Function: Function{Name: "f", Parameters: json.RawMessage(params)}}
		got, want, gotErr, wantErr := declareBoth(t, tool)
		if got != want || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("%s:\nreused: %q %v\nwalked: %q %v", params, got, gotErr, want, wantErr)
		}
		if strings.Count(params, "$ref") > 2 && gotErr == nil {
			reusedSome++
		}
	}
	if reusedSome < 1000 {
		t.Errorf("only %d schemas with shared refs declared", reusedSome)
	}
	for _, c := range corpus.Generate(7, 1500) {
		var req struct {
			Tools []Tool `json:"tools"`
		}
		if json.Unmarshal(c.JSON, &req) != nil {
			continue
		}
		for _, tool := range req.Tools {
			got, want, gotErr, wantErr := declareBoth(t, tool)
			if got != want || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
				t.Fatalf("%s: reused %q %v, walked %q %v", c.Name, got, gotErr, want, wantErr)
			}
		}
	}
}

// A target reused deeper than where it was first expanded, at the same
// indent (variants add depth, not indent), reports the depth error at the
// same path as walking it would.
func TestReuseKeepsDepthErrors(t *testing.T) {
	deep := `{"$ref": "#/$defs/leaf"}`
	for i := 0; i < 60; i++ {
		deep = `{"anyOf": [` + deep + `]}`
	}
	params := `{"type": "object", "properties": {"shallow": {"$ref": "#/$defs/leaf"}, "deep": ` + deep + `}, ` +
		`"$defs": {"leaf": {"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "object", "properties": {"c": {"type": "string"}}}}}}}}}`
	tool := Tool{Function: Function{Name: "f", Parameters: json.RawMessage(params)}}
	got, want, gotErr, wantErr := declareBoth(t, tool)
	if gotErr == nil || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || got != want {
		t.Fatalf("reused: %v\nwalked: %v", gotErr, wantErr)
	}
	if !strings.Contains(gotErr.Error(), ".properties.deep.anyOf[0].anyOf[0]") || !strings.Contains(gotErr.Error(), "schema nested deeper than 64 levels") {
		t.Errorf("error %v", gotErr)
	}
}

// A union of n distinct members is written with O(n) comparisons, not
// n²/2: 100,000 enum members, or anyOf variants, compare each new member
// with about one earlier member.
func TestUnionDuplicatesLinear(t *testing.T) {
	for _, anyOf := range []bool{false, true} {
		const n = 100000
		var b strings.Builder
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			if anyOf {
				fmt.Fprintf(&b, `{"const": %d}`, i)
			} else {
				fmt.Fprintf(&b, "%d", i)
			}
		}
		key := "enum"
		if anyOf {
			key = "anyOf"
		}
		params := `{"type": "object", "properties": {"a": {"` + key + `": [` + b.String() + `]}}}`
		var count int
		comparisons = &count
		_, err := DeclareTool(Tool{Function: Function{Name: "f", Parameters: json.RawMessage(params)}})
		comparisons = nil
		if err != nil {
			t.Fatal(err)
		}
		if count > 2*n {
			t.Errorf("%s: %d comparisons for %d members", key, count, n)
		}
	}
}

// afterOthers reports whether a message of another role than system and
// developer comes before messages[i].
func afterOthers(messages []Message, i int) bool {
	for k := range messages[:i] {
		if !isInstruction(&messages[k]) {
			return true
		}
	}
	return false
}

// countMarkers counts the markers in s.
func countMarkers(s string) int {
	n := 0
	for i := 0; i+minMarkerLen <= len(s); i++ {
		if mk := markerAt(s[i:]); mk != "" {
			n++
			i += len(mk) - 1
		}
	}
	return n
}

// MarkerUses is exact: on the interop corpus, and on the corpus with
// <|end|> put at the start of one random string of each request, a
// request that renders has markers in its prompt beyond the renderer's own
// if and only if MarkerUses reports one (leaving aside the content of
// late system messages, which Render drops and MarkerUses reports).
func TestMarkerUsesMatchesThePrompt(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	checked, reported := 0, 0
	for _, c := range corpus.Generate(11, 1500) {
		for variant := 0; variant < 8; variant++ {
			text := string(c.JSON)
			if variant > 0 {
				var quotes []int
				for i := 0; i < len(text); i++ {
					if text[i] == '"' && (i == 0 || text[i-1] != '\\') {
						quotes = append(quotes, i)
					}
				}
				if len(quotes) == 0 {
					continue
				}
				at := quotes[r.IntN(len(quotes))] + 1
				text = text[:at] + "<|end|>" + text[at:]
			}
			req, err := ParseRequest([]byte(text))
			if err != nil {
				continue
			}
			rd := renderer{opts: &req.Options, s: getScratch(), wantMarks: true}
			err = rd.render(req.Messages)
			prompt, own := string(rd.buf), len(rd.marks)
			rd.release()
			if err != nil {
				continue
			}
			checked++
			var uses []MarkerUse
			for _, u := range req.MarkerUses() {
				var i int
				if _, err := fmt.Sscanf(u.Path, "messages[%d].content", &i); err == nil && isInstruction(&req.Messages[i]) && afterOthers(req.Messages, i) {
					continue // a late system message: dropped, yet reported
				}
				uses = append(uses, u)
			}
			extra := countMarkers(prompt) - own
			if (len(uses) > 0) != (extra > 0) {
				t.Fatalf("%s variant %d: %d markers beyond the renderer's own, MarkerUses %v:\n%s", c.Name, variant, extra, uses, text)
			}
			if len(uses) > 0 {
				reported++
			}
		}
	}
	t.Logf("%d rendered, %d with markers", checked, reported)
	if checked < 1500 || reported < 200 {
		t.Errorf("only %d requests rendered, %d with markers", checked, reported)
	}
}
