package grammar

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/beamharmony/harmony"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/beamharmony/harmony/internal/pyjson"
	"github.com/beamharmony/harmony/internal/schema"
	"github.com/beamharmony/harmony/internal/syntax"
)

// Choice is what the client asks of the model's next move.
type Choice uint8

const (
	// Auto lets the model answer or call tools: no tool call is forced.
	Auto Choice = iota
	// None forbids tool calls.
	None
	// Required asks for one or more tool calls (Anthropic's "any").
	Required
	// Named asks for calls to one tool (Spec.Name).
	Named
)

// Tool is a tool the model may call: its name and JSON Schema parameters,
// and whether the client asked for the schema to be followed strictly (a
// keyword the grammar can't enforce is then an error, not dropped).
type Tool struct {
	Name       string
	Parameters json.RawMessage
	Strict     bool
}

// Format is a response format: the final message's content is JSON, an
// object when Schema is nil (json_object), else valid for Schema.
type Format struct {
	Schema json.RawMessage
	Strict bool
}

// Spec is what a grammar constrains: the tools (built-in ones included),
// the tool choice, whether several calls may come at once, and the
// response format.
type Spec struct {
	Tools    []Tool
	Choice   Choice
	Name     string // the tool of Named
	Parallel bool   // several calls allowed; false: exactly one
	Format   *Format
	// XGrammar compiles for xgrammar, the grammar engine of vLLM and
	// SGLang, which computes ahead which tokens each place of a grammar
	// allows. Inside a JSON string of counted characters it can decide
	// nearly no token ahead (a character is a choice of a class and an
	// escape, a rule a token runs past) and checks almost the whole
	// vocabulary at each token: about a tenth of a second a token for
	// Beam's 200,005, a stall of the engine's whole batch (gap decision
	// 266). So a string's maxLength in a schema that is not strict is left
	// out and reported in Dropped; under strict it is kept, its characters
	// (up to 64) written as chains of rules with the character's choice in
	// each, which xgrammar decides ahead (decision 267), longer ones as
	// such chains of 64 one after another (decision 271), and past 4,096
	// as units of 4,096 (or of 262,144) then the rest (decision 272). An
	// object's chain of at least 48 members is written in blocks, where
	// xgrammar goes on into about 2 sqrt(n) rules after a member rather
	// than into every later optional member's (decision 270; in one chain
	// again when the blocks would take the grammar past a cap). The
	// grammar is otherwise the same, and GBNF and EBNF both write it.
	XGrammar bool
	// unblocked writes the chains of members in one piece for xgrammar
	// too: Compile's compiles after a first that failed (gap decision
	// 270).
	unblocked bool
}

// Constrained reports whether spec asks for a grammar at all: a forced
// tool call, a response format, or under Auto a strict tool (its calls
// must follow its schema, while the model may still answer in free text).
// Otherwise (auto without strict tools, or none, and no format),
// generation stays free, as without this package.
func (s *Spec) Constrained() bool {
	return s.Format != nil || s.Choice == Required || s.Choice == Named || s.Choice == Auto && s.strictTools()
}

// strictTools reports whether any tool is strict.
func (s *Spec) strictTools() bool {
	for _, t := range s.Tools {
		if t.Strict {
			return true
		}
	}
	return false
}

// Grammar is a compiled grammar over the text Beam writes after the
// generation prompt: a reasoning message, then the calls or the final
// message the spec asks for.
type Grammar struct {
	rules  []rule // its own rules
	root   int
	text   string    // the grammar written out in GBNF (EBNF rewrites it, ebnf.go)
	ebnf   *ebnfMemo // a cached grammar's EBNF once written (write.go), shared by the entry's copies
	protos []protoAt // the shared sets of rules, and where each is written
	// leftmostWalk is what llama.cpp's check of the grammar for left
	// recursion costs, as estimated (engineWalk and the protos').
	leftmostWalk int
	// Dropped lists the keywords of non-strict schemas the grammar could
	// not enforce and left out.
	Dropped []Dropped
}

// Dropped is a schema keyword left out of a grammar.
type Dropped struct {
	Path    string // JSON path of the keyword: tools[0].function.parameters.properties.x.pattern
	Keyword string
}

func (d Dropped) String() string { return d.Path }

// Error is a constraint that can't be honoured: a keyword of a strict
// schema the grammar can't enforce, a schema no value satisfies, a size
// cap. Path names where, as a request's JSON path. It is the root
// package's error type, harmony.RenderError: one type carries the JSON path
// of what is wrong in a request, whether decoding, rendering or compiling
// its constraints found it, so that errors.As with either name finds it.
type Error = harmony.RenderError

// Limits on a compiled grammar. Each holds while the grammar is built:
// compiling stops at the first one passed, with an error naming the schema
// path being compiled.
const (
	// MaxRules caps the rules of one grammar.
	MaxRules = 20000
	// MaxBytes caps a grammar's text in either dialect.
	MaxBytes = 4 << 20
	// MaxDepth caps how deep schemas nest inline (a $ref is a rule of
	// its own, recursion included, and does not count).
	MaxDepth = 64
	// MaxCount caps minItems and maxItems (and minContains,
	// maxContains): a repetition is written out by some engines, so
	// larger bounds are not enforced (an error under strict). Counts past
	// 64 (chunkFrom) are written in chunks (chunkedRep).
	MaxCount = 1024
	// MaxLength caps minLength and maxLength. A length past 64 characters
	// (chunkFrom) is written in chunks, a rule of about the square root of
	// the length in characters repeated (longString), so that it costs an
	// engine a few hundred elements, not one per character.
	MaxLength = 1 << 20
)

// maxWork caps the work of one compilation, in bytes of expressions
// built (literals, members, variants), so that a large schema is refused
// before its expressions take much memory.
const maxWork = MaxBytes

// maxSchemaValues caps the JSON values (keys included) of a request's
// schemas together, counted before they are parsed (estimated from above
// by countValues, when their size lets them reach it) and after.
// Compiling costs memory per value (the parsed document, the index of a
// large object's members, a view of each property), so a dense schema of
// a few megabytes would take hundreds before a cap on the grammar refused
// it. The largest of
// JSONSchemaBench's 11,000 real-world schemas holds 41,000 values
// (countValues estimates it at 57,000).
const maxSchemaValues = 100000

