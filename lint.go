package harmony

import (
	"encoding/json"
	"strconv"
	"sync"
)

// Warning is a problem found in what renders or parses but is likely to
// mislead the model or its reader: Lint's findings in a request, and
// Parse's in a generation. Path names the value, as in RenderError; it is
// empty for a generation's warnings, generated text having no JSON path.
type Warning struct {
	Path string
	Msg  string
}

// String returns "path: message", or the message alone when there is no
// path (as RenderError.Error does).
func (w Warning) String() string {
	if w.Path == "" {
		return w.Msg
	}
	return w.Path + ": " + w.Msg
}

// trainedSearch and trainedBrowse are the definitions of the built-in
// tools Beam was trained with (page: Built-in tools); TrainedSearch and
// TrainedBrowse hand out copies.
var (
	trainedSearch = Tool{Type: "function", Function: Function{
		Name:        "search",
		Description: "Search for content on the internet using a search engine. The search results include the website title, address (URL), and description.",
		Parameters:  json.RawMessage(`{"type": "object", "properties": {"query": {"type": "string", "description": "The search query."}}, "required": ["query"]}`),
	}}
	trainedBrowse = Tool{Type: "function", Function: Function{
		Name:        "browse",
		Description: "Visit a webpage and inspect its content. Pass only a URL to fetch/cache the page and return an approximately 8000-token preview; include a regex pattern to search the full cached page content without a sandbox. Search results are also capped around 8000 tokens.",
		Parameters: json.RawMessage(`{"type": "object", "properties": {` +
			`"url": {"type": "string", "description": "The website address (URL) of the content to be obtained, which can usually be obtained from search results. The page is cached by URL for later searches on this tool instance."}, ` +
			`"pattern": {"type": "string", "description": "Optional regular expression pattern. If omitted, the tool fetches and caches the page while returning a capped preview; if provided, it searches the full cached page text."}, ` +
			`"output_mode": {"type": "string", "enum": ["content", "count"], "default": "content", "description": "Search output mode: content returns matching lines; count returns only the number of matching lines."}, ` +
			`"ignore_case": {"type": "boolean", "default": false, "description": "Search without matching letter case."}, ` +
			`"context_lines": {"type": "integer", "default": 0, "description": "Number of lines before and after each matching line."}, ` +
			`"multiline": {"type": "boolean", "default": false, "description": "Allow the regular expression to match across line breaks."}, ` +
			`"max_lines": {"type": "integer", "default": 250, "description": "Maximum search output lines to return after offset. Pass 0 for unlimited lines up to output caps."}, ` +
			`"offset": {"type": "integer", "default": 0, "description": "Skip first N search output lines before applying max_lines."}` +
			`}, "required": ["url"]}`),
	}}
)

// TrainedSearch returns the definition of the built-in search tool Beam was
// trained with (page: Built-in tools), a copy of its own each call.
// Declaring search as built in with another definition shows the model a
// tool it was not trained on.
func TrainedSearch() Tool { return copyTool(trainedSearch) }

// TrainedBrowse returns the definition of the built-in browse tool Beam was
// trained with, a copy of its own each call.
func TrainedBrowse() Tool { return copyTool(trainedBrowse) }

func copyTool(t Tool) Tool {
	t.Function.Parameters = append(json.RawMessage(nil), t.Function.Parameters...)
	return t
}

// Lint returns the warnings for a request that renders: system or
// developer messages after a message of another role (dropped, or with
// Options.PlaceLateInstructions, where they are placed), assistant turns without
// reasoning (MissingReasoning), an effort below 8, built-in
// search or browse whose declarations differ from the trained ones, tool
// results missing, extra or out of order against the calls, and markers in
// any string the prompt carries as is (MarkerUses: content, argument
// values, schema enums, defaults, examples and property names). The
// request is not rendered; call Render for errors. A nil opts means the
// zero Options, as for Render.
func Lint(messages []Message, opts *Options) []Warning {
	if opts == nil {
		opts = new(Options)
	}
	var ws []Warning
	ws = lintInstructions(ws, messages, opts.PlaceLateInstructions)
	ws = lintReasoning(ws, messages)
	ws = lintEffort(ws, opts.ReasoningEffort)
	ws = lintBuiltins(ws, opts)
	ws = lintResults(ws, messages)
	ws = lintMarkers(ws, messages, opts)
	ws = lintRefs(ws, opts)
	ws = lintMisspelt(ws, opts)
	return ws
}

