package grammar

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Random schemas built to cost the most (hostileSchema): every keyword the
// compiler reads, with the counts, lengths and bounds that have cost it
// before (64, 1,024, 1e300, int64's bounds), regular expressions with
// counted repetitions, lookarounds and back references, long enums, and
// references to the root and to each other. Each must stay within what
// checkBounded asserts, as FuzzCompile's inputs do; the slowest compiles
// are logged, not asserted (gap decision 101). This generator found the
// length automaton's sweeps (gap decision 245).
func TestHostileRandomSchemas(t *testing.T) {
	n := 500
	if testing.Short() {
		n = 100
	}
	type slow struct {
		took   time.Duration
		schema string
	}
	var slowest []slow
	for i := range n {
		g := &hostileGen{rng: rand.New(rand.NewPCG(uint64(i), 245)), depth: 2 + i%5}
		schema := g.top()
		for _, strict := range []bool{false, true} {
			start := time.Now()
			if err := checkBounded([]byte(schema), strict); err != nil {
				t.Fatalf("schema %d, strict %v: %v\n%s", i, strict, err, schema)
			}
			slowest = append(slowest, slow{time.Since(start), schema})
		}
	}
	// (Wall-clock time of four compiles each, with llama.cpp's checks.)
	for range 3 {
		k := 0
		for j, s := range slowest {
			if s.took > slowest[k].took {
				k = j
			}
		}
		t.Logf("%v: %.200s", slowest[k].took, slowest[k].schema)
		slowest = append(slowest[:k], slowest[k+1:]...)
	}
}

// hostileGen writes random schemas, nested up to depth, of at most about
// 400 schemas each.
type hostileGen struct {
	rng   *rand.Rand
	depth int
	defs  []string
	made  int
}

var (
	hostileNumbers = []string{"0", "-0", "1", "-1", "2", "3", "7", "10", "63", "64", "65", "100", "999", "1000", "1024", "1025", "4096", "32767", "65535", "100000", "1e6", "1e9", "9223372036854775807", "-9223372036854775808", "18446744073709551615", "1e20", "1e24", "1e300", "-1e300", "1e-300", "0.5", "1.5", "0.001", "0.0001", "3.14159", "1e-7", "123456789.123456789", "2.5e-10"}
	hostileCounts  = []string{"0", "1", "2", "3", "5", "8", "16", "31", "32", "33", "63", "64", "65", "100", "127", "128", "255", "256", "500", "1000", "1023", "1024", "1025", "2048", "10000", "100000", "4294967295"}
	hostileFormats = []string{"date", "time", "date-time", "duration", "uuid", "email", "hostname", "ipv4", "ipv6", "uri", "uri-reference", "idn-email", "idn-hostname", "iri", "json-pointer", "regex", "relative-json-pointer", "uri-template", "binary", "int32"}
	hostileAtoms   = []string{"a", "b", "[a-z]", "[^x]", `\d`, `\w`, `\s`, ".", "[0-9a-fA-F]", `\.`, "(a|b)", "(?:ab|cd)", `[\u0041-\u005a]`, `\S`, `\D`, `\W`, `[\s\S]`, `\b`, "(?=a)", "(?!b)", `\1`, `\p{L}`, "é", `\/`, "[-a]", "[a-]", `\x41`}
	hostileQuants  = []string{"", "", "*", "+", "?", "{2}", "{0,3}", "{1,}", "{3,10}", "{64}", "{100}", "{0,1000}", "{1000,}", "*?", "+?", "{10,20}?", "{1024}"}
	hostileTypes   = []string{"string", "integer", "number", "boolean", "null", "object", "array"}
)

func (g *hostileGen) pick(xs []string) string { return xs[g.rng.IntN(len(xs))] }

// regex is a random pattern, groups nested up to depth 3.
func (g *hostileGen) regex(depth int) string {
	var b strings.Builder
	for range 1 + g.rng.IntN(5) {
		if depth < 3 && g.rng.IntN(4) == 0 {
			b.WriteString("(" + g.regex(depth+1))
			if g.rng.IntN(2) == 0 {
				b.WriteString("|" + g.regex(depth+1))
			}
			b.WriteString(")")
		} else {
			b.WriteString(g.pick(hostileAtoms))
		}
		b.WriteString(g.pick(hostileQuants))
	}
	if depth > 0 {
		return b.String()
	}
	return g.pick([]string{"", "^"}) + b.String() + g.pick([]string{"", "$"})
}

// value is a random JSON value, for enum and const.
func (g *hostileGen) value(depth int) string {
	switch g.rng.IntN(6) {
	case 0:
		return g.pick(hostileNumbers)
	case 1:
		return strconv.Quote(g.pick([]string{"a", "b", "", "x-y", "é", "true", "1", "<|end|>"}))
	case 2:
		return g.pick([]string{"true", "false", "null"})
	case 3:
		if depth < 2 {
			return "[" + g.value(depth+1) + ", " + g.value(depth+1) + "]"
		}
		return "[]"
	case 4:
		if depth < 2 {
			return `{"a": ` + g.value(depth+1) + `}`
		}
		return "{}"
	}
	return strconv.Itoa(g.rng.IntN(5))
}

