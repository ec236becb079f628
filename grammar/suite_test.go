package grammar

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/beamharmony/harmony/internal/pyjson"
)

// This file checks the grammars of the official JSON Schema Test Suite
// (draft 2020-12, vendored under testdata/json-schema-test-suite) against
// what issue 33 asks of them (item 5):
//
//   - strict: the compile fails with an *Error, or the grammar accepts every
//     valid instance and rejects every invalid one;
//   - not strict: the grammar accepts every valid instance (an object with
//     properties the schema doesn't declare may be rejected, objects being
//     closed by default: kind closed-object, counted apart), and accepts an
//     invalid one only when it reported a keyword in Grammar.Dropped.
//
// An instance is written as the model writes the final message's content
// (suiteContents); a valid one whose object members the grammar accepts
// only in the schema's declared order counts as accepted (JSON objects are
// unordered), apart in the counts.
//
// The compiler does not meet them yet, so the test is a ratchet: every
// current violation is a line of known-failures.txt, and the test fails
// on a violation not listed (a regression) and on a listed one that no
// longer happens (the list must shrink as the compiler improves). The
// flag -update-suite rewrites the list and the summary in the README.

var updateSuite = flag.Bool("update-suite", false, "rewrite testdata/json-schema-test-suite/known-failures.txt and its README's summary from the current compiler")

const (
	suiteDir           = "testdata/json-schema-test-suite"
	suiteFormatsDir    = suiteDir + "/optional/format"
	suiteKnownFailures = suiteDir + "/known-failures.txt"
	suiteReadme        = suiteDir + "/README.md"
	// The README's summary is the text between these two lines.
	suiteSummaryStart = "<!-- summary: written by go test -run TestJSONSchemaTestSuite -update-suite -->"
	suiteSummaryEnd   = "<!-- end of summary -->"
)

// The kinds of violation.
const (
	kindRefused         = "refused"          // not strict: refused a schema some instance is valid for
	kindNotError        = "not-an-Error"     // the compile failed with an error not *Error
	kindValidRejected   = "valid-rejected"   // a valid instance not in the grammar
	kindClosedObject    = "closed-object"    // the same, for an instance with undeclared properties
	kindInvalidAccepted = "invalid-accepted" // an invalid instance in the grammar (strict, or nothing dropped)
)

// suiteCase is one case of a test-suite file: a schema and its instances.
type suiteCase struct {
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Tests       []suiteInstance `json:"tests"`
}

type suiteInstance struct {
	Description string          `json:"description"`
	Data        json.RawMessage `json:"data"`
	Valid       bool            `json:"valid"`
}

// suiteFile is a test-suite file: its name without .json, and its cases.
type suiteFile struct {
	name  string
	cases []suiteCase
}

// loadSuite reads the vendored test-suite files, sorted by name.
func loadSuite(t testing.TB) []suiteFile { return loadSuiteDir(t, suiteDir, "") }

// loadSuiteOptional reads the vendored files of the suite's optional
// tests: its format tests (optional/format, each named
// optional-format-NAME: the formats asserted, as the grammar asserts
// them) and its tests of ECMA-262 regular expressions (optional, named
// optional-NAME).
func loadSuiteOptional(t testing.TB) []suiteFile {
	return append(loadSuiteDir(t, suiteFormatsDir, "optional-format-"), loadSuiteDir(t, suiteDir+"/optional", "optional-")...)
}

// loadSuiteDir reads the test-suite files in dir, sorted by name, each
// named prefix and its file's name.
func loadSuiteDir(t testing.TB, dir, prefix string) []suiteFile {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no test-suite files under %s: %v", dir, err)
	}
	sort.Strings(paths)
	var files []suiteFile
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f := suiteFile{name: prefix + strings.TrimSuffix(filepath.Base(p), ".json")}
		if err := json.Unmarshal(raw, &f.cases); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		files = append(files, f)
	}
	return files
}