// Lint returns the request's warnings: one for each key ParseRequest did
// not read (with the known key it was probably meant to be), then those of
// the package function Lint.
func (r *Request) Lint() []Warning {
	return append(lintUnknownKeys(nil, r.unknown), Lint(r.Messages, &r.Options)...)
}

// UnknownKeys returns the warnings of Lint about keys ParseRequest did not
// read, of the request, its messages, their text parts and tool calls,
// and its tools, in the order it met them: what a caller that renders many
// requests (a dataset) counts without running the other checks.
func (r *Request) UnknownKeys() []Warning {
	return lintUnknownKeys(nil, r.unknown)
}

func lintInstructions(ws []Warning, messages []Message, place bool) []Warning {
	for _, l := range LateInstructions(messages) {
		what := "is not rendered; put system and developer messages at the start"
		switch {
		case place && l.Joined:
			what = "is joined to the instructions, before the first assistant turn (late instructions; docs/gap-decisions.md 110)"
		case place:
			what = "is rendered in its place as a user message headed \"# Instructions\" (late instructions after an assistant turn; docs/gap-decisions.md 110)"
		}
		ws = append(ws, Warning{messagePath(l.Index), "this " + l.Role + " message comes after a message of another role and " + what})
	}
	return ws
}

// MissingReasoning returns the indices of the assistant turns without
// reasoning, answers and tool calls alike. The template renders each as an
// empty analysis message, which Beam never writes (page: Assistant turns):
// in a served history its output degrades, and in training data the model
// learns to skip its reasoning (page: Reasoning across turns).
func MissingReasoning(messages []Message) []int {
	var idx []int
	for i := range messages {
		if messages[i].Role == RoleAssistant && messages[i].Reasoning == "" {
			idx = append(idx, i)
		}
	}
	return idx
}

func lintReasoning(ws []Warning, messages []Message) []Warning {
	for _, i := range MissingReasoning(messages) {
		ws = append(ws, Warning{messagePath(i), "this assistant turn has no reasoning and renders as an empty analysis message, " +
			"which Beam never writes: its output degrades, and trained on it the model learns to skip its reasoning; put the reasoning in reasoning_content"})
	}
	return ws
}

func lintEffort(ws []Warning, e ReasoningEffort) []Warning {
	v, err := e.Value()
	if err != nil {
		return ws
	}
	if n, err := strconv.Atoi(v); err == nil && n < MinTrainedEffort {
		ws = append(ws, Warning{"reasoning_effort", v + " is below " + strconv.Itoa(MinTrainedEffort) +
			", the smallest effort Beam was trained with; it won't be respected"})
	}
	return ws
}

// The declarations of the trained built-ins, rendered once.
var (
	trainedSearchDecl = sync.OnceValue(func() string { s, _ := DeclareTool(trainedSearch); return s })
	trainedBrowseDecl = sync.OnceValue(func() string { s, _ := DeclareTool(trainedBrowse); return s })
)

func lintBuiltins(ws []Warning, opts *Options) []Warning {
	named := newBuiltinSet(opts.BuiltinTools)
	for i, t := range opts.Tools {
		if !named.has(t.Function.Name) {
			continue
		}
		want := trainedSearchDecl()
		if t.Function.Name == "browse" {
			want = trainedBrowseDecl()
		}
		got, err := DeclareTool(t)
		if err == nil && got != want {
			ws = append(ws, Warning{toolPath(i), "built-in " + quote(t.Function.Name) +
				" differs from the definition Beam was trained with; use the trained definition, or leave it out of builtin_tools to declare it as an ordinary tool"})
		}
	}
	return ws
}