// maxSchemaBytes caps the bytes of a request's schemas together, checked
// before they are read: reading is linear, but at the gateway's default
// body limit (16 MiB) even a schema of long descriptions or long $ref
// pointers took 70 to 150 ms and up to 100 MB, and at 4 MiB up to 55 ms
// (gap decision 246). The largest of JSONSchemaBench's real-world
// schemas is 0.94 MB, and a schema is written into the prompt too, whose
// default cap is 2 MiB as well (serve.DefaultMaxPromptBytes).
const maxSchemaBytes = 2 << 20

// maxRepetitions caps the sum of the counts of a grammar's bounded
// repetitions (minLength/maxLength, minItems/maxItems): each is expanded by
// the engines, so a schema of many long strings is a large grammar there
// even when each count is under MaxCount. Past it a count is not enforced
// (reported; an error under strict).
const maxRepetitions = 2048

// compiler compiles one spec.
type compiler struct {
	g      builder
	d      *pyjson.Doc // the schema being compiled
	root   int
	ptr    schema.Pointers
	strict bool
	// xgrammar is Spec.XGrammar: a string's maxLength is left out of the
	// schemas that are not strict. blocks writes long chains of members
	// in blocks (Spec.XGrammar, unless unblocked), and wroteBlocks says
	// that some chain was.
	xgrammar, blocks, wroteBlocks bool
	memo                          map[string]*expr // references to rules, by view (view.key)
	repCosts                      map[[2]int]int   // repetitionCost by count pair, past chunkFrom
	doc                           *pyjson.Doc      // the schemas' parsed form, one after the other
	// keysAt are the nodeKeys of the document's schema objects read so
	// far, by node, each in keyBlock (a block full is left to the
	// nodeKeys in it, and another made).
	keysAt   []*nodeKeys
	keyBlock []nodeKeys
	// chain holds the stack with() hands expand (view.ancestors), reused:
	// expand is done with it before the next with.
	chain []int
	depth int
	// cases are, for each if/then/else case (ifCases) being compiled, the
	// deepest branch it adds: where the depth of a chain of nested
	// conditions comes from, which check names.
	cases []string
	err   error
	// memberTypeWork is what is left, for one variantsOverlap, of the
	// schemas requiresAgainst may read for its members' types
	// (maxMemberTypeWork; decision 292).
	memberTypeWork int

	text   [2]*textLang // JSON string contents by context
	raw    *textLang    // raw argument values
	anyRef [2]*expr     // references to the rules of any JSON value, by context
	prefix string       // rule name prefix of the schema being compiled

	dropped []Dropped
	// rootOf is the schema whose unevaluatedProperties: false the view
	// being compiled enforces (-1: none).
	rootOf int
	// itemsRoot is the schema whose unevaluatedItems the view being
	// compiled enforces (-1: none), and propsRoot the schema whose
	// unevaluatedProperties beyond false it does (unevaluatedPropertiesOf).
	itemsRoot, propsRoot int
	// multipleDone: the view being compiled enforces its multipleOf
	// (multipleOf), or has no number for it to constrain.
	multipleDone bool
	// uniqueDone: no array of the view being compiled can hold two
	// elements, so its uniqueItems holds (uniqueVacuous).
	uniqueDone bool
	// uniqueDefer: dropUnenforced leaves the view's uniqueItems pending
	// (uniquePending, the paths; the view being compiled's from
	// uniqueFrom on) for viewArray to enforce (uniqueArray); viewBody
	// reports what is left.
	uniqueDefer   bool
	uniquePending []string
	uniqueFrom    int
	// notNodes are the schemas of the view being compiled whose not its
	// strings enforce (notString, decision 198; view.notStrings), for
	// dropUnenforced.
	notNodes []int
	reported map[string]bool // the paths in dropped

	ctx   context.Context
	work  int // maxWork's count
	nodes int // schema nodes compiled, to poll ctx now and then
	// pollAt is the work (maxWork's count) past which stop polls ctx
	// again, whatever nodes says: a few schemas can build much (one
	// long name, one long list).
	pollAt int
	reps   int // maxRepetitions's count
	// repLimit is this compilation's repetition budget: maxRepetitions,
	// or 0 when the counts took the grammar past maxExpanded (Compile).
	repLimit int
	// bigLists counts the enums and consts of more than maxListRetry
	// bytes of values written; dropLists, set when they took the grammar
	// past maxExpanded (Compile), has them reported instead (gap decision
	// 232).
	bigLists  int
	dropLists bool
	listOver  bool // a list alone was past maxExpanded (viewLiterals)
	// loosenPast, when not 0, is the engine's cost (builder.expanded)
	// past which a schema that is not strict, below the top of a tool's
	// arguments or a response format, is written as any JSON value and
	// reported (gap decision 236).
	loosenPast int
	// loosenable says that, with loosenPast 0, a schema the retry's
	// loosenPast would write as any JSON was compiled: without one, that
	// retry would only compile the same grammar again (Compile).
	loosenable bool
	// namesOver says that an object's members, their values aside, cost
	// more than maxExpanded (declaredMembers): the retry's loosened values
	// would not bring the grammar under it.
	namesOver bool
	// kept is where Compile keeps the last schema parsed for its next
	// compile (keptDoc), and lastRaw that schema.
	kept    *keptDoc
	lastRaw []byte
	// paths names the rule of each schema compiled, for the errors the
	// analysis of the finished grammar finds.
	paths []string
	// keyRest are the rules of a key's rest once it left keyExcept's
	// trie (raw, JSON), and keyEscape a JSON escape in a key.
	keyRest   [2]int
	keyEscape int
	// misspeltChecks counts the keys compared with the keywords, to find
	// the schemas that hold a misspelt one and to report them
	// (maxMisspeltChecks each).
	misspeltChecks [2]int
	// enumSets are the strings of long enums, by node (inEnum).
	enumSets map[int]map[string]bool
	// stringChecked are what stringIn reads of each view it is asked
	// about (stringChecksOf).
	stringChecked map[*view]*stringChecks
	// notStringsRead are notString's findings, by schema.
	notStringsRead map[int]notStringRead
	// keyNodes are keyExcept's trie nodes already written (raw, JSON),
	// by what they accept: nodes alike share one rule, in one trie or
	// across the grammar's tries.
	keyNodes [2]map[string]int
	// anyOfOf indexes the anyOfs of the schema being compiled: the anyOf
	// array of each of their elements (siblingMembers), built when first
	// needed.
	anyOfOf map[int]int
	// res indexes the schema's resources ($id), built at its first $ref.
	res *resourceIndex
	// localRefs are the local pointers ($ref "#/...") resolved so far, by
	// node: each is read once, however often its schema is (a pointer
	// may be thousands of characters long).
	localRefs map[int]int
	// keyWork is the work of the key automata built or given up
	// (maxKeyWorkTotal), and keyCost the engine's elements of those
	// built (maxKeyCostTotal).
	keyWork, keyCost int
	// patterns are the propertyNames patterns translated, by node;
	// regexps the regular expressions names are matched with, and
	// matchWork the work of matching (maxMatchWork).
	patterns  map[int]*expr
	regexps   map[*expr]nameMatcher
	matchWork int
	// patternTexts are the patterns translated so far, by text, and
	// patternBytes their bytes together (maxPatternBytes).
	patternTexts map[string]translated
	patternBytes int
	// aheadTexts are the patterns with lookahead assertions translated
	// so far (lookaheadsOf), by text; aheadNames their expressions as
	// key patterns, by node, and aheadDFAs the automata that match names
	// against them (aheadName, aheadMatches).
	aheadTexts map[string]aheadTranslated
	aheadNames map[int]*expr
	aheadDFAs  map[*expr]*keyDFA
	// trieNodes is the nodes of the key tries made (maxTrieNodes).
	trieNodes int
	// patternsLoosened is the patternProperties reported once the
	// matching work was spent (loosenPatternsOnce).
	patternsLoosened map[patternsAt]bool
	// checkWork is the steps of checking listed values (maxCheckWork).
	checkWork int
	// writtenValue and writtenNodes are the value shownInvalid checks and
	// the schemas of the view it checks it against (writtenValue -1:
	// none), for valueValidSkipping.
	writtenValue int
	writtenNodes []int
	// argCast is what the parser casts the raw argument being compiled
	// to (argCastOf), applied to the views compiled with xml set while
	// casting (decision 209).
	argCast argCast
	casting bool
	// rawMisread is, while a raw argument's strings are compiled, the
	// types the parser reads a text as that the argument's view admits
	// no value of (decision 306): texts spelling them are left out.
	rawMisread typeSet
	// misreadAuto lets the string automaton run without strict for
	// rawMisread's texts (viewString).
	misreadAuto bool
	// argView is the view of the argument being compiled, argWhole its
	// whole types (argWholeTypes), read once argWholeRead.
	argView      *view
	argWhole     typeSet
	argWholeRead bool
	// argRead: argProps and argExtra, the nodes of the loaded tool's
	// properties and additionalProperties as the parser reads them (-1:
	// none), are read (argCastOf).
	argRead            bool
	argProps, argExtra int
	// pruned: the analysis left out the parts no finite text matches
	// (pruneUnproductive), and runs once more.
	pruned bool
	// tops are the tools' arguments and the response format's value,
	// each of which must be able to match something.
	tops []top
	// values are the JSON values of the schemas loaded so far
	// (maxSchemaValues).
	values int
	// schemaBytes are the bytes of the schemas loaded so far
	// (maxSchemaBytes).
	schemaBytes int
	// refAlone: the schema being compiled declares draft 4, 6 or 7 in
	// its $schema, where a $ref's siblings are ignored (legacyDialect).
	refAlone bool
	// noDollarID: $id names no schema resource, as in draft 3 and 4,
	// whose identifier is id (gap decision 232).
	noDollarID bool
	// cur is the rule whose schema is being compiled (-1: none), and
	// unsat the reasons recorded by impossible, with the rule each was
	// found in.
	cur   int
	unsat []unsatReason
}