// suiteContents returns the ways the model may write instance data as the
// final message's content: the renderer's JSON (Python's json.dumps with
// ", " and ": "), and the same with every "<" written \u003c, as bounded
// strings require; a "<" is only ever inside a string in JSON text, so
// the replacement is exact. A writing that holds a marker's "<|" is left
// out; none left means the instance can't be written at all. ordered are
// the same writings with each object's members in the order the schema
// declares their names (rank), when that order differs: JSON objects are
// unordered, and the grammar writes the declared order.
func suiteContents(data []byte, rank map[string]int) (contents, ordered []string, err error) {
	d, err := pyjson.ParseBytes(data)
	if err != nil {
		return nil, nil, err
	}
	writings := func(text string) []string {
		var out []string
		if !strings.Contains(text, "<|") {
			out = append(out, text)
		}
		if escaped := strings.ReplaceAll(text, "<", `\u003c`); escaped != text {
			out = append(out, escaped)
		}
		return out
	}
	text := string(d.AppendPython(nil, 0))
	contents = writings(text)
	if o := string(appendOrdered(d, nil, 0, rank)); o != text {
		ordered = writings(o)
	}
	return contents, ordered, nil
}

// declaredOrder ranks the property names of a schema in the order the
// grammar writes them: an object schema's $ref and $dynamicRef targets
// (resolved as the compiler resolves them) and allOf members
// first, then its own properties, then the names its dependentRequired
// adds (each trigger's dependents, then the trigger), then its anyOf and
// oneOf variants' (the
// order the compiler's views merge them in), then the schemas nested
// inside; and the keys of the objects inside every "const" and "enum", in
// document order. A name keeps its first rank, unless another object
// declares it after names ranked later: the ranks are then an order that
// keeps every properties object's order where one exists (names met in
// two objects, in two orders, keep the first).
func declaredOrder(schemaJSON []byte) map[string]int {
	first := firstRanks(schemaJSON)
	return keepEachOrder(first.rank, first.sequences)
}

// rankedNames are the names of declaredOrder by first rank, and the
// names of each properties object in their order.
type rankedNames struct {
	rank      map[string]int
	sequences [][]string
}

// keepEachOrder ranks the names of rank anew so that each sequence's
// names come in its order, where the sequences allow it: a topological
// order of "comes before" within each sequence, the first rank breaking
// ties (and cycles).
func keepEachOrder(rank map[string]int, sequences [][]string) map[string]int {
	after := map[string][]string{}
	preds := map[string]int{}
	for _, seq := range sequences {
		for i := 1; i < len(seq); i++ {
			after[seq[i-1]] = append(after[seq[i-1]], seq[i])
			preds[seq[i]]++
		}
	}
	names := make([]string, 0, len(rank))
	for n := range rank {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return rank[names[i]] < rank[names[j]] })
	out := make(map[string]int, len(rank))
	for len(out) < len(names) {
		// The first-ranked name nothing left must precede; in a
		// cycle, the first-ranked name left.
		pick := ""
		for _, n := range names {
			if _, done := out[n]; !done && preds[n] == 0 {
				pick = n
				break
			}
		}
		if pick == "" {
			for _, n := range names {
				if _, done := out[n]; !done {
					pick = n
					break
				}
			}
		}
		out[pick] = len(out)
		for _, m := range after[pick] {
			preds[m]--
		}
	}
	return out
}