// schema is a random schema at depth.
func (g *hostileGen) schema(depth int) string {
	g.made++
	if depth > g.depth || g.made > 400 {
		switch g.rng.IntN(5) {
		case 0:
			return g.pick([]string{"true", "{}"})
		case 1:
			return g.ref()
		}
		return `{"type": "` + g.pick(hostileTypes) + `"}`
	}
	if g.rng.IntN(25) == 0 {
		return g.pick([]string{"true", "false"})
	}
	var members []string
	add := func(k, v string) { members = append(members, strconv.Quote(k)+": "+v) }
	sub := func() string { return g.schema(depth + 1) }
	for range 1 + g.rng.IntN(5) {
		switch g.rng.IntN(38) {
		case 0, 1:
			add("type", strconv.Quote(g.pick(hostileTypes)))
		case 2:
			add("type", `["string", "null"]`)
		case 3, 4:
			n := 1 + g.rng.IntN(6)
			if g.rng.IntN(10) == 0 {
				n = 30 + g.rng.IntN(200)
			}
			var props []string
			for range n {
				props = append(props, strconv.Quote(fmt.Sprintf("p%d", g.rng.IntN(n+2)))+": "+sub())
			}
			add("properties", "{"+strings.Join(props, ", ")+"}")
		case 5:
			add("required", `["p0", "p1", "p3"]`)
		case 6:
			add("additionalProperties", g.pick([]string{"false", sub()}))
		case 7:
			add("patternProperties", "{"+strconv.Quote(g.regex(0))+": "+sub()+", "+strconv.Quote(g.regex(0))+": "+sub()+"}")
		case 8:
			add("items", g.pick([]string{"false", sub()}))
		case 9:
			add("prefixItems", "["+sub()+", "+sub()+"]")
		case 10:
			add("contains", sub())
			add("minContains", g.pick(hostileCounts))
		case 11:
			add(g.pick([]string{"maxContains", "minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"}), g.pick(hostileCounts))
		case 12, 13:
			add("pattern", strconv.Quote(g.regex(0)))
		case 14:
			add("format", strconv.Quote(g.pick(hostileFormats)))
		case 15:
			n := 1 + g.rng.IntN(5)
			if g.rng.IntN(8) == 0 {
				n = 100 + g.rng.IntN(2000)
			}
			values := make([]string, n)
			for j := range values {
				values[j] = g.value(0)
			}
			add("enum", "["+strings.Join(values, ", ")+"]")
		case 16:
			add("const", g.value(0))
		case 17, 18:
			variants := make([]string, 1+g.rng.IntN(4))
			for j := range variants {
				variants[j] = sub()
			}
			add(g.pick([]string{"anyOf", "oneOf", "allOf"}), "["+strings.Join(variants, ", ")+"]")
		case 19:
			add("not", sub())
		case 20:
			add("if", sub())
			add("then", sub())
			if g.rng.IntN(2) == 0 {
				add("else", sub())
			}
		case 21, 22:
			add(g.pick([]string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}), g.pick(hostileNumbers))
		case 23:
			add("multipleOf", g.pick([]string{"1", "2", "3", "7", "0.5", "0.01", "1.5", "1e-5", "11", "64", "1000", "0.3", "1e308"}))
		case 24:
			add("dependentRequired", `{"p0": ["p1"], "p1": ["p2", "p0"]}`)
		case 25:
			add("dependentSchemas", `{"p0": `+sub()+`}`)
		case 26:
			add("propertyNames", sub())
		case 27:
			add(g.pick([]string{"unevaluatedProperties", "unevaluatedItems"}), sub())
		case 28:
			add("uniqueItems", "true")
		case 29, 30:
			members = append(members, strings.Trim(g.ref(), "{}"))
		default:
			add("type", strconv.Quote(g.pick(hostileTypes)))
		}
	}
	return "{" + strings.Join(members, ", ") + "}"
}

// ref is a schema of one $ref: to the root or to one of the $defs.
func (g *hostileGen) ref() string {
	if len(g.defs) == 0 || g.rng.IntN(4) == 0 {
		return `{"$ref": "#"}`
	}
	return `{"$ref": "#/$defs/` + g.pick(g.defs) + `"}`
}

// top is a random schema with up to three $defs.
func (g *hostileGen) top() string {
	g.defs = nil
	for i := range g.rng.IntN(4) {
		g.defs = append(g.defs, "d"+strconv.Itoa(i))
	}
	defs := make([]string, len(g.defs))
	for i, name := range g.defs {
		defs[i] = strconv.Quote(name) + ": " + g.schema(1)
	}
	s := g.schema(0)
	if len(defs) == 0 {
		return s
	}
	if s == "true" || s == "false" || s == "{}" {
		return `{"$defs": {` + strings.Join(defs, ", ") + "}}"
	}
	return strings.TrimSuffix(s, "}") + `, "$defs": {` + strings.Join(defs, ", ") + "}}"
}