// unsatReason is why a part of the schema of rule can't be satisfied.
type unsatReason struct {
	rule int
	err  Error
}

// top is one tool's arguments or the response format's value, and the
// request path of its schema.
type top struct {
	e    *expr
	path string
}

// Compile compiles spec into a grammar, or returns nil when spec asks for
// no constraint (Constrained is false). The errors are *Error, or ctx's
// error when ctx ends first. The work is linear in the size of the
// schemas, and bounded: past MaxRules, MaxBytes or the engines' expanded
// size it stops with an error.
func Compile(ctx context.Context, spec *Spec) (*Grammar, error) {
	if !spec.Constrained() {
		return nil, nil
	}
	limit, dropLists := maxRepetitions, false
	var kept keptDoc // the last schema parsed, for the next compile
	g, over, err := compile(ctx, spec, limit, dropLists, 0, &kept)
	if err != nil && spec.XGrammar && !spec.unblocked {
		// For xgrammar, long chains of members are written in blocks,
		// each member once more (gap decision 270), in the first compile
		// only: past a cap, or for any other error, the grammar is
		// compiled once more in one chain if the first wrote blocks, and
		// so are the compiles below, as for the other engines, so that
		// xgrammar's grammar is refused or loosened only where theirs is.
		unblocked := *spec
		unblocked.unblocked = true
		spec = &unblocked
		if over.blocked && ctx.Err() == nil {
			g, over, err = compile(ctx, spec, limit, dropLists, 0, &kept)
		}
	}
	if over.counts || over.lists {
		// The grammar with its counts, or its long lists of values,
		// would cost an engine more than maxExpanded elements: once more
		// with none of the counts the budget covers, or none of the long
		// lists, each reported (an error under strict, naming it) rather
		// than the whole grammar refused. (Only a small compile is done
		// again for them.)
		if over.counts {
			limit = 0
		}
		dropLists = over.lists
		g, over, err = compile(ctx, spec, limit, dropLists, 0, &kept)
	}
	if over.schemas && spec.loose() {
		// Not strict, the schemas themselves take the grammar past the
		// cap: once more with the schemas compiled once half of the cap
		// is spent written as any JSON value, each reported (gap
		// decision 236). A strict schema is never loosened. Should that
		// fail too, the error is the one that names where the cap was
		// passed.
		if loose, _, lerr := compile(ctx, spec, limit, dropLists, loosenFrom, &kept); lerr == nil {
			return loose, nil
		}
	}
	return g, err
}