// firstRanks is declaredOrder's walk: each name's first rank, and the
// sequences of names of the properties objects and of dependentRequired's
// entries.
func firstRanks(schemaJSON []byte) rankedNames {
	rank := map[string]int{}
	var sequences [][]string
	d, err := pyjson.ParseBytes(schemaJSON)
	if err != nil {
		return rankedNames{rank: rank}
	}
	// $refs resolve as the compiler resolves them ($id included, as the
	// dialect reads it).
	c := &compiler{d: d}
	if d.Kind(0) == pyjson.Object {
		if s := d.Lookup(0, "$schema"); s >= 0 && d.Kind(s) == pyjson.String {
			c.refAlone, c.noDollarID = legacyDialect(d.Str(s)), draftBeforeSix(d.Str(s))
		}
	}
	declare := func(k int) {
		if _, ok := rank[d.Str(k)]; !ok {
			rank[d.Str(k)] = len(rank)
		}
	}
	seen := map[int]bool{}
	var walk func(i int)
	walk = func(i int) {
		switch d.Kind(i) {
		case pyjson.Object:
			if seen[i] {
				return
			}
			seen[i] = true
			if r := d.Lookup(i, "$ref"); r >= 0 {
				if t := c.resolveRef(i, r); t >= 0 {
					walk(t)
				}
			}
			if r := d.Lookup(i, "$dynamicRef"); r >= 0 {
				if t := c.resolveDynamic(i, r); t >= 0 {
					walk(t)
				}
			}
			if a := d.Lookup(i, "allOf"); a >= 0 {
				walk(a)
			}
			if p := d.Lookup(i, "properties"); p >= 0 && d.Kind(p) == pyjson.Object {
				var seq []string
				d.Members(p, func(name, _ int) bool {
					declare(name)
					seq = append(seq, d.Str(name))
					return true
				})
				sequences = append(sequences, seq)
			}
			// The names dependentRequired adds: each trigger's
			// dependents, then the trigger (dependentMembers).
			for _, kw := range []string{"dependentRequired", "dependencies"} {
				if dr := d.Lookup(i, kw); dr >= 0 && d.Kind(dr) == pyjson.Object {
					d.Members(dr, func(trigger, deps int) bool {
						if d.Kind(deps) != pyjson.Array {
							return true
						}
						var seq []string
						d.Elements(deps, func(e, _ int) bool {
							if d.Kind(e) == pyjson.String {
								declare(e)
								seq = append(seq, d.Str(e))
							}
							return true
						})
						declare(trigger)
						sequences = append(sequences, append(seq, d.Str(trigger)))
						return true
					})
				}
			}
			for _, kw := range []string{"anyOf", "oneOf"} {
				if a := d.Lookup(i, kw); a >= 0 {
					walk(a)
				}
			}
			d.Members(i, func(k, v int) bool {
				switch d.Str(k) {
				case "const", "enum":
					for n := v; n < d.Next(v); n++ {
						if d.Kind(n) == pyjson.Object {
							d.Members(n, func(name, _ int) bool {
								declare(name)
								return true
							})
						}
					}
				default:
					walk(v)
				}
				return true
			})
		case pyjson.Array:
			d.Elements(i, func(e, _ int) bool {
				walk(e)
				return true
			})
		}
	}
	walk(0)
	return rankedNames{rank, sequences}
}

// appendOrdered writes node i as AppendPython does, with each object's
// members sorted by their names' ranks (stably; names without a rank last).
func appendOrdered(d *pyjson.Doc, dst []byte, i int, rank map[string]int) []byte {
	switch d.Kind(i) {
	case pyjson.Object:
		var keys []int
		d.Members(i, func(k, _ int) bool {
			keys = append(keys, k)
			return true
		})
		at := func(k int) int {
			if r, ok := rank[d.Str(k)]; ok {
				return r
			}
			return len(rank)
		}
		sort.SliceStable(keys, func(a, b int) bool { return at(keys[a]) < at(keys[b]) })
		dst = append(dst, '{')
		for n, k := range keys {
			if n > 0 {
				dst = append(dst, ", "...)
			}
			dst = d.AppendPython(dst, k)
			dst = append(dst, ": "...)
			dst = appendOrdered(d, dst, k+1, rank)
		}
		return append(dst, '}')
	case pyjson.Array:
		dst = append(dst, '[')
		n := 0
		d.Elements(i, func(e, _ int) bool {
			if n > 0 {
				dst = append(dst, ", "...)
			}
			n++
			dst = appendOrdered(d, dst, e, rank)
			return true
		})
		return append(dst, ']')
	}
	return d.AppendPython(dst, i)
}

// suiteText is the text the grammar matches for content: a reasoning
// message, then the final message's header and the content.
func suiteText(content string) string { return analysisPrefix + finalHeader + content }

// undeclaredProperty reports whether some object in instance has a key
// the schema doesn't declare (rank, from declaredOrder): the instances a
// closed object may reject.
func undeclaredProperty(rank map[string]int, instance []byte) bool {
	d, err := pyjson.ParseBytes(instance)
	if err != nil {
		return false
	}
	for i := range d.Nodes {
		if d.Kind(i) != pyjson.Object {
			continue
		}
		undeclared := false
		d.Members(i, func(k, _ int) bool {
			_, declared := rank[d.Str(k)]
			undeclared = !declared
			return declared
		})
		if undeclared {
			return true
		}
	}
	return false
}

