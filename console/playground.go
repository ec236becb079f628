package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/grammar"
)

// playgroundCall is the body of the playground's calls: a request as the
// render command reads it (kept as text, so that invalid JSON gets the
// CLI's error), render's flags, and what the call needs besides.
type playgroundCall struct {
	// Request is the render command's JSON, as text.
	Request string `json:"request"`
	// Strict and DropLateInstructions are render's --strict and
	// --drop-late-instructions.
	Strict               bool `json:"strict"`
	DropLateInstructions bool `json:"drop_late_instructions"`
	// Generation is the text to parse (parse).
	Generation string `json:"generation"`
	// Prefix is the prompt the generation continues (parse --prefix-file);
	// empty: a prompt ending in <|start|>assistant.
	Prefix string `json:"prefix"`
	// Constraints are tool_choice, parallel_tool_calls and
	// response_format, in Chat Completions' shape (grammar).
	Constraints json.RawMessage `json:"constraints"`
}

// request decodes the call's request and sets render's flags, as the
// render command does.
// readCall reads a playground call and decodes its request, answering
// the client itself when either fails.
func (h *Handler) readCall(w http.ResponseWriter, r *http.Request) (*playgroundCall, *harmony.Request, bool) {
	c := new(playgroundCall)
	if !readJSON(w, r, h.cfg.MaxBodyBytes, c) {
		return nil, nil, false
	}
	req, err := c.request()
	if err != nil {
		renderFailure(w, err)
		return nil, nil, false
	}
	return c, req, true
}

func (c *playgroundCall) request() (*harmony.Request, error) {
	req, err := harmony.ParseRequest([]byte(c.Request))
	if err != nil {
		return nil, err
	}
	if c.Strict && c.DropLateInstructions {
		return nil, errors.New("--strict and --drop-late-instructions can't be combined")
	}
	req.Strict = c.Strict
	req.PlaceLateInstructions = !c.Strict && !c.DropLateInstructions
	return req, nil
}

// callError is an error reply that says where the error is: the JSON path
// of a request's value, or a byte offset in the request's text or the
// generation.
type callError struct {
	Error  string `json:"error"`
	Path   string `json:"path,omitempty"`
	Offset *int   `json:"offset,omitempty"`
}

// renderFailure is the 422 for a request that does not render, with the
// render command's text (the line it writes after "beamharmony render: ").
func renderFailure(w http.ResponseWriter, err error) {
	err = RenderHint(err)
	e := callError{Error: OneLine(err)}
	var re *harmony.RenderError
	if errors.As(err, &re) {
		e.Path = re.Path
	}
	var se *harmony.SyntaxError
	if errors.As(err, &se) {
		off := se.Offset
		e.Offset = &off
	}
	writeJSON(w, http.StatusUnprocessableEntity, e)
}

// RenderHint adds to the page's missing-reasoning error where its setting
// lives in the request, as the render command does.
func RenderHint(err error) error {
	if errors.Is(err, harmony.ErrMissingReasoning) {
		return fmt.Errorf(`%w (in the request: "allow_missing_thinking": true, at the top level)`, err)
	}
	return err
}

// OneLine is an error's text on one line, as the CLI writes it.
func OneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", " ") }

// RenderReply is the render call's reply: the prompt, as the render command
// writes it, its assistant spans in characters (render --spans) and in
// bytes, and lint's warnings (what render writes to stderr).
type RenderReply struct {
	Prompt    string   `json:"prompt"`
	Spans     [][2]int `json:"assistant_spans"`
	ByteSpans [][2]int `json:"assistant_byte_spans"`
	Chars     int      `json:"characters"`
	Warnings  []string `json:"warnings"`
	Trained   int      `json:"trained_characters"`
}

// Render renders a request as the render command does (and render --spans):
// the reply, or the renderer's error (RenderHint adds what render prints
// with it).
func Render(req *harmony.Request) (*RenderReply, error) {
	p, err := req.RenderPrompt()
	if err != nil {
		return nil, err
	}
	rep := &RenderReply{Prompt: p.Text, Spans: [][2]int{}, ByteSpans: [][2]int{}, Warnings: []string{}}
	for _, s := range p.CharSpans() {
		rep.Spans = append(rep.Spans, [2]int{s.Start, s.End})
		rep.Trained += s.End - s.Start
	}
	for _, s := range p.AssistantSpans {
		rep.ByteSpans = append(rep.ByteSpans, [2]int{s.Start, s.End})
	}
	rep.Chars = utf8.RuneCountInString(p.Text)
	for _, w := range req.Lint() {
		rep.Warnings = append(rep.Warnings, strings.ReplaceAll(w.String(), "\n", " "))
	}
	return rep, nil
}

