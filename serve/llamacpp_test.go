package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/beamharmony/harmony/tokenizer"
)

// Constrained generation against a real llama-server, which
// templates/llamacpp/constrained.sh starts with a tiny random-weight GGUF
// whose vocabulary holds Beam's markers. Skipped without -llama.url; not
// part of CI.
var (
	llamaURL    = flag.String("llama.url", "", "base URL of a llama-server running templates/llamacpp/make_beam_gguf.py's model (templates/llamacpp/constrained.sh); the llama.cpp test is skipped without it")
	llamaTrials = flag.Int("llama.n", 5, "requests per API, constraint and streaming mode in the llama.cpp test")
	llamaTokDir = flag.String("llama.tokenizer", "", "the llama.cpp test's gateway sends token ids, encoded with the tokenizer.json in this `DIR` (the one the -llama.url model's vocabulary was written from: constrained.sh with TOKENIZER_DIR)")
)

// The schemas of the llama.cpp test. A random model ends a raw string
// argument (which needs "\n</rfl:parameter>" to close) or a JSON string
// only by chance, so values are enums, numbers, booleans and arrays.
const (
	llamaWeather = `{"type":"object","properties":{"city":{"enum":["Paris","London","Tokyo"]},"days":{"type":"integer","minimum":1,"maximum":7},` +
		`"unit":{"enum":["c","f"]},"detailed":{"type":"boolean"}},"required":["city","days"],"additionalProperties":false}`
	llamaSearch = `{"type":"object","properties":{"topic":{"enum":["news","sport","weather"]},"limit":{"type":"integer","minimum":1,"maximum":10},` +
		`"after":{"type":["number","null"],"exclusiveMinimum":0}},"required":["topic"],"additionalProperties":false}`
	llamaAnswer = `{"type":"object","properties":{"answer":{"enum":["sunny","rainy","cloudy"]},"confidence":{"type":"number","minimum":0,"maximum":1},` +
		`"tags":{"type":"array","items":{"enum":["warm","cold"]},"maxItems":3},"days":{"type":"integer","minimum":1,"maximum":7}},` +
		`"required":["answer","confidence"],"additionalProperties":false}`
)

// llamaBody is a request of the API with the two tools (strict or not)
// and the constraint members in extra (ending with a comma).
func llamaBody(api string, strict bool, extra string) string {
	st := ""
	if strict {
		st = `"strict":true,`
	}
	switch api {
	case "chat":
		return `{"model":"beam","max_tokens":4000,"tools":[` +
			`{"type":"function","function":{"name":"get_weather",` + st + `"parameters":` + llamaWeather + `}},` +
			`{"type":"function","function":{"name":"search",` + st + `"parameters":` + llamaSearch + `}}],` +
			extra + `"messages":[{"role":"user","content":"What is the weather in Paris?"}]}`
	case "messages":
		return `{"model":"beam","max_tokens":4000,"tools":[` +
			`{"name":"get_weather",` + st + `"input_schema":` + llamaWeather + `},{"name":"search",` + st + `"input_schema":` + llamaSearch + `}],` +
			extra + `"messages":[{"role":"user","content":"What is the weather in Paris?"}]}`
	}
	return `{"model":"beam","max_output_tokens":4000,"tools":[` +
		`{"type":"function","name":"get_weather",` + st + `"parameters":` + llamaWeather + `},` +
		`{"type":"function","name":"search",` + st + `"parameters":` + llamaSearch + `}],` +
		extra + `"input":"What is the weather in Paris?"}`
}

// llamaRow is one constraint of the llama.cpp test, as each API words it.
type llamaRow struct {
	name   string
	strict bool
	extra  map[string]string
	// want is what a reply must be: "call" (one call), "named" (one call
	// to search), "json" (the answer schema), "call or answer".
	want string
}

