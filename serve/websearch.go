package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/grammar"
)

// The hosted web search (issue 32 item 3; docs/gap-decisions.md 137 to
// 140): with WebSearch.Backend set, a Responses web_search tool or a
// Messages web_search_* server tool is run by the gateway itself. Beam's
// own built-in search and browse tools are declared in its place (page:
// Built-in tools), and when a generation calls them the gateway runs the
// calls (webfetch.go), renders their results into the prompt as tool
// results, and generates again, for a bounded number of rounds. The
// client sees each call as its API shows its own hosted search
// (websearch_reply.go).

// WebSearch configures the hosted web search. Backend empty leaves it off:
// hosted search tools are then left out and reported (or refused with
// RefuseHostedTools).
type WebSearch struct {
	// Backend is the base URL of a SearXNG-compatible search API, asked
	// GET {Backend}/search?q=QUERY&format=json.
	Backend string
	// AllowPrivate lets browse fetch pages at loopback, private,
	// link-local and other non-public addresses, refused by default (the
	// address is checked when it is dialled, after name resolution). The
	// search backend itself may be at any address.
	AllowPrivate bool
	// MaxRounds is the most generations of one request whose search and
	// browse calls are run; 0 means DefaultSearchRounds. The calls of the
	// next generation are answered with an error saying the limit is
	// reached, and the model generates once more; if it calls again, the
	// reply ends with those calls, failed.
	MaxRounds int
	// Timeout bounds the time one request spends running searches and
	// fetches, all of them together (each is also bounded by 20 s); 0
	// means DefaultSearchTimeout.
	Timeout time.Duration
}

// Defaults of WebSearch's fields.
const (
	DefaultSearchRounds  = 8
	DefaultSearchTimeout = 2 * time.Minute
)

func (w *WebSearch) maxRounds() int {
	if w.MaxRounds > 0 {
		return w.MaxRounds
	}
	return DefaultSearchRounds
}

func (w *WebSearch) timeout() time.Duration {
	if w.Timeout > 0 {
		return w.Timeout
	}
	return DefaultSearchTimeout
}

// The built-in tools' names (page: Built-in tools).
const (
	toolSearch = "search"
	toolBrowse = "browse"
)

// webSearch is one request's hosted web search: where the client asked
// for it, and what has run.
type webSearch struct {
	// path is the hosted tool's request path (tools[i]).
	path string
	// maxUses is the Messages tool's max_uses: the most searches the
	// request may run (0: no limit beyond the rounds).
	maxUses int
	// anthropic is set on the Messages API.
	anthropic bool
	// rules are the tool's domain lists, or nil.
	rules *domainRules
	// searches and fetches count the calls run, for usage.
	searches, fetches int
	// rounds are the generations that ended in built-in calls.
	rounds []*searchRound
	// spent is the time the calls have taken.
	spent time.Duration
	// pages are the pages fetched, by the URL browse was given, for
	// browse's pattern searches; at most maxPagesCached.
	pages []cachedPage
	// stopped is set when the reply ends with calls refused past the
	// round limit.
	stopped bool
	// prior sums the engine's usage over the earlier rounds; priorKnown
	// is false once a round had none.
	prior      usage
	priorKnown bool
}

type cachedPage struct {
	url  string
	page *webPage
}

// searchRound is a generation that called built-in tools: its reasoning
// and the calls.
type searchRound struct {
	reasoning string
	runs      []*toolRun
}

// toolRun is one built-in call and what came of it.
type toolRun struct {
	// id is the call's id, as the client sees it.
	id   string
	name string          // search or browse
	args json.RawMessage // the arguments, as generated
	// What the call asked: search's query; browse's url and pattern.
	query, url, pattern string
	hits                []searchHit
	page                *webPage
	err                 *toolError
	// text is the tool result, as the model reads it.
	text string
	// segments are the hits' parts of text (search), each sealed in its
	// web_search_result's encrypted_content.
	segments []string
}

// isBuiltinCall reports whether a call goes to the gateway's search.
func isBuiltinCall(name string) bool { return name == toolSearch || name == toolBrowse }