func (h *Handler) render(w http.ResponseWriter, r *http.Request) {
	_, req, ok := h.readCall(w, r)
	if !ok {
		return
	}
	rep, err := Render(req)
	if err != nil {
		renderFailure(w, err)
		return
	}
	writeJSON(w, http.StatusOK, rep)
}

// lintReply is the lint call's reply: lint's warnings, one a line as the
// lint command prints them.
type lintReply struct {
	Warnings []string `json:"warnings"`
}

func (h *Handler) lint(w http.ResponseWriter, r *http.Request) {
	_, req, ok := h.readCall(w, r)
	if !ok {
		return
	}
	if _, err := req.Render(); err != nil {
		renderFailure(w, err)
		return
	}
	rep := lintReply{Warnings: []string{}}
	for _, w := range req.Lint() {
		rep.Warnings = append(rep.Warnings, w.String())
	}
	writeJSON(w, http.StatusOK, rep)
}

// TokensReply is the tokens call's reply: the prompt's ids and assistant
// mask (render --tokenizer), each token's span in characters (tokenize's
// offsets) and the counts.
type TokensReply struct {
	InputIDs       []int    `json:"input_ids"`
	Offsets        [][2]int `json:"offsets"`
	AssistantMasks []int    `json:"assistant_masks"`
	Markers        []bool   `json:"markers"`
	Count          int      `json:"count"`
	Trained        int      `json:"trained"`
}