// keptDoc is the schema a compile parsed last (raw, its parse doc), kept
// when Compile compiles once more, so that the next compile does not
// parse and count it again: the schema that stopped a compile at a cap is
// the one it was reading, and the largest ones take half of a compile to
// parse and count (a 1.9 MB schema, 4 of 8 ms).
type keptDoc struct {
	raw []byte
	doc *pyjson.Doc
}

// loosenFrom is the engine's cost (builder.expanded) past which Compile's
// last retry writes a schema that is not strict as any JSON value: half of
// maxExpanded, so that the rules already begun (the objects and variants
// that hold the loosened schemas) have the other half to be finished.
const loosenFrom = maxExpanded / 2

// loose reports whether some schema of s is not strict.
func (s *Spec) loose() bool {
	if s.Format != nil && !s.Format.Strict {
		return true
	}
	for _, t := range s.Tools {
		if !t.Strict {
			return true
		}
	}
	return false
}

// overExpanded says why a compile failed on maxExpanded, when it might
// not once more without them: the counts of the repetition budget, the
// long lists of values; or schemas, neither of those. blocked says that
// the compile wrote chains of members in blocks (chainRules) and is small
// enough to be done again, whatever it failed on.
type overExpanded struct{ counts, lists, schemas, blocked bool }

// compile is Compile with the repetition budget repLimit, with dropLists
// the long lists of values reported rather than written, and with
// loosenPast > 0 the schemas that are not strict written as any JSON
// value once the grammar costs an engine more than loosenPast elements.
// over reports that it failed on maxExpanded after spending some of the
// budget or writing a long list, or neither.
func compile(ctx context.Context, spec *Spec, repLimit int, dropLists bool, loosenPast int, kept *keptDoc) (_ *Grammar, over overExpanded, _ error) {
	// What is needed only until the grammar is written out is borrowed:
	// the compiler itself, the rules' text and where each is in it, the
	// names and paths of the rules, the memo, the parsed schemas.
	sc := scratchPool.Get().(*scratch)
	c := &sc.c
	*c = compiler{ctx: ctx, rootOf: -1, itemsRoot: -1, propsRoot: -1, cur: -1, writtenValue: -1, repLimit: repLimit, dropLists: dropLists, loosenPast: loosenPast, kept: kept, xgrammar: spec.XGrammar, blocks: spec.XGrammar && !spec.unblocked}
	if sc.nameFn == nil {
		sc.nameFn = c.g.nameOf // c is always sc's
	}
	c.g.nameFn, c.tops = sc.nameFn, sc.tops[:0]
	c.g.rules = make([]rule, 0, 16)
	c.borrow(sc)
	defer c.giveBack(sc)
	// (before giveBack.) Only small compiles are done twice, so that no
	// request costs much more than one compile of the largest: schemas of
	// at most a tenth of maxSchemaValues that built at most a quarter of
	// maxWork.
	defer func() {
		small := c.values <= maxSchemaValues/10 && c.work <= maxWork/4
		over = overExpanded{
			counts:  small && c.g.overExpanded && c.reps > 0,
			lists:   small && (c.g.overExpanded || c.listOver) && c.bigLists > 0 && !c.dropLists,
			blocked: small && c.wroteBlocks,
		}
		// The loosened compile costs about as much as this one (a
		// loosened schema is not read further, but what holds it is),
		// so it is done for schemas of at most half of maxSchemaValues
		// (the largest real-world schema that needs it holds 41,000),
		// and only when it would write some schema as any JSON:
		// otherwise it would retrace this one to the same error, as for
		// one large object whose members' cost is counted once its rule
		// is written (gap decision 317).
		over.schemas = c.g.overExpanded && !over.counts && !over.lists && c.loosenPast == 0 && c.loosenable && !c.namesOver && c.values <= maxSchemaValues/2
		if (over.counts || over.lists || over.schemas) && kept != nil && c.lastRaw != nil {
			// Compiled once more: the last schema's parse goes to the
			// next compile, and the scratch gets a document of its own.
			*kept = keptDoc{c.lastRaw, c.doc}
			sc.doc = &pyjson.Doc{}
			c.doc = sc.doc
		}
	}()
	if c.ended() {
		return nil, overExpanded{}, c.err
	}
	root := c.g.declare("root")
	reasoning := c.reasoning()
	var tail *expr
	var callable []Tool
	switch spec.Choice {
	case Named:
		for _, t := range spec.Tools {
			if t.Name == spec.Name {
				callable = []Tool{t}
				break
			}
		}
		if callable == nil {
			return nil, overExpanded{}, &Error{Path: "tool_choice", Msg: fmt.Sprintf("names %q, which is not among the tools", spec.Name)}
		}
	case Required, Auto:
		callable = spec.Tools
	}
	if (spec.Choice == Required || spec.Choice == Named) && len(callable) == 0 {
		return nil, overExpanded{}, &Error{Path: "tool_choice", Msg: "asks for a tool call, but the request declares no tools"}
	}
	var calls *expr
	if len(callable) > 0 {
		calls = c.calls(spec, callable)
	}
	var final *expr
	switch {
	case c.err != nil:
	case spec.Format != nil && (spec.Choice == Auto || spec.Choice == None):
		final = c.final(spec.Format)
	case spec.Choice == Auto:
		// Strict tools under auto: the calls, or a free answer.
		final = c.freeFinal()
	}
	if c.err != nil {
		return nil, overExpanded{}, c.err
	}
	tail = alt(calls, final)
	if tail == nil {
		return nil, overExpanded{}, &Error{Path: c.what(spec), Msg: "no output satisfies the constraints"}
	}
	c.g.define(root, seq(reasoning, tail))
	if c.g.over != "" {
		return nil, overExpanded{}, &Error{Path: c.overPath(spec), Msg: c.g.over}
	}
	if c.ended() {
		return nil, overExpanded{}, c.err
	}
	lines, written, walk, err := c.analyze(root, sc)
	if err != nil {
		return nil, overExpanded{}, err
	}
	g := &Grammar{rules: c.g.rules, root: root, Dropped: c.dropped, protos: slices.Clone(c.g.protoAt), text: c.g.text(lines, written), leftmostWalk: walk}
	return g, overExpanded{}, nil
}