var llamaRows = []llamaRow{
	{"required, one call", true, map[string]string{
		"chat":      `"tool_choice":"required","parallel_tool_calls":false,`,
		"messages":  `"tool_choice":{"type":"any","disable_parallel_tool_use":true},`,
		"responses": `"tool_choice":"required","parallel_tool_calls":false,`,
	}, "call"},
	{"named, one call", true, map[string]string{
		"chat":      `"tool_choice":{"type":"function","function":{"name":"search"}},"parallel_tool_calls":false,`,
		"messages":  `"tool_choice":{"type":"tool","name":"search","disable_parallel_tool_use":true},`,
		"responses": `"tool_choice":{"type":"function","name":"search"},"parallel_tool_calls":false,`,
	}, "named"},
	{"json_schema", true, map[string]string{
		"chat":      `"tool_choice":"none","response_format":{"type":"json_schema","json_schema":{"name":"answer","strict":true,"schema":` + llamaAnswer + `}},`,
		"messages":  `"tool_choice":{"type":"none"},"output_config":{"format":{"type":"json_schema","schema":` + llamaAnswer + `}},`,
		"responses": `"tool_choice":"none","text":{"format":{"type":"json_schema","name":"answer","strict":true,"schema":` + llamaAnswer + `}},`,
	}, "json"},
	{"auto, strict tools, one call", true, map[string]string{
		"chat":      `"parallel_tool_calls":false,`,
		"messages":  `"tool_choice":{"type":"auto","disable_parallel_tool_use":true},`,
		"responses": `"parallel_tool_calls":false,`,
	}, "call or answer"},
}

// llamaBaseline are the unconstrained requests: the same tools without
// strict and tool_choice auto (a call is wanted), and no response format
// (the answer JSON is wanted).
var llamaBaseline = []llamaRow{
	{"unconstrained, a call wanted", false, map[string]string{"chat": ``, "messages": ``, "responses": ``}, "call"},
	{"unconstrained, JSON wanted", false, map[string]string{"chat": ``, "messages": ``, "responses": ``}, "json"},
}

// testSchema is a JSON Schema of the keywords the llama.cpp test's
// schemas use, checked here apart from the grammar compiler (whose output
// the engine enforced): a keyword outside them fails the test instead of
// being skipped.
type testSchema map[string]any

func compileSchema(t *testing.T, raw string) testSchema {
	t.Helper()
	var s testSchema
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		t.Fatal(err)
	}
	if err := s.check(nil, true); err != nil {
		t.Fatal(err)
	}
	return s
}

// check validates v against s; with only set, it checks that s uses no
// keyword it does not know.
func (s testSchema) check(v any, only bool) error {
	for k := range s {
		switch k {
		case "type", "properties", "required", "additionalProperties", "enum", "minimum", "maximum", "exclusiveMinimum", "items", "maxItems":
		default:
			return fmt.Errorf("the test's validator does not know %q", k)
		}
	}
	sub := func(x any) testSchema { m, _ := x.(map[string]any); return m }
	if only {
		for _, p := range sub(s["properties"]) {
			if err := sub(p).check(nil, true); err != nil {
				return err
			}
		}
		if it, ok := s["items"]; ok {
			return sub(it).check(nil, true)
		}
		return nil
	}
	if types, ok := s["type"]; ok {
		list, isList := types.([]any)
		if !isList {
			list = []any{types}
		}
		if !slices.ContainsFunc(list, func(t any) bool { return jsonType(v, t.(string)) }) {
			return fmt.Errorf("%v is not of type %v", v, types)
		}
	}
	if enum, ok := s["enum"].([]any); ok && !slices.Contains(enum, v) {
		return fmt.Errorf("%v is not one of %v", v, enum)
	}
	if n, ok := v.(float64); ok {
		if m, ok := s["minimum"].(float64); ok && n < m {
			return fmt.Errorf("%v < minimum %v", n, m)
		}
		if m, ok := s["maximum"].(float64); ok && n > m {
			return fmt.Errorf("%v > maximum %v", n, m)
		}
		if m, ok := s["exclusiveMinimum"].(float64); ok && n <= m {
			return fmt.Errorf("%v <= exclusiveMinimum %v", n, m)
		}
	}
	if obj, ok := v.(map[string]any); ok {
		props := sub(s["properties"])
		for _, r := range s["required"].([]any) {
			if _, ok := obj[r.(string)]; !ok {
				return fmt.Errorf("%q is required", r)
			}
		}
		for k, x := range obj {
			p, ok := props[k]
			if !ok {
				if s["additionalProperties"] == false {
					return fmt.Errorf("%q is not allowed", k)
				}
				continue
			}
			if err := sub(p).check(x, false); err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
		}
	}
	if arr, ok := v.([]any); ok {
		if m, ok := s["maxItems"].(float64); ok && float64(len(arr)) > m {
			return fmt.Errorf("%d items > maxItems %v", len(arr), m)
		}
		for i, x := range arr {
			if err := sub(s["items"]).check(x, false); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
	}
	return nil
}

// jsonType reports whether v, decoded by encoding/json, is of JSON
// Schema's type t.
func jsonType(v any, t string) bool {
	switch x := v.(type) {
	case nil:
		return t == "null"
	case bool:
		return t == "boolean"
	case string:
		return t == "string"
	case float64:
		return t == "number" || t == "integer" && x == math.Trunc(x)
	case []any:
		return t == "array"
	case map[string]any:
		return t == "object"
	}
	return false
}

// llamaCheck says why o is not what want asks for, or "".
func llamaCheck(api, want string, o outcome, schemas map[string]testSchema) string {
	finish := map[string][2]string{"chat": {"tool_calls", "stop"}, "messages": {"tool_use", "end_turn"}, "responses": {"completed", "completed"}}[api]
	valid := func(name, text string) string {
		s := schemas[name]
		if s == nil {
			return "unknown " + name
		}
		var v any
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			return "not JSON: " + text
		}
		if err := s.check(v, false); err != nil {
			return "invalid " + text + ": " + err.Error()
		}
		return ""
	}
	switch {
	case o.status != 200:
		return fmt.Sprintf("HTTP %d %s", o.status, truncateString(o.raw, 300))
	case o.errMsg != "":
		return "error: " + o.errMsg
	case o.reasoning == "":
		return "no reasoning"
	}
	call := func(name string) string {
		if o.finish != finish[0] || len(o.calls) != 1 || o.content != "" {
			return fmt.Sprintf("finish %q, %d calls, content %q", o.finish, len(o.calls), truncateString(o.content, 100))
		}
		if name != "" && o.calls[0].name != name {
			return "called " + o.calls[0].name
		}
		return valid(o.calls[0].name, o.calls[0].args)
	}
	switch want {
	case "call":
		return call("")
	case "named":
		return call("search")
	case "json":
		if o.finish != finish[1] || len(o.calls) != 0 {
			return fmt.Sprintf("finish %q, %d calls", o.finish, len(o.calls))
		}
		return valid("answer", o.content)
	}
	// call or answer: the calls must be valid; an answer is free text,
	// which a random model ends only by chance (cut by max_tokens).
	if len(o.calls) > 0 {
		return call("")
	}
	if o.content == "" {
		return fmt.Sprintf("finish %q, no call and no answer", o.finish)
	}
	return ""
}

