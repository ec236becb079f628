package grammar

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"unicode/utf8"
)

// What llama.cpp does with a grammar's text before it uses it, done again
// here so that go test checks it without a llama.cpp build
// (templates/llamacpp/grammar.sh checks the same with llama.cpp itself):
// its parser numbers the rules in the order their names first appear and
// makes rules of groups and repetitions (llama_grammar_parser), refusing
// a repetition of a group that makes 2,000 rules or more; its check for
// left recursion (llama_grammar_detect_left_recursion) walks down the
// leftmost references from each rule no earlier walk entered, without
// memory. The walk's cost here is what engineWalk estimates: visitCost
// and the rule's elements for each rule entered.

// llamaElem is an element of a parsed rule; only what the walk needs.
type llamaElem struct {
	kind  byte // llamaEnd, llamaAlt, llamaRef, llamaChar (any other)
	value uint32
}

const (
	llamaEnd byte = iota
	llamaAlt
	llamaRef
	llamaChar
)

// llamaRepetitionThreshold is llama.cpp's MAX_REPETITION_THRESHOLD.
const llamaRepetitionThreshold = 2000

type llamaParser struct {
	src   string
	ids   map[string]uint32
	rules [][]llamaElem
}

func (p *llamaParser) symbol(name string) uint32 {
	if id, ok := p.ids[name]; ok {
		return id
	}
	id := uint32(len(p.ids))
	p.ids[name] = id
	return id
}

func (p *llamaParser) generate(base string) uint32 {
	id := uint32(len(p.ids))
	p.ids[base+"_"+strconv.Itoa(int(id))] = id
	return id
}

func (p *llamaParser) add(id uint32, rule []llamaElem) {
	for uint32(len(p.rules)) <= id {
		p.rules = append(p.rules, nil)
	}
	p.rules[id] = rule
}

func (p *llamaParser) space(pos int, newlines bool) int {
	for pos < len(p.src) {
		switch c := p.src[pos]; {
		case c == ' ' || c == '\t' || newlines && (c == '\r' || c == '\n'):
			pos++
		case c == '#':
			for pos < len(p.src) && p.src[pos] != '\r' && p.src[pos] != '\n' {
				pos++
			}
		default:
			return pos
		}
	}
	return pos
}

func llamaWordChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c >= '0' && c <= '9'
}

func (p *llamaParser) name(pos int) (string, int) {
	end := pos
	for end < len(p.src) && llamaWordChar(p.src[end]) {
		end++
	}
	if end == pos {
		panic(fmt.Sprintf("expecting a name at %d", pos))
	}
	return p.src[pos:end], end
}

// char reads one character of a literal or class.
func (p *llamaParser) char(pos int) int {
	if p.src[pos] == '\\' {
		switch p.src[pos+1] {
		case 'x':
			return pos + 4
		case 'u':
			return pos + 6
		case 'U':
			return pos + 10
		case 't', 'r', 'n', '\\', '"', '[', ']':
			return pos + 2
		}
		panic(fmt.Sprintf("unknown escape at %d", pos))
	}
	_, n := utf8.DecodeRuneInString(p.src[pos:])
	return pos + n
}

func (p *llamaParser) peek(pos int) byte {
	if pos < len(p.src) {
		return p.src[pos]
	}
	return 0
}

func (p *llamaParser) alternates(pos int, name string, id uint32, nested bool) int {
	var rule []llamaElem
	pos = p.sequence(pos, name, &rule, nested)
	for p.peek(pos) == '|' {
		rule = append(rule, llamaElem{kind: llamaAlt})
		pos = p.space(pos+1, true)
		pos = p.sequence(pos, name, &rule, nested)
	}
	rule = append(rule, llamaElem{kind: llamaEnd})
	p.add(id, rule)
	return pos
}