// suiteMode is one way of compiling the suite's schemas.
type suiteMode struct {
	name   string
	strict bool
}

var suiteModes = []suiteMode{{"non-strict", false}, {"strict", true}}

// suiteCounts are the counts of one mode.
type suiteCounts struct {
	schemas, compiled, refused       int
	validAccepted, validRejected     int
	validReordered                   int // accepted only with members in the declared order
	invalidRejected, invalidAccepted int
	invalidExcused                   int // accepted, with a keyword reported dropped (not strict)
	skipped                          int // instances that can't be written
	tooLong                          int // instances not checked: longer than runSuite's maxInstance
	violations                       int
	byKind                           map[string]int
	byFile                           map[string]int
}

// suiteResult is the outcome of the whole suite.
type suiteResult struct {
	lines  []string // the violations, as known-failures.txt writes them
	counts map[string]*suiteCounts
	// where are, for each valid instance rejected, its line and where
	// the grammar stops matching it (furthestMatch), for a reader.
	where []string
}

// suiteField makes a description safe for a line of known-failures.txt.
func suiteField(s string) string {
	return strings.NewReplacer("|", "/", "\n", " ", "\r", " ").Replace(s)
}

// runSuite compiles every schema of files in every mode and checks every
// instance: those whose JSON is at most maxInstance bytes (0: every one;
// the others are counted as too long, this package's test matcher taking
// minutes on some of 15 KB).
func runSuite(t testing.TB, files []suiteFile, maxInstance int) *suiteResult {
	t.Helper()
	res := &suiteResult{counts: map[string]*suiteCounts{}}
	ctx := context.Background()
	for _, m := range suiteModes {
		c := &suiteCounts{byKind: map[string]int{}, byFile: map[string]int{}}
		res.counts[m.name] = c
		for _, f := range files {
			for _, sc := range f.cases {
				c.schemas++
				violate := func(instance, kind string) {
					res.lines = append(res.lines, strings.Join([]string{f.name + ".json", suiteField(sc.Description), suiteField(instance), m.name, kind}, "|"))
					c.violations++
					c.byKind[kind]++
					c.byFile[f.name+".json"]++
				}
				// The instances as the model writes them.
				rank := declaredOrder(sc.Schema)
				contents := make([][]string, len(sc.Tests))
				ordered := make([][]string, len(sc.Tests))
				anyValid := false
				for i, in := range sc.Tests {
					cs, ord, err := suiteContents(in.Data, rank)
					if err != nil {
						t.Fatalf("%s: %s: %s: the renderer's JSON can't read %s: %v", f.name, sc.Description, in.Description, in.Data, err)
					}
					contents[i], ordered[i] = cs, ord
					if len(cs)+len(ord) > 0 && in.Valid {
						anyValid = true
					}
				}
				g, err := Compile(ctx, &Spec{Format: &Format{Schema: sc.Schema, Strict: m.strict}})
				if err != nil {
					c.refused++
					var ge *Error
					switch {
					case !errors.As(err, &ge):
						violate("-", kindNotError)
					case !m.strict && anyValid:
						violate("-", kindRefused)
					}
					continue
				}
				c.compiled++
				for i, in := range sc.Tests {
					if len(contents[i])+len(ordered[i]) == 0 {
						c.skipped++
						continue
					}
					if maxInstance > 0 && len(in.Data) > maxInstance {
						c.tooLong++
						continue
					}
					anyMatch := func(texts []string) bool {
						for _, content := range texts {
							if g.Matches(suiteText(content)) {
								return true
							}
						}
						return false
					}
					accepted := anyMatch(contents[i])
					reordered := !accepted && anyMatch(ordered[i])
					switch {
					case in.Valid && accepted:
						c.validAccepted++
					case in.Valid && reordered:
						c.validReordered++
					case in.Valid:
						c.validRejected++
						text := suiteText(contents[i][0])
						at := g.furthestMatch(text)
						res.where = append(res.where, fmt.Sprintf("%s.json %s %s: ...%s <HERE> %.60s", f.name, m.name, in.Description, text[max(0, at-100):at], text[at:]))
						if undeclaredProperty(rank, in.Data) {
							violate(in.Description, kindClosedObject)
						} else {
							violate(in.Description, kindValidRejected)
						}
					case !accepted && !reordered:
						c.invalidRejected++
					case !m.strict && len(g.Dropped) > 0:
						c.invalidExcused++
					default:
						c.invalidAccepted++
						violate(in.Description, kindInvalidAccepted)
					}
				}
			}
		}
	}
	sort.Strings(res.lines)
	return res
}

