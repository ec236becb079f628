package grammar

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/beamharmony/harmony/internal/cputime"
)

// BenchmarkCompileSuite compiles every schema of the JSON Schema Test
// Suite as a response format (not strict), one after the other: the
// workload of bench/run's comparison with llama.cpp's converter, as one
// figure whose allocations per op don't depend on the machine's load. It
// reports the CPU time per op too (cpu-ns/op), which counts the work done
// where ns/op also counts the waits for a core on a busy machine.
func BenchmarkCompileSuite(b *testing.B) {
	var specs []*Spec
	for _, f := range loadSuite(b) {
		for _, c := range f.cases {
			specs = append(specs, &Spec{Format: &Format{Schema: c.Schema}})
		}
	}
	b.ReportAllocs()
	clock := cputime.Start()
	for b.Loop() {
		for _, s := range specs {
			Compile(context.Background(), s)
		}
	}
	clock.Report(b, 0)
}

// BenchmarkCompileCPU is BenchmarkCompileTypical and
// BenchmarkCompileRealistic with their CPU time per op.
func BenchmarkCompileCPU(b *testing.B) {
	for _, c := range []struct {
		name string
		spec *Spec
	}{
		{"typical", &Spec{Tools: []Tool{propertyTools[0]}, Choice: Required}},
		{"realistic", &Spec{Tools: realisticTools(b), Choice: Required, Parallel: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			compileLoop(b, c.spec)
		})
	}
}

// BenchmarkCompileSmall compiles small response formats of the kinds
// the JSON Schema Test Suite is made of: a type alone, and the suite's
// first enum schema (three integers, each written as an int and as a
// float: 2 and 2.0), whose costs are the fixed cost of a grammar and that
// of reading listed numbers.
func BenchmarkCompileSmall(b *testing.B) {
	for _, c := range []struct{ name, schema string }{
		{"null", `{"type": "null"}`},
		{"enum", `{"$schema": "https://json-schema.org/draft/2020-12/schema", "enum": [1, 2, 3]}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			spec := &Spec{Format: &Format{Schema: json.RawMessage(c.schema)}}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Compile(context.Background(), spec); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCompileLongLists compiles schemas of one long list of names or
// values (gap decision 217), each refused by a cap in the end since that
// decision: what a request of a few hundred kilobytes costs before the
// refusal. CPU time per op too (cpu-ns/op).
func BenchmarkCompileLongLists(b *testing.B) {
	numbers := func(n int, suffix string) string {
		var out []string
		for i := range n {
			out = append(out, strconv.Itoa(i)+suffix)
		}
		return "[" + strings.Join(out, ", ") + "]"
	}
	var members []string
	for i := range 30000 {
		members = append(members, `"k`+strconv.Itoa(i)+`": `+strconv.Itoa(i))
	}
	for _, c := range []struct{ name, schema string }{
		{"propertyNames-enum-30000", `{"type": "object", "propertyNames": {"enum": ` + nameList(30000) + `}}`},
		{"two-enums-24000", `{"allOf": [{"enum": ` + numbers(24000, "") + `}, {"enum": ` + numbers(24000, ".0") + `}]}`},
		{"required-40000", `{"required": ` + nameList(40000) + `}`},
		{"oneOf-required-40000", `{"oneOf": [{"required": ` + nameList(40000) + `, "not": {"required": ["a"]}}, {"required": ["a"], "not": {"required": ["b"]}}]}`},
		{"dependentRequired-40000", `{"type": "object", "properties": {"a": {}}, "dependentRequired": {"a": ` + nameList(40000) + `}}`},
		{"enum-30000", `{"enum": ` + numbers(30000, "") + `}`},
		{"const-object-30000", `{"const": {` + strings.Join(members, ", ") + `}, "properties": {"k1": {"type": "integer"}}, "required": ["k5"], "minProperties": 3}`},
		{"prefixItems-45000", `{"type": "array", "prefixItems": [` + strings.TrimSuffix(strings.Repeat(`{}, `, 45000), ", ") + `]}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			clock := cputime.Start()
			for b.Loop() {
				compileFormat(c.schema, false)
			}
			clock.Report(b, 0)
		})
	}
}