func (p *llamaParser) sequence(pos int, name string, rule *[]llamaElem, nested bool) int {
	lastSym := len(*rule)
	prevRules := 1
	repeat := func(lo, hi int) { // hi < 0: no bound
		prev := append([]llamaElem(nil), (*rule)[lastSym:]...)
		total := 1
		if hi > 0 {
			total = hi
		} else if lo > 0 {
			total = lo
		}
		if prevRules*total >= llamaRepetitionThreshold {
			panic(fmt.Sprintf("a repetition of %d rules %d times at %d: llama.cpp refuses it", prevRules, total, pos))
		}
		if lo == 0 {
			*rule = (*rule)[:lastSym]
		} else {
			for i := 1; i < lo; i++ {
				*rule = append(*rule, prev...)
			}
		}
		opts := 1
		if hi >= 0 {
			opts = hi - lo
		}
		var last uint32
		for i := range opts {
			rec := append([]llamaElem(nil), prev...)
			id := p.generate(name)
			if i > 0 || hi < 0 {
				target := last
				if hi < 0 {
					target = id
				}
				rec = append(rec, llamaElem{kind: llamaRef, value: target})
			}
			rec = append(rec, llamaElem{kind: llamaAlt}, llamaElem{kind: llamaEnd})
			p.add(id, rec)
			last = id
		}
		if opts > 0 {
			*rule = append(*rule, llamaElem{kind: llamaRef, value: last})
		}
		prevRules *= total
	}
	for pos < len(p.src) {
		switch c := p.src[pos]; {
		case c == '"':
			pos++
			lastSym, prevRules = len(*rule), 1
			for p.src[pos] != '"' {
				pos = p.char(pos)
				*rule = append(*rule, llamaElem{kind: llamaChar})
			}
			pos = p.space(pos+1, nested)
		case c == '[':
			pos++
			if p.src[pos] == '^' {
				pos++
			}
			lastSym, prevRules = len(*rule), 1
			for p.src[pos] != ']' {
				pos = p.char(pos)
				*rule = append(*rule, llamaElem{kind: llamaChar})
				if p.src[pos] == '-' && p.src[pos+1] != ']' {
					pos = p.char(pos + 1)
					*rule = append(*rule, llamaElem{kind: llamaChar})
				}
			}
			pos = p.space(pos+1, nested)
		case llamaWordChar(c):
			name, end := p.name(pos)
			id := p.symbol(name)
			pos = p.space(end, nested)
			lastSym, prevRules = len(*rule), 1
			*rule = append(*rule, llamaElem{kind: llamaRef, value: id})
		case c == '(':
			pos = p.space(pos+1, true)
			before := len(p.ids)
			sub := p.generate(name)
			pos = p.alternates(pos, name, sub, true)
			prevRules = max(1, len(p.ids)-before)
			lastSym = len(*rule)
			*rule = append(*rule, llamaElem{kind: llamaRef, value: sub})
			if p.peek(pos) != ')' {
				panic(fmt.Sprintf("expecting ')' at %d", pos))
			}
			pos = p.space(pos+1, nested)
		case c == '.':
			lastSym, prevRules = len(*rule), 1
			*rule = append(*rule, llamaElem{kind: llamaChar})
			pos = p.space(pos+1, nested)
		case c == '*':
			pos = p.space(pos+1, nested)
			repeat(0, -1)
		case c == '+':
			pos = p.space(pos+1, nested)
			repeat(1, -1)
		case c == '?':
			pos = p.space(pos+1, nested)
			repeat(0, 1)
		case c == '{':
			pos = p.space(pos+1, nested)
			end := pos
			for p.src[end] >= '0' && p.src[end] <= '9' {
				end++
			}
			lo, _ := strconv.Atoi(p.src[pos:end])
			pos = p.space(end, nested)
			hi := lo
			if p.src[pos] == ',' {
				pos = p.space(pos+1, nested)
				hi = -1
				if end = pos; p.src[end] >= '0' && p.src[end] <= '9' {
					for p.src[end] >= '0' && p.src[end] <= '9' {
						end++
					}
					hi, _ = strconv.Atoi(p.src[pos:end])
					pos = p.space(end, nested)
				}
			}
			if p.src[pos] != '}' {
				panic(fmt.Sprintf("expecting '}' at %d", pos))
			}
			pos = p.space(pos+1, nested)
			if lo > llamaRepetitionThreshold || hi > llamaRepetitionThreshold {
				panic(fmt.Sprintf("a repetition of %d to %d at %d: llama.cpp refuses it", lo, hi, pos))
			}
			repeat(lo, hi)
		default:
			return pos
		}
	}
	return pos
}