// summary is the markdown table of res written into the README.
func (res *suiteResult) summary() string {
	var b strings.Builder
	b.WriteString("| | " + suiteModes[0].name + " | " + suiteModes[1].name + " |\n|---|---:|---:|\n")
	row := func(label string, f func(c *suiteCounts) int) {
		fmt.Fprintf(&b, "| %s | %d | %d |\n", label, f(res.counts[suiteModes[0].name]), f(res.counts[suiteModes[1].name]))
	}
	row("schemas", func(c *suiteCounts) int { return c.schemas })
	row("compiled", func(c *suiteCounts) int { return c.compiled })
	row("refused (an error)", func(c *suiteCounts) int { return c.refused })
	row("valid instances accepted", func(c *suiteCounts) int { return c.validAccepted })
	row("valid instances accepted with their members in the declared order only", func(c *suiteCounts) int { return c.validReordered })
	row("valid instances rejected", func(c *suiteCounts) int { return c.validRejected })
	row("invalid instances rejected", func(c *suiteCounts) int { return c.invalidRejected })
	row("invalid instances accepted, a keyword reported dropped", func(c *suiteCounts) int { return c.invalidExcused })
	row("invalid instances accepted, nothing reported", func(c *suiteCounts) int { return c.invalidAccepted })
	row("instances that can't be written (skipped)", func(c *suiteCounts) int { return c.skipped })
	row("**violations**", func(c *suiteCounts) int { return c.violations })
	for _, k := range []string{kindRefused, kindNotError, kindValidRejected, kindClosedObject, kindInvalidAccepted} {
		row("&nbsp;&nbsp;"+k, func(c *suiteCounts) int { return c.byKind[k] })
	}
	// The files with most violations, both modes together.
	total := map[string]int{}
	for _, c := range res.counts {
		for f, n := range c.byFile {
			total[f] += n
		}
	}
	names := make([]string, 0, len(total))
	for f := range total {
		names = append(names, f)
	}
	sort.Slice(names, func(i, j int) bool {
		if total[names[i]] != total[names[j]] {
			return total[names[i]] > total[names[j]]
		}
		return names[i] < names[j]
	})
	if len(names) > 10 {
		names = names[:10]
	}
	b.WriteString("\nThe ten files with most violations:\n\n| file | " + suiteModes[0].name + " | " + suiteModes[1].name + " |\n|---|---:|---:|\n")
	for _, f := range names {
		fmt.Fprintf(&b, "| %s | %d | %d |\n", f, res.counts[suiteModes[0].name].byFile[f], res.counts[suiteModes[1].name].byFile[f])
	}
	return b.String()
}

// knownFailuresHeader opens known-failures.txt.
const knownFailuresHeader = `# Violations of issue 33's invariants by the current compiler on the JSON
# Schema Test Suite (grammar/suite_test.go), one a line, sorted:
#   file|case description|instance description ("-": the schema)|mode|kind
# The list may only shrink. Rewrite it with
#   go test ./grammar/ -run TestJSONSchemaTestSuite -update-suite
`