// isWebSearchTool reports whether a hosted tool type is a web search the
// gateway runs with --search-backend: Responses web_search (and its
// preview and dated variants), Messages web_search_*.
func isWebSearchTool(typ string) bool {
	return typ == "web_search" || strings.HasPrefix(typ, "web_search_")
}

// takeWebSearch reads a hosted web search tool at path when the server
// runs it, and reports whether it did. Options the gateway does not apply
// are reported; Anthropic's max_uses is honoured.
func (r *request) takeWebSearch(cfg *Config, path, typ string, raw json.RawMessage, anthropic bool) (bool, *apiError) {
	if cfg.WebSearch.Backend == "" || !isWebSearchTool(typ) {
		return false, nil
	}
	if r.search != nil {
		r.report(path, unhonouredHostedTool, "a second web search tool; the first, "+r.search.path+", runs the search")
		return true, nil
	}
	var opts map[string]json.RawMessage
	if err := json.Unmarshal(raw, &opts); err != nil {
		return false, paramError(path, "invalid_tool", "must be a tool object")
	}
	ws := &webSearch{path: path, anthropic: anthropic}
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range opts {
			if !yield(k) {
				return
			}
		}
	}) {
		v := opts[k]
		switch k {
		case "type", "name", "cache_control":
		case "max_uses":
			n, _, err := rawInt(v, path+".max_uses")
			if err != nil {
				return false, err
			}
			if n < 0 {
				return false, paramError(path+".max_uses", "invalid_value", "must not be negative")
			}
			ws.maxUses = int(min(n, 1<<20))
		case "allowed_domains", "blocked_domains":
			list, err := parseDomainList(v, path+"."+k)
			if err != nil {
				return false, err
			}
			if ws.rules == nil {
				ws.rules = &domainRules{}
			}
			if k == "allowed_domains" {
				ws.rules.allowed = list
			} else {
				ws.rules.blocked = list
			}
		case "filters":
			var f map[string]json.RawMessage
			if !isNull(v) {
				if json.Unmarshal(v, &f) != nil {
					return false, paramError(path+".filters", "invalid_value", "must be an object")
				}
			}
			for _, fk := range slices.Sorted(maps.Keys(f)) {
				fv := f[fk]
				if fk != "allowed_domains" {
					if !isNull(fv) {
						r.report(path+".filters."+fk, unhonouredField, "not applied by the gateway's web search (--search-backend)")
					}
					continue
				}
				list, err := parseDomainList(fv, path+".filters.allowed_domains")
				if err != nil {
					return false, err
				}
				if ws.rules == nil {
					ws.rules = &domainRules{}
				}
				ws.rules.allowed = list
			}
		case "external_web_access":
			if on, set, err := rawBool(v, path+"."+k); err != nil {
				return false, err
			} else if set && !on {
				r.report(path+"."+k, unhonouredField, "not applied: the gateway's search is live; it has no cached-only mode")
			}
		default:
			if !isNull(v) {
				r.report(path+"."+k, unhonouredField, "not applied by the gateway's web search (--search-backend), which runs every search as it is written")
			}
		}
	}
	if ws.rules != nil && len(ws.rules.allowed) > 0 && len(ws.rules.blocked) > 0 {
		return false, paramError(path, "invalid_tool", "allowed_domains and blocked_domains can't be used together; give one")
	}
	r.search = ws
	return true, nil
}

// declareSearch declares Beam's built-in search and browse for the
// request's hosted web search, or leaves the search out and reports why:
// a tool choice that demands a client tool (the model could not answer
// after searching), or a client tool already named search or browse.
func (r *request) declareSearch() {
	ws := r.search
	if ws == nil {
		return
	}
	why := ""
	switch {
	case r.toolsOff:
		r.search = nil
		return
	case r.constraint.choice == grammar.Required || r.constraint.choice == grammar.Named:
		why = "left out: the tool choice demands a call to one of the client's tools, so the model could not answer after searching"
	case hasTool(r.opts.Tools, toolSearch) || hasTool(r.opts.Tools, toolBrowse):
		why = "left out: a tool of the request is named search or browse, the names of Beam's built-in tools that would run it"
	}
	if why != "" {
		r.report(ws.path, unhonouredHostedTool, why)
		r.search = nil
		return
	}
	k := &r.constraint
	for len(k.strict) < len(r.opts.Tools) {
		k.strict = append(k.strict, false)
	}
	for len(k.toolSchemas) < len(r.opts.Tools) {
		k.toolSchemas = append(k.toolSchemas, "")
	}
	r.opts.Tools = append(r.opts.Tools, harmony.TrainedSearch(), harmony.TrainedBrowse())
	r.opts.BuiltinTools = append(r.opts.BuiltinTools, toolSearch, toolBrowse)
	r.parseTools = append(r.parseTools[:len(r.parseTools):len(r.parseTools)], harmony.TrainedSearch(), harmony.TrainedBrowse())
	k.strict = append(k.strict, false, false)
	k.toolSchemas = append(k.toolSchemas, ws.path, ws.path)
}