// llamaParse parses a GBNF text as llama.cpp does and returns its rules,
// numbered as llama.cpp numbers them, or the reason it refuses the text.
func llamaParse(src string) (rules [][]llamaElem, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	p := &llamaParser{src: src, ids: map[string]uint32{}}
	pos := p.space(0, true)
	for pos < len(src) {
		name, end := p.name(pos)
		id := p.symbol(name)
		pos = p.space(end, false)
		if len(src) < pos+3 || src[pos:pos+3] != "::=" {
			return nil, fmt.Errorf("expecting ::= at %d", pos)
		}
		pos = p.alternates(p.space(pos+3, true), name, id, false)
		if p.peek(pos) == '\n' {
			pos++
		} else if pos < len(src) {
			return nil, fmt.Errorf("expecting a newline at %d", pos)
		}
		pos = p.space(pos, true)
	}
	for id, rule := range p.rules {
		if len(rule) == 0 {
			return nil, fmt.Errorf("rule %d is not defined", id)
		}
	}
	return p.rules, nil
}

// llamaLeftRecursionCheck is llama.cpp's check for left recursion over
// rules, and what it cost: visitCost and the rule's elements for each
// rule entered.
func llamaLeftRecursionCheck(rules [][]llamaElem) (cost int, recursive bool) {
	n := len(rules)
	visited, inProgress, mayBeEmpty := make([]bool, n), make([]bool, n), make([]bool, n)
	var walk func(r int) bool
	walk = func(r int) bool {
		if inProgress[r] {
			return true
		}
		inProgress[r] = true
		rule := rules[r]
		cost += visitCost + len(rule)
		atStart := true
		for _, e := range rule {
			if e.kind == llamaEnd || e.kind == llamaAlt {
				if atStart {
					mayBeEmpty[r] = true
					break
				}
				atStart = true
			} else {
				atStart = false
			}
		}
		recurse := true
		for _, e := range rule {
			switch {
			case e.kind == llamaRef && recurse:
				if walk(int(e.value)) {
					return true
				}
				if !mayBeEmpty[e.value] {
					recurse = false
				}
			case e.kind == llamaEnd || e.kind == llamaAlt:
				recurse = true
			default:
				recurse = false
			}
		}
		inProgress[r] = false
		visited[r] = true
		return false
	}
	for r := range n {
		if !visited[r] && walk(r) {
			return cost, true
		}
	}
	return cost, false
}