// borrow takes the memory of sc for the compiler's working state.
func (c *compiler) borrow(sc *scratch) {
	if sc.names == nil {
		sc.names, sc.next, sc.memo, sc.doc = map[string]int{}, map[string]int{}, map[string]*expr{}, &pyjson.Doc{}
	}
	c.g.spans, c.g.buf = sc.spans[:0], sc.buf[:0]
	c.g.names, c.g.next, c.memo, c.doc, c.paths = sc.names, sc.next, sc.memo, sc.doc, sc.paths[:0]
	c.keysAt, c.keyBlock = sc.keysAt[:0], sc.keyBlock[:0]
}

// giveBack returns the memory borrow took, cleared: it keeps nothing of
// the grammar alive. Maps grown large are dropped rather than kept (a
// map's clear costs its size).
func (c *compiler) giveBack(sc *scratch) {
	sc.spans, sc.buf = c.g.spans[:0], c.g.buf[:0]
	clear(c.paths)
	sc.paths = c.paths[:0]
	if len(c.g.names) > 128 || len(c.g.next) > 128 || len(c.memo) > 128 || cap(c.doc.Nodes) > 1<<16 {
		sc.names = nil // made again at the next borrow
	} else {
		clear(c.g.names)
		clear(c.g.next)
		clear(c.memo)
	}
	c.doc.Src, c.doc.Text = nil, ""
	clear(c.keysAt)
	sc.keysAt, sc.keyBlock = c.keysAt[:0], c.keyBlock[:0]
	clear(c.tops)
	sc.tops = c.tops[:0]
	*c = compiler{} // nothing of the grammar kept alive
	sc.release()
}

// setPath records that rule r compiles the schema at path.
func (c *compiler) setPath(r int, path string) {
	for len(c.paths) <= r {
		c.paths = append(c.paths, "")
	}
	c.paths[r] = path
}

// pathOf is the path of the schema rule r compiles ("": none).
func (c *compiler) pathOf(r int) string {
	if r < len(c.paths) {
		return c.paths[r]
	}
	return ""
}

// what is the request field a whole grammar answers for: the response
// format's schema, the tools' or the tool choice.
func (c *compiler) what(spec *Spec) string {
	switch {
	case spec.Format != nil && spec.Choice != Required && spec.Choice != Named && len(spec.Tools) == 0:
		return "response_format.json_schema.schema"
	case spec.Choice == Required || spec.Choice == Named:
		return "tool_choice"
	}
	return "tools"
}

// overPath is the request field to name when the grammar passed a cap only
// as its last rules were written (the calls, the root): the schema whose
// expression, written into those rules, costs the most, since that is what
// took the grammar past the cap (a tool's parameters of one long key);
// what(spec) when no schema was compiled.
func (c *compiler) overPath(spec *Spec) string {
	path, most := c.what(spec), -1
	for _, t := range c.tops {
		if t.e == nil {
			continue
		}
		if cost := expandedCost(t.e); cost > most {
			path, most = t.path, cost
		}
	}
	return path
}

// stop reports whether compiling must stop: an error was recorded, a cap
// was passed (recorded as an error at path), or ctx ended. It polls ctx
// every 64 calls.
func (c *compiler) stop(path string) bool {
	if c.err != nil {
		return true
	}
	if c.g.over != "" {
		c.fail(path, c.g.over)
		return true
	}
	if c.work > maxWork {
		c.fail(path, "the schemas are too large to compile (more than "+itoa(maxWork)+" bytes of grammar expressions); simplify them")
		return true
	}
	c.nodes++
	if c.nodes%64 == 0 || c.work >= c.pollAt {
		c.pollAt = c.work + pollEvery
		return c.ended()
	}
	return false
}

// pollEvery is the work (bytes of expressions) between two polls of a
// compile's context, at most: with the 64 schema nodes between two
// others, a compile stops within a millisecond or so of its request's
// end.
const pollEvery = 16 << 10

// ended reports whether the compile's context has ended, recording its
// error: polled by stop, and before a compile starts, after each schema
// is parsed, before each pattern is translated (patternOf) and before the
// finished grammar is analysed (gap decision 318).
func (c *compiler) ended() bool {
	if c.ctx == nil {
		return false
	}
	if err := c.ctx.Err(); err != nil {
		c.err = err
		return true
	}
	return false
}

// spend counts n bytes of expressions built at path against maxWork and
// reports whether compiling may go on.
func (c *compiler) spend(path string, n int) bool {
	c.work += n
	return !c.stop(path)
}

// reasoning is Beam's analysis message: non-empty text without a marker.
func (c *compiler) reasoning() *expr {
	r := reasoningExprs()
	c.g.instantiate(r.lang.p)
	return r.analysis
}

// reasoningExprs are the reasoning's language (a proto) and the
// expressions of the messages that use it, built once.
var reasoningExprs = sync.OnceValue(func() (r struct {
	lang            *textLang
	analysis, final *expr
}) {
	r.lang = &textLang{forbidden: syntax.Markers[:]}
	r.lang.share("reasoning")
	r.analysis = seq(lit(syntax.Channel+syntax.ChannelAnalysis+syntax.Message), r.lang.first(), lit(syntax.End))
	r.final = seq(lit(syntax.Start+syntax.Assistant+syntax.Channel+syntax.ChannelFinal+syntax.Message), r.lang.first())
	return r
})