func (h *Handler) tokens(w http.ResponseWriter, r *http.Request) {
	var c playgroundCall
	if !readJSON(w, r, h.cfg.MaxBodyBytes, &c) {
		return
	}
	if h.cfg.Tokenizer == nil {
		writeError(w, http.StatusNotFound, "no tokenizer: start the console with --tokenizer PATH (a tokenizer.json or a directory holding one)")
		return
	}
	req, err := c.request()
	if err != nil {
		renderFailure(w, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.cfg.Timeout)
	defer cancel()
	rep, err := h.Tokens(ctx, req)
	if err != nil {
		renderFailure(w, err)
		return
	}
	writeJSON(w, http.StatusOK, rep)
}

// Tokens renders req to token ids with the console's tokenizer, as render
// --tokenizer does, with each token's character span, as tokenize gives
// them for the prompt. The prompt is refused past the prompt limit, and the
// work stops when ctx ends.
func (h *Handler) Tokens(ctx context.Context, req *harmony.Request) (*TokensReply, error) {
	tk := h.cfg.Tokenizer
	text, err := req.Render()
	if err != nil {
		return nil, err
	}
	if len(text) > h.cfg.MaxPromptBytes {
		return nil, fmt.Errorf("the prompt is %d bytes, more than the console tokenizes (%s)", len(text), byteSize(int64(h.cfg.MaxPromptBytes)))
	}
	toks, err := req.RenderTokens(ctx, tk)
	if err != nil {
		return nil, err
	}
	rep := &TokensReply{InputIDs: toks.InputIDs, AssistantMasks: toks.AssistantMasks, Count: len(toks.InputIDs)}
	for _, m := range toks.AssistantMasks {
		rep.Trained += m
	}
	// The prompt's own encoding gives the offsets when its ids are the
	// rendered ones: always, unless the content holds marker text, which
	// the renderer encodes as ordinary text.
	enc, err := tk.EncodeContext(ctx, toks.Text)
	if err != nil {
		return nil, err
	}
	if equalInts(enc.IDs, toks.InputIDs) {
		rep.Offsets = enc.Offsets
	} else if rep.Offsets, err = segmentOffsets(ctx, h, toks.Text, toks.InputIDs); err != nil {
		return nil, err
	}
	rep.Markers = make([]bool, len(rep.InputIDs))
	for i, id := range rep.InputIDs {
		if tok, ok := tk.IDToToken(id); ok && markerToken(tok) {
			rep.Markers[i] = true
		}
	}
	return rep, nil
}

// markerToken reports whether tok is one of the format's markers.
func markerToken(tok string) bool {
	return strings.HasPrefix(tok, "<|") && strings.HasSuffix(tok, "|>") && len(tok) > 4
}

// segmentOffsets finds the character span of each of ids in text when text
// holds marker text encoded as ordinary text: a marker token spans its
// marker; each run of other tokens spans the text it decodes to, split by
// the run's own ordinary encoding.
func segmentOffsets(ctx context.Context, h *Handler, text string, ids []int) ([][2]int, error) {
	tk := h.cfg.Tokenizer
	out := make([][2]int, 0, len(ids))
	pos, chars := 0, 0 // in bytes and characters
	for i := 0; i < len(ids); {
		if tok, ok := tk.IDToToken(ids[i]); ok && markerToken(tok) && strings.HasPrefix(text[pos:], tok) {
			n := utf8.RuneCountInString(tok)
			out = append(out, [2]int{chars, chars + n})
			pos, chars, i = pos+len(tok), chars+n, i+1
			continue
		}
		j := i
		for j < len(ids) {
			if tok, ok := tk.IDToToken(ids[j]); ok && markerToken(tok) && j > i {
				// A marker token ends the run only where its text is.
				seg := tk.Decode(ids[i:j], false)
				if strings.HasPrefix(text[pos:], seg) && strings.HasPrefix(text[pos+len(seg):], tok) {
					break
				}
			}
			j++
		}
		seg := tk.Decode(ids[i:j], false)
		if !strings.HasPrefix(text[pos:], seg) {
			return nil, errors.New("the tokens do not decode to the prompt; the token view needs a tokenizer whose decoding is exact")
		}
		enc, err := tk.EncodeOrdinaryContext(ctx, seg)
		if err != nil {
			return nil, err
		}
		if len(enc.IDs) != j-i {
			return nil, errors.New("the prompt's text encodes to other tokens than the rendered ones")
		}
		for _, o := range enc.Offsets {
			out = append(out, [2]int{chars + o[0], chars + o[1]})
		}
		pos, chars, i = pos+len(seg), chars+utf8.RuneCountInString(seg), j
	}
	return out, nil
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// ParseReply is the parse call's reply: the parser's events in order and
// the message (in the page's JSON shapes, as parse --stream writes them),
// the warnings, and the error with its byte offset in the generation.
type ParseReply struct {
	Events   []json.RawMessage `json:"events"`
	Message  json.RawMessage   `json:"message"`
	Warnings []string          `json:"warnings"`
	End      string            `json:"end"`
	Rest     string            `json:"rest,omitempty"`
	Error    string            `json:"error,omitempty"`
	Offset   *int              `json:"offset,omitempty"`
}

// Parse parses a generation as the parse command does, with the tools for
// casting and the prefix it continues.
func Parse(generation string, opts *harmony.ParseOptions) *ParseReply {
	p := harmony.NewStreamParser(opts)
	evs, ferr := p.Feed(generation, nil)
	rest, res, err := p.Finish(nil)
	if err == nil {
		err = ferr
	}
	evs = append(evs, rest...)
	rep := &ParseReply{Events: []json.RawMessage{}, Warnings: []string{}}
	for i := range evs {
		rep.Events = append(rep.Events, evs[i].AppendJSON(nil))
	}
	if res != nil {
		rep.Message = res.Message.AppendJSON(nil)
		rep.End, rep.Rest = res.End, res.Rest
		for _, w := range res.Warnings {
			rep.Warnings = append(rep.Warnings, w.String())
		}
	}
	if err != nil {
		rep.Error = OneLine(err)
		var pe *harmony.ParseError
		if errors.As(err, &pe) {
			off := pe.Offset
			rep.Offset = &off
		}
	}
	return rep
}

func (h *Handler) parse(w http.ResponseWriter, r *http.Request) {
	var c playgroundCall
	if !readJSON(w, r, h.cfg.MaxBodyBytes, &c) {
		return
	}
	opts := &harmony.ParseOptions{Prefix: c.Prefix}
	// The request's tools cast the arguments, as parse --tools-file does;
	// a request that does not decode leaves every argument a string.
	if strings.TrimSpace(c.Request) != "" {
		if req, err := harmony.ParseRequest([]byte(c.Request)); err == nil {
			opts.Tools = req.Tools
		}
	}
	writeJSON(w, http.StatusOK, Parse(c.Generation, opts))
}

// GrammarReply is the grammar call's reply: whether the constraints ask for
// a grammar, the grammar in llama.cpp's GBNF and the schema keywords it
// left out, and the grammar vLLM and SGLang get, compiled for xgrammar
// (grammar.Spec.XGrammar) in its EBNF, and the keywords that one left out.
type GrammarReply struct {
	Constrained bool     `json:"constrained"`
	GBNF        string   `json:"gbnf,omitempty"`
	EBNF        string   `json:"ebnf,omitempty"`
	Dropped     []string `json:"dropped"`
	EBNFDropped []string `json:"ebnf_dropped"`
}

func (h *Handler) grammar(w http.ResponseWriter, r *http.Request) {
	c, req, ok := h.readCall(w, r)
	if !ok {
		return
	}
	spec, err := Spec(req, []byte(c.Request), c.Constraints)
	if err != nil {
		writeJSON(w, http.StatusUnprocessableEntity, callError{Error: OneLine(err)})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.cfg.Timeout)
	defer cancel()
	g, err := grammar.Compile(ctx, spec)
	var xg *grammar.Grammar
	if err == nil && g != nil {
		forXG := *spec
		forXG.XGrammar = true
		xg, err = grammar.Compile(ctx, &forXG)
	}
	if err != nil {
		e := callError{Error: OneLine(err)}
		var ge *grammar.Error
		if errors.As(err, &ge) {
			e.Path = ge.Path
		}
		if ctx.Err() != nil {
			e.Error = "the grammar could not be compiled within the console's time limit of " + h.cfg.Timeout.String() + "; simplify the schemas"
		}
		writeJSON(w, http.StatusUnprocessableEntity, e)
		return
	}
	rep := GrammarReply{Dropped: []string{}, EBNFDropped: []string{}}
	if g != nil {
		rep.Constrained, rep.GBNF, rep.EBNF = true, g.GBNF(), xg.EBNF()
		for _, d := range g.Dropped {
			rep.Dropped = append(rep.Dropped, d.Path)
		}
		for _, d := range xg.Dropped {
			rep.EBNFDropped = append(rep.EBNFDropped, d.Path)
		}
	}
	writeJSON(w, http.StatusOK, rep)
}

// Spec is the grammar spec of a request's tools under constraints given in
// Chat Completions' shape, as the gateway compiles them:
//
//	{"tool_choice": "auto" | "none" | "required" | {"type": "function", "function": {"name": "f"}},
//	 "parallel_tool_calls": true,
//	 "response_format": {"type": "text" | "json_object" | "json_schema",
//	                     "json_schema": {"schema": {...}, "strict": true}}}
//
// A tool is strict when its function has "strict": true in the request.
func Spec(req *harmony.Request, requestJSON, constraints json.RawMessage) (*grammar.Spec, error) {
	spec := &grammar.Spec{Parallel: true}
	var raw struct {
		Tools []struct {
			Function struct {
				Strict bool `json:"strict"`
			} `json:"function"`
		} `json:"tools"`
	}
	// A tools list given as a string (OpenAI's wire form) has no strict
	// flags the console reads.
	_ = json.Unmarshal(requestJSON, &raw)
	for i, t := range req.Tools {
		strict := i < len(raw.Tools) && raw.Tools[i].Function.Strict
		spec.Tools = append(spec.Tools, grammar.Tool{Name: t.Function.Name, Parameters: t.Function.Parameters, Strict: strict})
	}
	if len(constraints) == 0 || string(constraints) == "null" {
		return spec, nil
	}
	var k struct {
		ToolChoice     json.RawMessage `json:"tool_choice"`
		Parallel       *bool           `json:"parallel_tool_calls"`
		ResponseFormat *struct {
			Type       string `json:"type"`
			JSONSchema *struct {
				Schema json.RawMessage `json:"schema"`
				Strict bool            `json:"strict"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	dec := json.NewDecoder(strings.NewReader(string(constraints)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&k); err != nil {
		return nil, fmt.Errorf("constraints: %v (keys: tool_choice, parallel_tool_calls, response_format)", err)
	}
	if k.Parallel != nil {
		spec.Parallel = *k.Parallel
	}
	if len(k.ToolChoice) > 0 && string(k.ToolChoice) != "null" {
		var mode string
		if json.Unmarshal(k.ToolChoice, &mode) == nil {
			switch mode {
			case "auto":
				spec.Choice = grammar.Auto
			case "none":
				spec.Choice = grammar.None
			case "required":
				spec.Choice = grammar.Required
			default:
				return nil, fmt.Errorf("constraints.tool_choice: %s: use auto, none, required or {\"type\": \"function\", \"function\": {\"name\": ...}}", strconv.Quote(mode))
			}
		} else {
			var named struct {
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
				Name string `json:"name"`
			}
			if err := json.Unmarshal(k.ToolChoice, &named); err != nil {
				return nil, fmt.Errorf("constraints.tool_choice: %v", err)
			}
			name := named.Function.Name
			if name == "" {
				name = named.Name
			}
			found := false
			for _, t := range spec.Tools {
				found = found || t.Name == name
			}
			if !found {
				return nil, fmt.Errorf("constraints.tool_choice.function.name: %s is not a declared tool", strconv.Quote(name))
			}
			spec.Choice, spec.Name = grammar.Named, name
		}
	}
	if f := k.ResponseFormat; f != nil {
		switch f.Type {
		case "text":
		case "json_object":
			spec.Format = &grammar.Format{}
		case "json_schema":
			if f.JSONSchema == nil {
				return nil, errors.New("constraints.response_format.json_schema: required with type json_schema, an object with schema")
			}
			schema := f.JSONSchema.Schema
			if len(schema) == 0 || string(schema) == "null" {
				schema = json.RawMessage(`{}`)
			}
			spec.Format = &grammar.Format{Schema: schema, Strict: f.JSONSchema.Strict}
		default:
			return nil, fmt.Errorf("constraints.response_format.type: %s: use text, json_object or json_schema", strconv.Quote(f.Type))
		}
	}
	return spec, nil
}

func itoa(n int) string { return strconv.Itoa(n) }