// searchStep is what follows a generation of a request with a hosted
// search.
type searchStep int

const (
	// searchAnswer: the generation is the reply (no built-in call).
	searchAnswer searchStep = iota
	// searchAgain: its built-in calls ran; generate again.
	searchAgain
	// searchStop: its built-in calls were refused past the round limit,
	// and the reply ends with them.
	searchStop
)

// searchWriter writes built-in calls into a stream as they run: the call
// as it starts, then its result. Both are called with the stream's lock
// held.
type searchWriter interface {
	searchStart(t *toolRun)
	searchDone(t *toolRun)
}

// afterGeneration decides what follows the generation msg of a request
// with a hosted search and, when it called built-in tools, runs them
// (writing each to w, when streaming) and renders the next prompt. A
// generation that also called client tools has those answered "not run"
// (gap decision 138): the client never sees them. The calls run only
// when the generation ended on its calls (finish stop); otherwise
// built-in calls are dropped from msg.
func (c *exchange) afterGeneration(msg *harmony.Message, end *genEnd, w searchWriter, lock func() func()) (searchStep, *apiError) {
	ws := c.req.search
	builtin := 0
	for i := range msg.ToolCalls {
		if isBuiltinCall(msg.ToolCalls[i].Function.Name) {
			builtin++
		}
	}
	if builtin == 0 {
		return searchAnswer, nil
	}
	if end.finish != "stop" || end.stop != "" {
		// Cut short (max tokens, a stop string): the calls are not
		// complete turns; the client tools' calls go out, these do not.
		msg.ToolCalls = slices.DeleteFunc(msg.ToolCalls, func(tc harmony.ToolCall) bool { return isBuiltinCall(tc.Function.Name) })
		end.calls = len(msg.ToolCalls)
		c.warnings = append(c.warnings, "dropped search or browse calls of a generation cut short")
		return searchAnswer, nil
	}
	limit := c.s.cfg.WebSearch.maxRounds()
	refuse, final := len(ws.rounds) >= limit, len(ws.rounds) > limit
	round := &searchRound{reasoning: msg.Reasoning}
	ws.rounds = append(ws.rounds, round)
	results := make([]harmony.Message, 0, len(msg.ToolCalls))
	for i := range msg.ToolCalls {
		tc := &msg.ToolCalls[i]
		if tc.ID == "" {
			tc.ID = newID("call_")
		}
		name := tc.Function.Name
		if !isBuiltinCall(name) {
			results = append(results, harmony.Message{Role: harmony.RoleTool, Name: name, ToolCallID: tc.ID,
				Content: "Not run: this call came in the same turn as a web search or browse, which the gateway ran itself; " +
					"call it again in a turn of its own if it is still needed."})
			continue
		}
		t := &toolRun{name: name, args: tc.Function.Arguments}
		t.id = newID("ws_")
		if ws.anthropic {
			t.id = newID("srvtoolu_")
		}
		t.readArgs()
		round.runs = append(round.runs, t)
		if w != nil {
			unlock := lock()
			w.searchStart(t)
			unlock()
		}
		c.runTool(t, refuse)
		if w != nil {
			unlock := lock()
			w.searchDone(t)
			unlock()
		}
		results = append(results, harmony.Message{Role: harmony.RoleTool, Name: name, ToolCallID: tc.ID, Content: t.text})
	}
	if final {
		c.warnings = append(c.warnings, "the model called search or browse past the limit of "+strconv.Itoa(limit)+" rounds; the reply ends with those calls")
		msg.Reasoning, msg.Content, msg.ToolCalls = "", "", nil
		end.calls = 0
		ws.stopped = true
		return searchStop, nil
	}
	assistant := harmony.Message{Role: harmony.RoleAssistant, Reasoning: msg.Reasoning, ToolCalls: msg.ToolCalls}
	c.req.messages = append(c.req.messages, assistant)
	c.req.messages = append(c.req.messages, results...)
	ws.addUsage(c.usage)
	c.usage = nil
	release, aerr := c.s.acquirePrepare(c.ctx)
	if aerr != nil {
		return 0, aerr
	}
	defer release()
	if aerr := c.render(); aerr != nil {
		return 0, aerr
	}
	return searchAgain, nil
}

