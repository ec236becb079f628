package harmony

import (
	"encoding/json"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/beamharmony/harmony/internal/corpus"
)

// TestParseMessagesMatchesParseRequest: ParseMessages decodes a list as
// ParseRequest decodes the same list under "messages": the same messages,
// or the same first error, on the format page's examples and on generated
// requests, a quarter of them with an error.
func TestParseMessagesMatchesParseRequest(t *testing.T) {
	var lists []string
	for _, c := range append(corpus.Page(), corpus.Generate(5, 800)...) {
		var r struct {
			Messages json.RawMessage `json:"messages"`
		}
		if json.Unmarshal(c.JSON, &r) == nil && len(r.Messages) > 0 && r.Messages[0] == '[' {
			lists = append(lists, string(r.Messages))
		}
	}
	lists = append(lists, `[]`, " [ ] ", `[1]`, `[null,{"role":"user"}]`, `[{"role":"user","content":"a"},"b"]`,
		`[{"role":"user","content":"\u00e9\ud83d\ude00","bogus":1}]`, `[{"role":"user","content":"x"} , {"role":"assistant","thinking":"t","content":"y"}]`)
	errs := 0
	for _, list := range lists {
		got, gotErr := ParseMessages([]byte(list))
		req, wantErr := ParseRequest([]byte(`{"messages": ` + list + `}`))
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Fatalf("%.200s: error %v, ParseRequest's %v", list, gotErr, wantErr)
		}
		if gotErr != nil {
			errs++
			var re *RenderError
			if !errors.As(gotErr, &re) {
				t.Fatalf("%.200s: %T, not a *RenderError", list, gotErr)
			}
			continue
		}
		if !reflect.DeepEqual(got, req.Messages) {
			t.Fatalf("%.200s:\n got %+v\nwant %+v", list, got, req.Messages)
		}
	}
	if errs < 50 || errs == len(lists) {
		t.Fatalf("%d of %d lists fail to decode: the corpus no longer tests both paths", errs, len(lists))
	}
}

// TestParseMessagesMalformed: a list that is not well formed is an error
// of the whole list (path "messages"), even after a message that does not
// decode: a syntax error anywhere wins, as in ParseRequest. One level of
// nesting is the list's.
func TestParseMessagesMalformed(t *testing.T) {
	for _, list := range []string{``, ` `, `{"role":"user"}`, `"x"`, `[`, `[{"role":3}`, `[{"role":3},`, `[{"role":3},]`,
		`[{"role":3} x]`, `[{"role":3}] x`, `[{"role":3},{"role":"user"}`, "[{\"role\":\"\xff\"}]", `[{"role":3},{"role":"user","content":"a` + "\x01" + `"}]`,
		`[` + strings.Repeat(`[`, 10000) + strings.Repeat(`]`, 10000) + `]`} {
		_, err := ParseMessages([]byte(list))
		var re *RenderError
		if !errors.As(err, &re) || re.Path != "messages" {
			t.Errorf("%.60q: %v, want an error of the list", list, err)
		}
	}
	deep := `[` + strings.Repeat(`[`, 9999) + strings.Repeat(`]`, 9999) + `]`
	if _, err := ParseMessages([]byte(deep)); err == nil || !strings.HasPrefix(err.Error(), "messages[0]") {
		t.Errorf("a list 10000 levels deep: %v, want messages[0]'s error", err)
	}
}

// TestParseMessagesMemory: a long list of numbers fails at its first
// element without a tape or a message for every element.
func TestParseMessagesMemory(t *testing.T) {
	list := []byte(`[` + strings.Repeat("0,", 200000) + `0]`)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ParseMessages(list)
	runtime.ReadMemStats(&after)
	if err == nil || !strings.HasPrefix(err.Error(), "messages[0]") {
		t.Errorf("got %v, want messages[0]'s error", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 2<<20 {
		t.Errorf("%d bytes allocated for a list of %d bytes", got, len(list))
	}
}

// TestLeadingObjects: the room made for the messages is the number of
// objects the list starts with, strings with brackets and escaped quotes
// inside them skipped.
func TestLeadingObjects(t *testing.T) {
	for list, want := range map[string]int{
		`[]`: 0, `[1]`: 0, `["{"]`: 0, `[[{}]]`: 0, `[{}]`: 1, ` [ {} , {"a":[{}]} ]`: 2,
		`[{"a":"}\"{"},{"b":"[\\"},{}]`: 3, `[{},1,{}]`: 1, `[{},"x"]`: 1, `[{},[]]`: 1, `[{"a":{"b":{}}},{}`: 2,
	} {
		if got := leadingObjects([]byte(list), strings.IndexByte(list, '[')+1); got != want {
			t.Errorf("%s: %d, want %d", list, got, want)
		}
	}
}