// cutShort reports whether a reply was cut by max_tokens before the model
// ended what it was writing: its reasoning (no call and no content), or,
// streamed, a value the grammar lets run on, such as a number's digits (a
// call whose arguments are not yet JSON, or, where JSON is wanted, an
// answer that is not yet JSON). A cut reply whose call or JSON is complete
// is not counted: its finish would be wrong.
func cutShort(want string, o outcome) bool {
	cut := o.finish == "length" || o.finish == "max_tokens" || o.finish == "incomplete"
	if o.status != 200 || o.errMsg != "" || !cut {
		return false
	}
	switch {
	case len(o.calls) == 0 && o.content == "":
		return true
	case len(o.calls) == 1 && o.content == "" && want != "json":
		return !json.Valid([]byte(o.calls[0].args))
	case len(o.calls) == 0 && want == "json":
		return !json.Valid([]byte(o.content))
	}
	return false
}

// TestConstrainedLlamaCpp sends constrained requests through the gateway
// to a real llama-server, on all three APIs, streamed and not, and checks
// that every reply is what was demanded (valid for its schema, reasoning
// kept), that the unconstrained baseline never manages it, and that the
// engine stays up.
func TestConstrainedLlamaCpp(t *testing.T) {
	if *llamaURL == "" {
		t.Skip("needs -llama.url (templates/llamacpp/constrained.sh runs it)")
	}
	var logs syncBuffer
	cfg := Config{Backend: *llamaURL, Model: "beam", Logger: newJSONLogger(&logs), Timeout: 5 * time.Minute}
	if *llamaTokDir != "" {
		tk, err := tokenizer.Load(*llamaTokDir)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Tokenizer = tk
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), DetectTimeout)
	defer cancel()
	if kind, err := s.DetectEngine(ctx); kind != EngineLlamaCpp {
		t.Fatalf("detected %s (%v), want llama.cpp", kind, err)
	}
	gw := httptest.NewServer(s)
	defer gw.Close()
	schemas := map[string]testSchema{"get_weather": compileSchema(t, llamaWeather), "search": compileSchema(t, llamaSearch), "answer": compileSchema(t, llamaAnswer)}
	engineUp := func() bool {
		resp, err := http.Get(*llamaURL + "/health")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	}
	type tally struct{ ok, n, calls, answers, reasoned, cut int }
	counts := map[string]*tally{}
	var keys []string
	run := func(rows []llamaRow, constrained bool) {
		for _, row := range rows {
			for _, api := range apiCases {
				for _, stream := range []bool{false, true} {
					key := fmt.Sprintf("%-30s %-9s stream=%-5v", row.name, api.name, stream)
					c := &tally{}
					counts[key] = c
					keys = append(keys, key)
					for i := 0; i < *llamaTrials; i++ {
						o := api.send(t, gw, llamaBody(api.name, row.strict, row.extra[api.name]), stream)
						c.n++
						if o.reasoning != "" {
							c.reasoned++
						}
						if len(o.calls) > 0 {
							c.calls++
						} else if o.content != "" {
							c.answers++
						}
						why := llamaCheck(api.name, row.want, o, schemas)
						switch {
						case why == "":
							c.ok++
						case cutShort(row.want, o):
							// The grammar lets Beam reason as long as it
							// likes, and write a number's digits as long
							// as it likes; a random model at times does
							// not end either within max_tokens. Counted,
							// and bounded below.
							c.cut++
						case constrained:
							t.Errorf("%s #%d: %s", key, i, why)
						}
					}
					if !engineUp() {
						t.Fatalf("llama-server is down after %s", key)
					}
				}
			}
		}
	}
	run(llamaRows, true)
	run(llamaBaseline, false)
	var b bytes.Buffer
	fmt.Fprintf(&b, "%-48s %6s %9s %6s %8s %4s\n", "", "valid", "reasoning", "calls", "answers", "cut")
	cut, constrainedN := 0, 0
	for _, k := range keys {
		c := counts[k]
		fmt.Fprintf(&b, "%-48s %3d/%-3d %5d/%-3d %6d %8d %4d\n", k, c.ok, c.n, c.reasoned, c.n, c.calls, c.answers, c.cut)
		if !strings.HasPrefix(k, "unconstrained") {
			cut += c.cut
			constrainedN += c.n
		}
	}
	t.Logf("results against %s:\n%s", *llamaURL, b.String())
	if cut*20 > constrainedN {
		t.Errorf("%d of %d constrained replies were cut by max_tokens in their reasoning or a value, more than 5%%: does the grammar let them end?", cut, constrainedN)
	}
	for _, k := range keys {
		if strings.HasPrefix(k, "unconstrained") && counts[k].ok > 0 {
			t.Errorf("%s: the unconstrained model managed it %d times", k, counts[k].ok)
		}
	}
	if !engineUp() {
		t.Error("llama-server is down")
	}
	if t.Failed() {
		var failed []string
		for _, line := range strings.Split(logs.String(), "\n") {
			if strings.Contains(line, `"error_kind":"engine"`) {
				failed = append(failed, truncateString(line, 3000))
			}
		}
		t.Logf("gateway log records of the failed requests:\n%s", strings.Join(failed, "\n"))
	}
}