// BenchmarkCompileWide compiles schemas whose cost was names times
// schemas (gap decision 218): declared names beside as many patterns, an
// allOf of objects (with unevaluatedProperties), an allOf of patterns of
// one string (strict); and gap decision 317's pattern attacks. CPU time
// per op too (cpu-ns/op).
func BenchmarkCompileWide(b *testing.B) {
	each := func(n int, f func(i int) string) string {
		out := make([]string, n)
		for i := range out {
			out[i] = f(i)
		}
		return strings.Join(out, ", ")
	}
	for _, c := range []struct {
		name, schema string
		strict       bool
	}{
		{"patterns-beside-properties-3000", `{"type": "object", "properties": {` + each(3000, func(i int) string { return `"k` + strconv.Itoa(i) + `": {"type": "integer"}` }) +
			`}, "patternProperties": {` + each(3000, func(i int) string { return `"^k` + strconv.Itoa(i) + `": {"minimum": ` + strconv.Itoa(i) + `}` }) + `}, "additionalProperties": false}`, false},
		{"allOf-objects-3000", `{"allOf": [` + each(3000, func(i int) string {
			return `{"type": "object", "properties": {"k` + strconv.Itoa(i) + `": {"type": "integer"}, "s": {"maxLength": ` + strconv.Itoa(i+5) + `}}, "required": ["k` + strconv.Itoa(i) + `"]}`
		}) + `]}`, false},
		{"allOf-unevaluated-3000", `{"type": "object", "unevaluatedProperties": false, "allOf": [` + each(3000, func(i int) string { return `{"properties": {"k` + strconv.Itoa(i) + `": {"type": "integer"}}}` }) + `]}`, false},
		{"allOf-patterns-unevaluated-3000", `{"type": "object", "unevaluatedProperties": false, "allOf": [` + each(3000, func(i int) string {
			return `{"patternProperties": {"^k` + strconv.Itoa(i) + `_": {"type": "integer"}}, "properties": {"j` + strconv.Itoa(i) + `": {}}}`
		}) + `]}`, false},
		{"allOf-anyOfs-3000", `{"allOf": [` + each(3000, func(i int) string {
			return `{"anyOf": [{"type": "integer"}, {"type": "string", "maxLength": ` + strconv.Itoa(i+1) + `}]}`
		}) + `]}`, false},
		{"allOf-anyOfs-of-ranges-16x4", `{"type": "number", "allOf": [` + each(16, func(i int) string {
			return `{"anyOf": [` + each(4, func(j int) string {
				return `{"minimum": ` + strconv.Itoa(j*10+i) + `, "maximum": ` + strconv.Itoa(j*10+i+5) + `}`
			}) + `]}`
		}) + `]}`, false},
		{"allOf-patterns-10000-strict", `{"type": "string", "allOf": [` + each(10000, func(i int) string { return `{"pattern": "` + string(rune('a'+i%26)) + `"}` }) + `]}`, true},
		// Gap decision 317's attacks: eight patterns of 4,000 dots or
		// letters, and 8,000 short patterns beside as many names.
		{"dot-patterns-8", longPatterns(7000, "."), false},
		{"literal-patterns-8", longPatterns(7000, "abcdefghij"), false},
		{"short-patternProperties-8000", `{"type": "object", "properties": {` + each(8000, func(i int) string { return `"p` + strconv.Itoa(i) + `": {"type": "integer"}` }) +
			`}, "patternProperties": {` + each(8000, func(i int) string { return `"^q` + strconv.Itoa(i) + `x": {"type": "string"}` }) + `}, "additionalProperties": false}`, false},
		// Wide objects of the probe of gap decision 319: 8,000 strings
		// with a format each, 8,000 strings of 300 length pairs (most
		// past the repetition budget), and 8,000 integers with a count
		// of members.
		{"formats-8000", `{"type": "object", "properties": {` + each(8000, func(i int) string {
			return `"f` + strconv.Itoa(i) + `": {"type": "string", "format": "` + []string{"date-time", "email", "uri", "ipv6", "hostname", "uuid", "duration", "time"}[i%8] + `"}`
		}) + `}}`, false},
		{"string-lengths-8000", `{"type": "object", "properties": {` + each(8000, func(i int) string {
			return `"s` + strconv.Itoa(i) + `": {"type": "string", "minLength": ` + strconv.Itoa(i%300) + `, "maxLength": ` + strconv.Itoa(i%300+500) + `}`
		}) + `}}`, false},
		{"min-max-properties-8000", `{"type": "object", "properties": {` + each(8000, func(i int) string { return `"o` + strconv.Itoa(i) + `": {"type": "integer"}` }) +
			`}, "minProperties": 2666, "maxProperties": 4000}`, false},
	} {
		b.Run(c.name, func(b *testing.B) {
			clock := cputime.Start()
			for b.Loop() {
				compileFormat(c.schema, c.strict)
			}
			clock.Report(b, 0)
		})
	}
}