// Every grammar the compiler writes is one llama.cpp parses, without left
// recursion, and its check for left recursion costs no more than
// engineWalk estimated (the estimate is what the cap holds).
func TestLlamaLeftRecursionCheck(t *testing.T) {
	type schema struct {
		name   string
		schema json.RawMessage
		strict bool
	}
	var schemas []schema
	for _, f := range append(loadSuite(t), loadSuiteOptional(t)...) {
		for i, c := range f.cases {
			for _, strict := range []bool{false, true} {
				schemas = append(schemas, schema{fmt.Sprintf("%s#%d strict=%v", f.name, i, strict), c.Schema, strict})
			}
		}
	}
	for _, a := range dumpAttacks {
		schemas = append(schemas, schema{"attack " + a.name, json.RawMessage(a.schema), a.strict})
	}
	sizes := []int{1, 40, 300}
	if !testing.Short() {
		sizes = append(sizes, 1000)
	}
	for _, f := range dumpFamilies {
		for _, n := range append(sizes, 17) {
			if n <= f.max {
				schemas = append(schemas, schema{fmt.Sprintf("family %s n=%d", f.name, n), json.RawMessage(f.schema(n)), f.strict})
			}
		}
	}
	schemas = append(schemas,
		// Repeated groups that make many rules (splitGroups).
		schema{"nested counted groups", json.RawMessage(`{"type": "string", "pattern": "^(a{0,999}b){0,3}$"}`), false},
		schema{"nested counted groups 2", json.RawMessage(`{"type": "string", "pattern": "^((ab){0,40}c){0,60}$"}`), true},
		schema{"nested counted groups 3", json.RawMessage(`{"type": "string", "pattern": "^(x(a|b){0,100}){0,30}$"}`), true},
		schema{"fat ladder 8x40", json.RawMessage(fatLadder(8, 40)), false},
		schema{"fat ladder 12x10", json.RawMessage(fatLadder(12, 10)), false},
		schema{"1000 optional booleans", json.RawMessage(manyProperties(1000, `{"type": "boolean"}`)), false})
	type named struct {
		name string
		spec *Spec
	}
	var specs []named
	for _, s := range schemas {
		specs = append(specs, named{s.name, &Spec{Format: &Format{Schema: s.schema, Strict: s.strict}}})
	}
	// Tool calls, whose root holds the calls and their repetition.
	realistic := realisticTools(t)
	for _, choice := range []Choice{Auto, Required} {
		for _, parallel := range []bool{false, true} {
			specs = append(specs,
				named{fmt.Sprintf("realistic tools choice=%v parallel=%v", choice, parallel), &Spec{Tools: realistic, Choice: choice, Parallel: parallel}},
				named{fmt.Sprintf("property tools choice=%v parallel=%v", choice, parallel), &Spec{Tools: propertyTools, Choice: choice, Parallel: parallel}})
		}
	}
	checked, worst, worstName := 0, 0, ""
	for _, s := range specs {
		g, err := Compile(context.Background(), s.spec)
		if err != nil || g == nil { // nil: nothing to constrain (auto, no strict tool)
			continue
		}
		checked++
		rules, err := llamaParse(g.GBNF())
		if err != nil {
			t.Errorf("%s: llama.cpp would refuse the grammar: %v", s.name, err)
			continue
		}
		cost, recursive := llamaLeftRecursionCheck(rules)
		if recursive {
			t.Errorf("%s: llama.cpp would find left recursion", s.name)
		}
		if cost > g.leftmostWalk {
			t.Errorf("%s: llama.cpp's check costs %d, more than the %d estimated", s.name, cost, g.leftmostWalk)
		}
		if cost > worst {
			worst, worstName = cost, s.name
		}
	}
	if checked < 600 {
		t.Errorf("only %d grammars compiled", checked)
	}
	t.Logf("%d grammars checked; the costliest check: %d (%s)", checked, worst, worstName)
}

// A repeated group that would make llama.cpp refuse the grammar (2,000
// rules or more, llamaRepetitionLimit) is a rule of its own, and the
// grammar matches what the pattern does.
func TestRepeatedGroupsSplit(t *testing.T) {
	for _, c := range []struct {
		pattern  string
		ok, fail []string
	}{
		{`^(a{0,999}b){0,3}$`, []string{"", "b", "aab", "abab", "bbb"}, []string{"bbbb", "a", "aba"}},
		{`^((ab){0,40}c){0,60}$`, []string{"", "c", "ababc", "abcc"}, []string{"ab", "abac", "cab"}},
		{`^(x(a|b){0,100}){0,30}$`, []string{"", "x", "xab", "xaxbb"}, []string{"a", "xc"}},
	} {
		g, err := compileFormat(`{"type": "string", "pattern": `+strconv.Quote(c.pattern)+`}`, true)
		if err != nil {
			t.Errorf("%s: %v", c.pattern, err)
			continue
		}
		if _, err := llamaParse(g.GBNF()); err != nil {
			t.Errorf("%s: llama.cpp would refuse the grammar: %v", c.pattern, err)
		}
		for _, s := range c.ok {
			if !g.Matches(suiteText(`"` + s + `"`)) {
				t.Errorf("%s: %q rejected", c.pattern, s)
			}
		}
		for _, s := range c.fail {
			if g.Matches(suiteText(`"` + s + `"`)) {
				t.Errorf("%s: %q accepted", c.pattern, s)
			}
		}
	}
}