// TestCutShort checks which replies the llama.cpp test counts as cut by
// max_tokens rather than failed.
func TestCutShort(t *testing.T) {
	partial := []streamCall{{name: "search", args: `{"topic": "weather", "limit": 10`}}
	whole := []streamCall{{name: "search", args: `{"topic": "weather"}`}}
	for _, c := range []struct {
		want string
		o    outcome
		cut  bool
	}{
		{"call", outcome{status: 200, finish: "max_tokens"}, true},                         // in the reasoning
		{"call", outcome{status: 200, finish: "length", calls: partial}, true},             // inside an argument
		{"named", outcome{status: 200, finish: "incomplete", calls: partial}, true},        // Responses
		{"json", outcome{status: 200, finish: "length", content: `{"answer": 0.12`}, true}, // inside the JSON
		{"call", outcome{status: 200, finish: "length", calls: whole}, false},              // complete: wrong finish
		{"json", outcome{status: 200, finish: "length", content: `{"answer": 1}`}, false},  // complete: wrong finish
		{"call", outcome{status: 200, finish: "length", content: "free text"}, false},      // an answer where a call was required
		{"call", outcome{status: 200, finish: "tool_use", calls: partial}, false},          // not cut
		{"call", outcome{status: 200, finish: "length", calls: append(partial, partial...)}, false},
		{"call", outcome{status: 500, finish: "length"}, false},
		{"call", outcome{status: 200, finish: "length", errMsg: "engine"}, false},
	} {
		if got := cutShort(c.want, c.o); got != c.cut {
			t.Errorf("want %s, %+v: cut %v, want %v", c.want, c.o, got, c.cut)
		}
	}
}