// BenchmarkCompileStrictFormats compiles, under strict, strings whose
// format and pattern the string automaton reads together (gap decisions
// 227, 228, 230, 286 and 287) and a long minimum beside a pattern, each format's automaton made before the timer
// starts, as it is once per process. CPU time per op too (cpu-ns/op).
func BenchmarkCompileStrictFormats(b *testing.B) {
	for _, c := range []struct{ name, schema string }{
		{"uri-prefix", `{"type": "string", "format": "uri", "pattern": "^https?://"}`},
		{"email-suffix", `{"type": "string", "format": "email", "pattern": "@example\\.com$"}`},
		{"lookahead", `{"type": "string", "pattern": "^(?!org\\.bukkit\\.)([a-z_$][a-z\\d_$]*\\.)*[a-z_$][a-z\\d_$]*$"}`},
		{"long-minimum", `{"type": "string", "pattern": "^(/[a-z~]*)*$", "minLength": 1000}`},
		// Lookahead assertions after the start (decision 286), and emoji
		// properties beside a leading one (decision 287): zod 4's
		// iso.duration() and emoji().
		{"zod-duration", `{"type": "string", "format": "duration", "pattern": "^P(?:(\\d+W)|(?!.*W)(?=\\d|T\\d)(\\d+Y)?(\\d+M)?(\\d+D)?(T(?=\\d)(\\d+H)?(\\d+M)?(\\d+([.,]\\d+)?S)?)?)$"}`},
		{"zod-emoji", `{"type": "string", "format": "emoji", "pattern": "^(?=[\\s\\S]*[\\p{Extended_Pictographic}\\p{Regional_Indicator}\\u20E3])[\\p{Extended_Pictographic}\\p{Emoji_Component}]+$"}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			spec := &Spec{Format: &Format{Schema: json.RawMessage(c.schema), Strict: true}}
			if _, err := Compile(context.Background(), spec); err != nil {
				b.Fatal(err)
			}
			compileLoop(b, spec)
		})
	}
}

// BenchmarkCompileUnknownKeys compiles a 600 KB schema of 30,000 keys that
// are no keywords but start like one ("maxPrope10000"), each compared
// with the keywords for a misspelling (gap decision 257): the worst case
// of that check, held to a few milliseconds by its bound.
func BenchmarkCompileUnknownKeys(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"type": "object", "properties": {"a": {"type": "string"`)
	for i := range 30000 {
		sb.WriteString(`, "maxPrope` + strconv.Itoa(10000+i) + `": 1`)
	}
	sb.WriteString(`}}}`)
	spec := &Spec{Format: &Format{Schema: json.RawMessage(sb.String())}}
	b.SetBytes(int64(sb.Len()))
	compileLoop(b, spec)
}

// compileLoop is a benchmark's loop over Compile(spec), reporting the
// allocations and the CPU time per op (cpu-ns/op) too.
func compileLoop(b *testing.B, spec *Spec) {
	b.ReportAllocs()
	clock := cputime.Start()
	for b.Loop() {
		if _, err := Compile(context.Background(), spec); err != nil {
			b.Fatal(err)
		}
	}
	clock.Report(b, 0)
}

// BenchmarkCompileStrictBudget compiles under strict the schemas of gap
// decision 275: the contact object zod writes (testdata/zod/contact.json:
// six pattern-and-format pairs, five custom formats), which compiles, and
// 300 strings each of email and another copy of zod's email pattern, which
// spend the string automata's work budget and are refused: what the
// budget (maxKeyWorkTotal) lets a schema cost. Each format's automaton is
// made before the timer starts, as it is once per process. CPU time per op
// too (cpu-ns/op).
func BenchmarkCompileStrictBudget(b *testing.B) {
	contact, err := os.ReadFile("testdata/zod/contact.json")
	if err != nil {
		b.Fatal(err)
	}
	emails := make([]string, 300)
	for i := range emails {
		emails[i] = `"p` + strconv.Itoa(i) + `": {"type": "string", "format": "email", "pattern": "^(?:[A-Za-z0-9_'+\\-]+\\.)*[A-Za-z0-9_'+\\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\\-]*\\.)+[A-Za-z]{2,` + strconv.Itoa(10+i) + `}$"}`
	}
	for _, c := range []struct{ name, schema string }{
		{"zod-contact", string(contact)},
		{"emails-300-refused", `{"type": "object", "properties": {` + strings.Join(emails, ", ") + `}}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			spec := &Spec{Format: &Format{Schema: json.RawMessage(c.schema), Strict: true}}
			Compile(context.Background(), spec)
			b.ReportAllocs()
			clock := cputime.Start()
			for b.Loop() {
				Compile(context.Background(), spec)
			}
			clock.Report(b, 0)
		})
	}
}