// calls is one tool call, or with Parallel one or more, each a message of
// its own, all but the last ending with <|end|>. The last ends where its
// arguments end: <|call|> is an end-of-generation token to the engines
// (llama.cpp counts it as one and masks it until the grammar is complete;
// vLLM and SGLang allow only end tokens then), so the engine writes it, or
// another end token, or stops on it as a stop string.
func (c *compiler) calls(spec *Spec, tools []Tool) *expr {
	var alts []*expr
	for i, t := range tools {
		if c.err != nil {
			break // a tool failed: the others are not compiled (100,000 tools took 70 ms)
		}
		path := "tools[" + strconv.Itoa(i) + "].function.parameters"
		if spec.Choice == Named {
			path = "tools[" + strconv.Itoa(toolIndex(spec.Tools, t.Name)) + "].function.parameters"
		}
		args := c.arguments(t, path)
		c.tops = append(c.tops, top{args, path})
		header := syntax.Start + syntax.Assistant + " " + syntax.RecipientPrefix + t.Name + syntax.CallHeaderEnd
		alts = append(alts, seq(lit(header), args))
	}
	call := ref(c.g.rule("call", alt(alts...)))
	if spec.Parallel {
		return seq(call, star(seq(lit(syntax.End), call)))
	}
	return call
}

func toolIndex(tools []Tool, name string) int {
	for i, t := range tools {
		if t.Name == name {
			return i
		}
	}
	return 0
}

// final is the final message whose content is JSON for the format. It ends
// where the content ends: <|return|> is the end-of-sequence token, which
// every engine allows once the grammar is complete.
func (c *compiler) final(f *Format) *expr {
	header := finalMessageHeader
	if f.Schema == nil {
		c.d, c.root = nil, 0
		obj := c.g.rule("content", seq(lit("{"), c.freeMembers(inContent), lit("}")))
		return seq(header, ref(obj))
	}
	if !c.load(f.Schema, "response_format.json_schema.schema", f.Strict, "content") {
		return nil
	}
	value := c.jsonValue(c.root, inContent, "response_format.json_schema.schema")
	c.tops = append(c.tops, top{value, "response_format.json_schema.schema"})
	return seq(header, value)
}

var finalMessageHeader = lit(syntax.Start + syntax.Assistant + syntax.Channel + syntax.ChannelFinal + syntax.Message)

// freeFinal is a final message of free text, non-empty and without a
// marker (the reasoning's language): under Auto with strict tools, the
// answer the model may give instead of calls. It ends where the text ends.
func (c *compiler) freeFinal() *expr {
	r := reasoningExprs()
	c.g.instantiate(r.lang.p)
	return r.final
}

// freeMembers is an object's members, any keys and values, in ctx.
func (c *compiler) freeMembers(ctx textContext) *expr {
	key := seq(lit(`"`), c.stringText(ctx).state(0), lit(`"`))
	member := seq(key, lit(": "), c.anyJSON(ctx))
	return opt(seq(member, star(seq(lit(", "), member))))
}

// load parses a schema for compiling; a schema that is not JSON is an
// error at path.
func (c *compiler) load(raw json.RawMessage, path string, strict bool, prefix string) bool {
	c.strict, c.prefix = strict, prefix
	c.ptr.Reset()
	clear(c.memo)
	c.anyOfOf, c.res, c.patterns, c.localRefs = nil, nil, nil, nil
	c.argRead = false           // (each tool's parameters are a document of their own)
	c.notNodes = c.notNodes[:0] // node numbers are the document's
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage(`{}`)
	}
	c.lastRaw = raw
	if c.schemaBytes += len(raw); c.schemaBytes > maxSchemaBytes {
		c.fail(path, "the schemas are too large to compile ("+itoa(c.schemaBytes)+" bytes of JSON together, more than "+itoa(maxSchemaBytes)+"); simplify them")
		return false
	}
	if k := c.kept; k != nil && k.doc != nil && len(raw) > 0 && len(raw) == len(k.raw) && &raw[0] == &k.raw[0] {
		// The schema the previous compile parsed last, counted and
		// parsed there with the same schemas before it: its parse, once.
		d := k.doc
		k.doc = nil
		c.doc = d // (the later schemas, if any, are parsed into it)
		return c.loaded(d)
	}
	// A JSON value takes at least two bytes (1,) beside the brackets: a
	// schema that can't reach the cap is not scanned.
	d := c.doc
	if len(raw)/2+2 > maxSchemaValues-c.values {
		n := countValues(raw)
		if c.values+n > maxSchemaValues {
			c.fail(path, "the schemas are too large to compile (about "+itoa(c.values+n)+" JSON values together, more than "+itoa(maxSchemaValues)+"); simplify them")
			return false
		}
		// The tape at its size (at most half as large again) once, not
		// grown by doubling.
		d.Nodes = slices.Grow(d.Nodes[:0], n)
	}
	err := d.Parse(raw)
	if err != nil {
		c.fail(path, "not valid JSON: "+err.Error())
		return false
	}
	if c.ended() {
		return false
	}
	d.Text = string(raw) // names and keywords read as substrings of one copy
	return c.loaded(d)
}

// loaded makes d, a schema parsed, the one compiled.
func (c *compiler) loaded(d *pyjson.Doc) bool {
	c.values += len(d.Nodes)
	c.d, c.root = d, 0
	c.refAlone, c.noDollarID = false, false
	if d.Kind(0) == pyjson.Object {
		if s := d.Lookup(0, "$schema"); s >= 0 && d.Kind(s) == pyjson.String {
			c.refAlone, c.noDollarID = legacyDialect(d.Str(s)), draftBeforeSix(d.Str(s))
		}
	}
	c.keysAt = zeroed(&c.keysAt, len(d.Nodes))
	return true
}