// readKnownFailures reads the listed violations, comments left out.
func readKnownFailures(t testing.TB) []string {
	raw, err := os.ReadFile(suiteKnownFailures)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, l := range strings.Split(string(raw), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	return lines
}

// readmeWithSummary returns the README with its summary replaced.
func readmeWithSummary(t testing.TB, readme []byte, summary string) []byte {
	start := bytes.Index(readme, []byte(suiteSummaryStart))
	end := bytes.Index(readme, []byte(suiteSummaryEnd))
	if start < 0 || end < start {
		t.Fatalf("%s holds no summary between %q and %q", suiteReadme, suiteSummaryStart, suiteSummaryEnd)
	}
	var b bytes.Buffer
	b.Write(readme[:start+len(suiteSummaryStart)])
	b.WriteString("\n\n" + summary + "\n")
	b.Write(readme[end:])
	return b.Bytes()
}

func TestJSONSchemaTestSuite(t *testing.T) {
	res := runSuite(t, loadSuite(t), 0)
	for _, m := range suiteModes {
		c := res.counts[m.name]
		t.Logf("%s: %d schemas, %d compiled, %d refused; valid instances %d accepted, %d accepted in the declared order, %d rejected; invalid %d rejected, %d accepted with a keyword dropped, %d accepted with nothing reported; %d skipped; %d violations %v",
			m.name, c.schemas, c.compiled, c.refused, c.validAccepted, c.validReordered, c.validRejected, c.invalidRejected, c.invalidExcused, c.invalidAccepted, c.skipped, c.violations, c.byKind)
		t.Logf("%s: violations by file: %v", m.name, c.byFile)
	}
	summary := res.summary()
	readme, err := os.ReadFile(suiteReadme)
	if err != nil {
		t.Fatal(err)
	}
	newReadme := readmeWithSummary(t, readme, summary)
	if *updateSuite {
		body := knownFailuresHeader + strings.Join(res.lines, "\n")
		if len(res.lines) > 0 {
			body += "\n"
		}
		if err := os.WriteFile(suiteKnownFailures, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(suiteReadme, newReadme, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %d violations to %s and the summary to %s", len(res.lines), suiteKnownFailures, suiteReadme)
		return
	}
	known := readKnownFailures(t)
	if !slices.IsSorted(known) {
		t.Errorf("%s is not sorted: rewrite it with -update-suite", suiteKnownFailures)
		slices.Sort(known)
	}
	var regressions, fixed []string
	for _, l := range res.lines {
		if _, found := slices.BinarySearch(known, l); !found {
			regressions = append(regressions, l)
		}
	}
	for _, l := range known {
		if _, found := slices.BinarySearch(res.lines, l); !found {
			fixed = append(fixed, l)
		}
	}
	if len(regressions) > 0 {
		t.Errorf("%d violations not in %s (regressions):\n%s", len(regressions), suiteKnownFailures, strings.Join(regressions, "\n"))
	}
	if len(fixed) > 0 {
		t.Errorf("%d lines of %s no longer fail: remove them (go test ./grammar/ -run TestJSONSchemaTestSuite -update-suite):\n%s", len(fixed), suiteKnownFailures, strings.Join(fixed, "\n"))
	}
	if !bytes.Equal(readme, newReadme) {
		t.Errorf("the summary in %s is not the current compiler's: rewrite it with -update-suite; it is now:\n%s", suiteReadme, summary)
	}
}

// TestJSONSchemaTestSuiteOptional holds the grammars of the suite's
// optional format tests (where a format is asserted, as the grammar asserts
// every format it knows) and its tests of ECMA-262 regular expressions in
// patterns to the same invariants as TestJSONSchemaTestSuite, with no
// exception: a strict grammar accepts every valid instance and rejects
// every invalid one, or the compile fails (an unknown format, or one the
// grammar can't enforce exactly, such as hostname); a non-strict one
// accepts every valid instance, and an invalid one only with a keyword
// reported.
func TestJSONSchemaTestSuiteOptional(t *testing.T) {
	res := runSuite(t, loadSuiteOptional(t), 0)
	for _, m := range suiteModes {
		c := res.counts[m.name]
		t.Logf("%s: %d schemas, %d compiled, %d refused; valid instances %d accepted, %d rejected; invalid %d rejected, %d accepted with a keyword dropped, %d accepted with nothing reported",
			m.name, c.schemas, c.compiled, c.refused, c.validAccepted, c.validRejected, c.invalidRejected, c.invalidExcused, c.invalidAccepted)
		if c.compiled == 0 || c.invalidRejected == 0 {
			t.Errorf("%s: nothing compiled or nothing rejected: %+v", m.name, *c)
		}
	}
	if len(res.lines) > 0 {
		t.Errorf("%d violations:\n%s", len(res.lines), strings.Join(res.lines, "\n"))
	}
}