// searchStopped reports whether the reply ends with built-in calls refused
// past the round limit, and so has no answer.
func (c *exchange) searchStopped() bool {
	return c.req != nil && c.req.search != nil && c.req.search.stopped
}

// addUsage adds a round's engine usage to the earlier rounds'.
func (ws *webSearch) addUsage(u *usage) {
	if len(ws.rounds) == 1 {
		ws.priorKnown = true
	}
	if u == nil {
		ws.priorKnown = false
		return
	}
	ws.prior.PromptTokens += u.PromptTokens
	ws.prior.CompletionTokens += u.CompletionTokens
	ws.prior.TotalTokens += u.TotalTokens
	ws.prior.CachedTokens += u.CachedTokens
	ws.prior.CachedKnown = ws.prior.CachedKnown || u.CachedKnown
}

// totalUsage sets the exchange's usage to the sum over its rounds: the
// usage a reply reports counts every generation of the request.
func (c *exchange) totalUsage() {
	ws := c.req.search
	if ws == nil || len(ws.rounds) == 0 || c.usage == nil && !ws.priorKnown {
		return
	}
	if !ws.priorKnown || c.usage == nil {
		c.usage = nil
		return
	}
	sum := ws.prior
	u := c.usage
	sum.PromptTokens += u.PromptTokens
	sum.CompletionTokens += u.CompletionTokens
	sum.TotalTokens += u.TotalTokens
	sum.CachedTokens += u.CachedTokens
	sum.CachedKnown = sum.CachedKnown || u.CachedKnown
	c.usage = &sum
}

// readArgs reads the call's arguments: search's query, browse's url and
// pattern.
func (t *toolRun) readArgs() {
	var a struct {
		Query   any `json:"query"`
		URL     any `json:"url"`
		Pattern any `json:"pattern"`
	}
	_ = json.Unmarshal(t.args, &a)
	str := func(v any) string {
		switch v := v.(type) {
		case string:
			return v
		case nil:
			return ""
		}
		b, _ := json.Marshal(v)
		return string(b)
	}
	t.query, t.url, t.pattern = str(a.Query), str(a.URL), str(a.Pattern)
}

// browseOptions are browse's options beside url and pattern.
type browseOptions struct {
	OutputMode   string `json:"output_mode"`
	IgnoreCase   bool   `json:"ignore_case"`
	ContextLines int    `json:"context_lines"`
	Multiline    bool   `json:"multiline"`
	MaxLines     *int   `json:"max_lines"`
	Offset       int    `json:"offset"`
}