// lintResults checks, for each assistant turn with calls, that the tool
// messages right after it answer the calls one each, in order: Beam
// matches results to calls by position (page: Parallel calls).
func lintResults(ws []Warning, messages []Message) []Warning {
	for i := range messages {
		calls := messages[i].ToolCalls
		if messages[i].Role != RoleAssistant || len(calls) == 0 {
			continue
		}
		var first map[string]int // each call ID's first call, in a long turn
		if len(calls) > 16 {
			first = make(map[string]int, len(calls))
			for j := len(calls) - 1; j >= 0; j-- {
				first[calls[j].ID] = j
			}
		}
		k := i + 1
		for ; k < len(messages) && messages[k].Role == RoleTool; k++ {
			pos := k - i - 1
			ws = lintResult(ws, messages, i, k, pos, first)
		}
		got := k - i - 1
		if got < len(calls) && k < len(messages) {
			for j := got; j < len(calls); j++ {
				ws = append(ws, Warning{callPath(i, j), "no tool result follows this call; send one result per call, in the order of the calls"})
			}
		}
	}
	return ws
}

// lintResult checks the tool message at k, at position pos among the
// results of the calls of messages[i]. first, when not nil, maps each call
// ID to the index of its first call.
func lintResult(ws []Warning, messages []Message, i, k, pos int, first map[string]int) []Warning {
	calls := messages[i].ToolCalls
	m := &messages[k]
	if pos >= len(calls) {
		return append(ws, Warning{messagePath(k), "tool result without a call: " + messagePath(i) + " made " +
			strconv.Itoa(len(calls)) + " call(s)"})
	}
	if m.ToolCallID != "" {
		j, found := -1, false
		if first != nil {
			j, found = first[m.ToolCallID]
		} else {
			for j = 0; j < len(calls) && calls[j].ID != m.ToolCallID; j++ {
			}
			found = j < len(calls)
		}
		if found && j != pos {
			return append(ws, Warning{messagePath(k), "answers " + callPath(i, j) + " but stands at position " +
				strconv.Itoa(pos) + "; Beam matches results to calls by position, so return results in the order of the calls"})
		}
	}
	if m.Name != "" && m.Name != calls[pos].Function.Name {
		return append(ws, Warning{messagePath(k), "comes from " + quote(m.Name) + " but stands at the position of a call to " +
			quote(calls[pos].Function.Name) + "; return results in the order of the calls"})
	}
	return ws
}

// lintMarkers warns about each string the prompt carries as is that holds
// a marker (MarkerUses).
func lintMarkers(ws []Warning, messages []Message, opts *Options) []Warning {
	for _, u := range MarkerUses(messages, opts) {
		ws = append(ws, Warning{u.Path, u.Text() + ", which the model reads as a format token, not as text"})
	}
	return ws
}

// lintMisspelt warns about each key of a tool's parameters that the
// declaration meets and that looks like a misspelt keyword (emum,
// "type:"; schema.Misspelt, gap decision 257): it constrains nothing, so
// the model is told less than the schema's author meant.
func lintMisspelt(ws []Warning, opts *Options) []Warning {
	if opts == nil {
		return ws
	}
	for i := range opts.Tools {
		if f := &opts.Tools[i].Function; len(f.Parameters) > 0 {
			scanDeclaration(f, i, markerScan{misspelt: &ws})
		}
	}
	return ws
}

// lintRefs warns about each $ref of a tool's parameters that names nothing
// (UnresolvedRefs): the prompt declares its value any, which is seldom
// what the schema's author meant.
func lintRefs(ws []Warning, opts *Options) []Warning {
	for _, r := range UnresolvedRefs(opts) {
		ws = append(ws, Warning{r.Path, r.Ref + " names nothing in this schema, so the prompt declares the value any"})
	}
	return ws
}