// legacyDialect reports whether uri, a schema's $schema, names JSON
// Schema draft 3, 4, 6 or 7, where "$ref" stands for its target and the
// keywords beside it are ignored; from 2019-09 on they apply with it, as
// they do when $schema is absent or unknown.
func legacyDialect(uri string) bool {
	uri = strings.TrimPrefix(strings.TrimPrefix(uri, "http://"), "https://")
	uri = strings.TrimSuffix(strings.TrimSuffix(uri, "#"), "/")
	switch uri {
	case "json-schema.org/draft-03/schema", "json-schema.org/draft-04/schema",
		"json-schema.org/draft-06/schema", "json-schema.org/draft-07/schema":
		return true
	}
	return false
}

// draftBeforeSix reports whether uri, a schema's $schema, names JSON
// Schema draft 3 or 4, where "$id" is no keyword (their identifier is
// "id").
func draftBeforeSix(uri string) bool {
	uri = strings.TrimPrefix(strings.TrimPrefix(uri, "http://"), "https://")
	uri = strings.TrimSuffix(strings.TrimSuffix(uri, "#"), "/")
	return uri == "json-schema.org/draft-03/schema" || uri == "json-schema.org/draft-04/schema"
}

// countValues estimates the JSON values (keys included) in src, from
// above, by a linear scan that skips strings: a ':' counts a key and its
// value, a ',' or an opening bracket one more (so an object's members are
// counted one and a half times, an array's elements once). Bytes that are
// not JSON are counted alike; the parse refuses them.
func countValues(src []byte) int {
	n := 1
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '"':
			// To the closing quote: past escapes (and the control
			// characters ScanString also stops at).
			for i = pyjson.ScanString(src, i+1); i < len(src) && src[i] != '"'; i = pyjson.ScanString(src, i) {
				if src[i] == '\\' {
					i++
				}
				i++
			}
		case ':':
			n += 2
		case ',', '[', '{':
			n++
		}
	}
	return n
}

// fail records the first error.
func (c *compiler) fail(path, msg string) {
	if c.err == nil {
		c.err = &Error{Path: path, Msg: msg}
	}
}

// impossible records that the schema at path admits no value (why), where
// the caller compiles that part to match nothing. As JSON Schema means,
// that only leaves it out where something else may stand instead (an
// optional property, one of several variants or types); the analysis of
// the finished grammar refuses the request when it leaves a tool's
// arguments or the response format with no value, naming this path and
// reason when the rule it was found in is the one at fault.
func (c *compiler) impossible(path, why string) {
	c.unsat = append(c.unsat, unsatReason{c.cur, Error{Path: path, Msg: why}})
}

// drop records a keyword the grammar leaves out; under strict, an error.
func (c *compiler) drop(path, keyword string) {
	if c.strict {
		c.fail(path, "the keyword "+keyword+" can't be enforced in constrained generation; remove it or turn strict off")
		return
	}
	c.report(path, keyword)
}

// report adds a keyword to Dropped, once however many views hold its
// schema.
func (c *compiler) report(path, keyword string) {
	if len(c.dropped) < 16 {
		// A few: found by looking at each.
		for _, d := range c.dropped {
			if d.Path == path {
				return
			}
		}
		c.dropped = append(c.dropped, Dropped{path, keyword})
		return
	}
	if c.reported == nil {
		c.reported = map[string]bool{}
		for _, d := range c.dropped {
			c.reported[d.Path] = true
		}
	}
	if !c.reported[path] {
		c.reported[path] = true
		c.dropped = append(c.dropped, Dropped{path, keyword})
	}
}

// loosen records a keyword the grammar enforces only loosely (a superset of
// what it allows): reported as dropped, an error under strict.
func (c *compiler) loosen(path, keyword, why string) {
	if c.strict {
		c.fail(path, "the keyword "+keyword+" can't be enforced exactly in constrained generation: "+why+"; change it or turn strict off")
		return
	}
	c.report(path, keyword)
}

// check bounds the inline nesting of schemas.
func (c *compiler) check(path string) error {
	if c.depth >= MaxDepth {
		why := "schema nested deeper than " + strconv.Itoa(MaxDepth) + " levels"
		if n := len(c.cases); n > 0 {
			// Each case of an if/then/else chain is a level, though it
			// keeps the path of the object it is a case of: name the
			// branch the chain reached.
			why += ", " + strconv.Itoa(n) + " of them if/then/else cases, the deepest " + c.cases[n-1]
		}
		c.fail(path, why)
		return errors.New("too deep")
	}
	return nil
}

// nameFor is a rule name for the schema at path.
func (c *compiler) nameFor(path string) string {
	if i := strings.LastIndexAny(path, ".["); i >= 0 {
		path = path[i+1:]
	}
	return c.prefix + "-" + path
}

// An otherKeyword is a keyword Keys does not hold, which the grammar
// enforces only in the cases the checks below handle: its index in
// unenforced.
type otherKeyword int

const (
	kwIf otherKeyword = iota
	kwThen
	kwElse
	kwDependentSchemas
	kwUnevaluatedProperties
	kwUnevaluatedItems
	kwDependencies
	kwContentEncoding
	kwContentMediaType
	kwContentSchema
	kwDynamicRef
	kwRecursiveRef
)

// unenforced are the keywords the grammar can't enforce, besides those
// Keys holds and the checks below handle, by otherKeyword.
var unenforced = [...]string{kwIf: "if", kwThen: "then", kwElse: "else",
	kwDependentSchemas: "dependentSchemas", kwUnevaluatedProperties: "unevaluatedProperties",
	kwUnevaluatedItems: "unevaluatedItems", kwDependencies: "dependencies",
	kwContentEncoding: "contentEncoding", kwContentMediaType: "contentMediaType",
	kwContentSchema: "contentSchema", kwDynamicRef: "$dynamicRef", kwRecursiveRef: "$recursiveRef"}

// reportsOther reports whether schema s holds a keyword of unenforced
// (written without escapes), and whether it may (a key written with
// escapes may be one).
func (c *compiler) reportsOther(s int) (found, may bool) {
	c.d.Members(s, func(k, _ int) bool {
		raw := c.d.Raw(k)
		found = len(raw) >= 2 && isUnenforced(raw[1:len(raw)-1])
		may = may || found || c.d.Nodes[k].Escaped
		return !found
	})
	return found, may
}