// runTool runs one built-in call, or refuses it past the round limit, and
// sets its result text. A failure is a result the model reads, logged
// with what only the operator may see.
func (c *exchange) runTool(t *toolRun, refuse bool) {
	ws := c.req.search
	cfg := &c.s.cfg.WebSearch
	switch {
	case refuse:
		t.err = &toolError{code: "max_uses_exceeded", detail: "past the round limit",
			model: "not run: this request's limit of " + strconv.Itoa(cfg.maxRounds()) + " rounds of web search is reached; answer from what was found"}
	case t.name == toolSearch && ws.maxUses > 0 && ws.searches >= ws.maxUses:
		t.err = &toolError{code: "max_uses_exceeded", detail: "past max_uses",
			model: "not run: this request may search " + strconv.Itoa(ws.maxUses) + " times (max_uses), and has; answer from what was found"}
	case t.name == toolSearch && strings.TrimSpace(t.query) == "":
		t.err = &toolError{code: "invalid_tool_input", model: "search needs a query", detail: "empty query"}
	case t.name == toolSearch && len(t.query) > maxQueryBytes:
		t.err = &toolError{code: "query_too_long", model: "the query is longer than " + strconv.Itoa(maxQueryBytes) + " bytes", detail: "query too long"}
	case ws.spent >= cfg.timeout():
		t.err = &toolError{code: "unavailable", detail: "search time used up",
			model: "not run: this request's time for web search (" + cfg.timeout().String() + ") is used up; answer from what was found"}
	default:
		ctx, cancel := context.WithTimeout(c.ctx, min(maxToolTime, cfg.timeout()-ws.spent))
		start := time.Now()
		if t.name == toolSearch {
			ws.searches++
			t.hits, t.err = c.s.web.searchWeb(ctx, t.query)
			t.hits = ws.rules.filter(t.hits)
		} else {
			t.page, t.err = c.browsePage(ctx, t.url)
		}
		ws.spent += time.Since(start)
		cancel()
	}
	outcome := "ok"
	if t.err != nil {
		outcome = t.err.code
		c.warnings = append(c.warnings, t.name+" failed: "+t.err.Error())
	}
	c.s.metrics.webTools.With(t.name, outcome).Inc()
	t.render()
	if t.err == nil && t.name == toolBrowse && t.pattern != "" {
		var o browseOptions
		_ = json.Unmarshal(t.args, &o)
		text, err := findInPage(t.page, t.pattern, &o)
		if err != nil {
			t.err = &toolError{code: "invalid_tool_input", model: err.Error(), detail: "bad pattern"}
			t.render()
			return
		}
		t.text = safeToolText(text)
	}
}

// browsePage returns the page at raw, from the request's cache or
// fetched.
func (c *exchange) browsePage(ctx context.Context, raw string) (*webPage, *toolError) {
	ws := c.req.search
	for _, p := range ws.pages {
		if p.url == raw {
			return p.page, nil
		}
	}
	if _, terr := checkPageURL(raw); terr != nil {
		return nil, terr
	}
	if !ws.rules.allowsURL(raw) {
		return nil, notAllowedError(raw)
	}
	ws.fetches++
	p, terr := c.s.web.fetchPage(withDomainRules(ctx, ws.rules), raw)
	if terr != nil {
		return nil, terr
	}
	if len(ws.pages) == maxPagesCached {
		ws.pages = ws.pages[1:]
	}
	ws.pages = append(ws.pages, cachedPage{url: raw, page: p})
	return p, nil
}

// render sets the call's result text as the model reads it
// (gap decision 138): for a search, a header and one part per hit; for a
// browse, the page's address, title and text up to maxToolText.
func (t *toolRun) render() {
	switch {
	case t.err != nil:
		t.text = "Error: " + t.err.model
	case t.name == toolSearch:
		t.segments = make([]string, len(t.hits))
		for i, h := range t.hits {
			t.segments[i] = hitText(i+1, &h)
		}
		t.text = searchText(t.query, t.segments)
	default:
		t.text = pageText(t.page)
	}
	t.text = safeToolText(t.text)
}

// searchHeader heads a search's result text.
func searchHeader(query string) string { return "Search results for " + quoteText(query) + ":" }

// searchText is a search's result text from its hits' parts.
func searchText(query string, segments []string) string {
	if len(segments) == 0 {
		return "No results for " + quoteText(query) + "."
	}
	return searchHeader(query) + "\n\n" + strings.Join(segments, "\n\n")
}

// hitText is the part of a search's result text for hit n.
func hitText(n int, h *searchHit) string {
	var b strings.Builder
	b.WriteString("[" + strconv.Itoa(n) + "] " + h.Title + "\nURL: " + h.URL)
	if h.Age != "" {
		b.WriteString("\nPublished: " + h.Age)
	}
	if h.Content != "" {
		b.WriteString("\n" + h.Content)
	}
	return safeToolText(b.String())
}

// pageText is browse's preview of a page.
func pageText(p *webPage) string {
	var b strings.Builder
	b.WriteString("URL: " + p.URL)
	if p.Title != "" {
		b.WriteString("\nTitle: " + p.Title)
	}
	b.WriteString("\n\n")
	text := clip(p.Text, maxToolText)
	b.WriteString(text)
	if len(text) < len(p.Text) || p.Truncated {
		fmt.Fprintf(&b, "\n\n[Preview: the first %d of %d characters of the page's text", len(text), len(p.Text))
		if p.Truncated {
			b.WriteString(" (the page was longer than the gateway reads)")
		}
		b.WriteString("; pass a pattern to search the whole text.]")
	}
	return b.String()
}

// safeToolText keeps text from the web from forging the format's markers
// when the prompt goes to the engine as text: "<|" gets a zero-width
// space after its "<" (gap decision 138).
func safeToolText(s string) string {
	return strings.ReplaceAll(s, "<|", "<\u200b|")
}

// findInPage is browse with a pattern: the lines of the page's text the
// regular expression matches (multiline: matches may span lines), with
// context lines, from offset, at most max_lines (250; 0 for no limit), or
// their count; the output is capped at maxToolText.
func findInPage(p *webPage, pattern string, o *browseOptions) (string, error) {
	if len(pattern) > maxPatternBytes {
		return "", fmt.Errorf("the pattern is longer than %d bytes", maxPatternBytes)
	}
	flags := ""
	if o.IgnoreCase {
		flags += "i"
	}
	if o.Multiline {
		flags += "s"
	}
	expr := pattern
	if flags != "" {
		expr = "(?" + flags + ")" + pattern
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return "", fmt.Errorf("the pattern is not a regular expression Go's regexp (RE2) reads: %v", err)
	}
	lines := strings.Split(p.Text, "\n")
	matched := make([]bool, len(lines))
	count := 0
	if o.Multiline {
		starts := make([]int, len(lines)) // byte offset of each line
		off := 0
		for i, l := range lines {
			starts[i] = off
			off += len(l) + 1
		}
		lineAt := func(pos int) int {
			i, _ := slices.BinarySearch(starts, pos+1)
			return i - 1
		}
		for _, m := range re.FindAllStringIndex(p.Text, 10000) {
			for l := lineAt(m[0]); l <= lineAt(max(m[0], m[1]-1)); l++ {
				if !matched[l] {
					matched[l] = true
					count++
				}
			}
		}
	} else {
		for i, l := range lines {
			if re.MatchString(l) {
				matched[i] = true
				count++
			}
		}
	}
	head := "URL: " + p.URL + "\nPattern: " + pattern + "\n\n"
	if o.OutputMode == "count" {
		return head + strconv.Itoa(count) + " matching lines", nil
	}
	if count == 0 {
		return head + "No line matches.", nil
	}
	maxLines := 250
	if o.MaxLines != nil {
		maxLines = *o.MaxLines
	}
	ctxLines := max(0, min(o.ContextLines, 50))
	var b strings.Builder
	b.WriteString(head)
	shown, skipped, last := 0, 0, -2
	for i := range lines {
		if !matched[i] {
			continue
		}
		if skipped < o.Offset {
			skipped++
			continue
		}
		if maxLines > 0 && shown >= maxLines {
			fmt.Fprintf(&b, "[%d more matching lines; raise offset or max_lines to see them.]", count-o.Offset-shown)
			break
		}
		from, to := max(0, i-ctxLines), min(len(lines)-1, i+ctxLines)
		if ctxLines > 0 && last >= 0 && from > last+1 {
			b.WriteString("--\n")
		}
		for j := max(from, last+1); j <= to; j++ {
			sep := "-"
			if matched[j] {
				sep = ":"
			}
			b.WriteString(strconv.Itoa(j+1) + sep + " " + lines[j] + "\n")
		}
		last = to
		shown++
		if b.Len() > maxToolText {
			return clip(b.String(), maxToolText) + "\n[Output cut at " + strconv.Itoa(maxToolText) + " characters.]", nil
		}
	}
	return strings.TrimRight(b.String(), "\n"), nil
}