// otherKey is d.Lookup(n.node, unenforced[kw]), read once per schema
// (nodeKeys).
func (c *compiler) otherKey(n *vnode, kw otherKeyword) int {
	if !n.mayOther {
		return -1
	}
	return int(n.keys.others[kw])
}

// unenforcedAt is the otherKeyword named name, -1 when it is none
// (TestUnenforcedAt keeps it and unenforced the same).
func unenforcedAt(name []byte) otherKeyword {
	switch string(name) {
	case "if":
		return kwIf
	case "then":
		return kwThen
	case "else":
		return kwElse
	case "dependentSchemas":
		return kwDependentSchemas
	case "unevaluatedProperties":
		return kwUnevaluatedProperties
	case "unevaluatedItems":
		return kwUnevaluatedItems
	case "dependencies":
		return kwDependencies
	case "contentEncoding":
		return kwContentEncoding
	case "contentMediaType":
		return kwContentMediaType
	case "contentSchema":
		return kwContentSchema
	case "$dynamicRef":
		return kwDynamicRef
	case "$recursiveRef":
		return kwRecursiveRef
	}
	return -1
}

// isUnenforced reports whether name is one of unenforced.
func isUnenforced(name []byte) bool { return unenforcedAt(name) >= 0 }

// dropUnenforced drops the keywords of schema s that the grammar can't
// enforce (done: what the view already distributed of s, doneIf among
// them).
func (c *compiler) dropUnenforced(s int, ks *schema.Keys, path string, nk *nodeKeys, done uint8) {
	d := c.d
	if nk.misspelt {
		c.dropMisspelt(s, path)
	}
	for _, kw := range [...]struct {
		name string
		node int
	}{{"not", ks.Not}, {"multipleOf", ks.Mult}} {
		if kw.node >= 0 {
			if _, exact := notTypes(d, s); kw.name == "not" && exact {
				continue // applied to the view's types (types)
			}
			if kw.name == "not" && slices.Contains(c.notNodes, s) {
				continue // applied to the view's strings (viewString)
			}
			if kw.name == "multipleOf" && c.multipleDone {
				continue // applied to the view's numbers (viewNumber)
			}
			c.drop(path+"."+kw.name, kw.name)
		}
	}
	if ks.UniqueItems >= 0 && d.Kind(ks.UniqueItems) == pyjson.True && !c.uniqueDone {
		if c.uniqueDefer {
			c.uniquePending = append(c.uniquePending, path+".uniqueItems")
		} else {
			c.drop(path+".uniqueItems", "uniqueItems")
		}
	}
	for i, kw := range unenforced {
		if !nk.mayOther {
			break
		}
		if n := int(nk.others[i]); n >= 0 {
			if kw == "unevaluatedProperties" && d.Kind(n) == pyjson.False && c.rootOf == s {
				continue // enforced: the object it is the root of is closed
			}
			if kw == "unevaluatedItems" && c.itemsRoot == s {
				continue // enforced: the array's unevaluated elements take it (viewArray)
			}
			if kw == "unevaluatedProperties" && (c.propsRoot == s || anySchema(d, n)) {
				continue // enforced, or it constrains nothing (unevaluatedPropertiesOf)
			}
			if kw == "$dynamicRef" && c.resolveDynamic(s, n) >= 0 {
				continue // followed, as the view holds its target
			}
			if kw == "if" || kw == "then" || kw == "else" {
				if _, known := conditionKnown(d, s); known || done&doneIf != 0 {
					continue // applied by the view (expand), or nothing to apply
				}
			}
			if kw == "dependentSchemas" || kw == "dependencies" {
				continue // objects apply it (dependentObjects, declaredMembers), other values aren't constrained
			}
			c.drop(path+"."+kw, kw)
		}
	}
}

// counts reads a pair of count keywords (minLength/maxLength,
// minItems/maxItems) of one schema at path: lo, and hi (-1: none). A count
// that is not a whole number from 0 to MaxCount is left out (reported).
// lo may be greater than hi (noLength).
func (c *compiler) counts(minNode, maxNode int, path, what string) (lo, hi int) {
	hi = -1
	limit := MaxCount
	if what == "Length" {
		limit = MaxLength
	}
	if v, ok := c.readCountUpTo(minNode, path, "min"+what, limit); ok {
		lo = v
	}
	if v, ok := c.readCountUpTo(maxNode, path, "max"+what, limit); ok {
		hi = v
	}
	return lo, hi
}

// readCount reads count keyword kw of the schema at path, at node n (-1:
// absent): a whole number from 0 to MaxCount, else left out (reported).
func (c *compiler) readCount(n int, path, kw string) (int, bool) {
	return c.readCountUpTo(n, path, kw, MaxCount)
}

// readCountUpTo is readCount with limit in place of MaxCount.
func (c *compiler) readCountUpTo(n int, path, kw string, limit int) (int, bool) {
	d := c.d
	if n < 0 {
		return 0, false
	}
	if d.Kind(n) != pyjson.Number || !isIntegral(string(d.Raw(n))) {
		c.drop(path+"."+kw, kw)
		return 0, false
	}
	v, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSuffix(string(d.Raw(n)), ".0"), "."))
	if err != nil || v < 0 || v > limit {
		c.drop(path+"."+kw, kw)
		return 0, false
	}
	return v, true
}

// isIntegral reports whether a JSON number literal is an integer value
// (3, 3.0, 3e2).
func isIntegral(s string) bool {
	if pyjson.IsIntegerLiteral(s) {
		return true
	}
	mant, exp, _ := strings.Cut(strings.ToLower(s), "e")
	ip, fp, _ := strings.Cut(mant, ".")
	_ = ip
	e := 0
	if exp != "" {
		n, err := strconv.Atoi(exp)
		if err != nil {
			return false
		}
		e = n
	}
	fp = strings.TrimRight(fp, "0")
	return len(fp) <= e
}
