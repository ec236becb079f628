package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/beamharmony/harmony/grammar"
)

// Constrained generation: what a request demands of Beam's next message (a
// tool call, a call to one tool, exactly one call, JSON for a schema) is
// compiled by package grammar into a grammar the engine decodes under. The
// grammar keeps Beam's reasoning: an analysis message of free text comes
// first, then the calls or the final JSON.

// UnenforcedHeader is the response header that lists, comma-separated, the
// JSON paths of the schema keywords a grammar could not enforce and left
// out (non-strict schemas only: under strict they are a 400).
const UnenforcedHeader = "X-Beam-Unenforced"

// grammarCacheBytes bounds the compiled grammars a server keeps, in bytes
// of their text.
const grammarCacheBytes = 64 << 20

// constraint is what a request demands of the generation, in its API's
// words: the tool choice, whether several calls may come at once, which
// tools are strict, the response format, and the request paths that name
// them in errors.
type constraint struct {
	choice   grammar.Choice
	name     string // the tool of grammar.Named
	parallel bool
	format   *grammar.Format
	// strict marks the declared tools (request.opts.Tools, by index) the
	// client asked to follow their schema strictly.
	strict []bool
	// choiceParam is the tool choice's field (tool_choice), formatParam
	// the response format's (response_format, text.format,
	// output_config.format), formatSchema the path of its schema.
	choiceParam, formatParam, formatSchema string
	// toolSchemas is the request path of each declared tool's schema
	// (tools[2].function.parameters, tools[0].input_schema).
	toolSchemas []string
}

// newConstraint is an unconstrained request's constraint: auto, parallel
// calls allowed.
func newConstraint() constraint {
	return constraint{parallel: true, choiceParam: "tool_choice"}
}

// spec is the grammar spec for the declared tools.
func (k *constraint) spec(tools []toolSchema) *grammar.Spec {
	s := &grammar.Spec{Choice: k.choice, Name: k.name, Parallel: k.parallel, Format: k.format}
	for i, t := range tools {
		s.Tools = append(s.Tools, grammar.Tool{Name: t.name, Parameters: t.params, Strict: i < len(k.strict) && k.strict[i]})
	}
	return s
}

// toolSchema is a declared tool as the grammar needs it.
type toolSchema struct {
	name   string
	params json.RawMessage
}

// param names the request field that asked for the constraint.
func (k *constraint) param() string {
	if k.choice == grammar.Required || k.choice == grammar.Named {
		return k.choiceParam
	}
	if k.format != nil {
		return k.formatParam
	}
	for i, s := range k.strict {
		if s && i < len(k.toolSchemas) {
			return k.toolSchemas[i]
		}
	}
	return k.choiceParam
}

// mapPath turns a path of package grammar (written in Chat Completions'
// terms, tools by their index among the declared tools) into the request's
// own.
func (k *constraint) mapPath(p string) string {
	if rest, ok := strings.CutPrefix(p, "tools["); ok {
		n, tail, _ := strings.Cut(rest, "]")
		i, err := strconv.Atoi(n)
		if t, ok := strings.CutPrefix(tail, ".function.parameters"); ok && err == nil && i >= 0 && i < len(k.toolSchemas) {
			return k.toolSchemas[i] + t
		}
		return p
	}
	if t, ok := strings.CutPrefix(p, "response_format.json_schema.schema"); ok && k.formatSchema != "" {
		return k.formatSchema + t
	}
	if t, ok := strings.CutPrefix(p, "tool_choice"); ok {
		return k.choiceParam + t
	}
	return p
}

// decodeFormat reads a response format object at path: {"type": "text"}
// (nil), {"type": "json_object"}, or {"type": "json_schema"} with its
// schema and strict flag, nested in json_schema (Chat Completions) or
// beside type. It returns the schema's request path with the format, and
// notes the members it does not read. A name is read as what it is, an
// identifier: it asks for nothing; a description is reported, since
// nothing puts it in the prompt.
func (r *request) decodeFormat(raw json.RawMessage, path string, nested bool) (*grammar.Format, string, *apiError) {
	if isNull(raw) {
		return nil, "", nil
	}
	if raw[0] != '{' {
		return nil, "", paramError(path, "invalid_type", "must be an object such as {\"type\": \"json_object\"}, got "+kindOf(raw))
	}
	// Chat Completions nests name, schema and strict in json_schema; the
	// others have them beside type.
	var f struct {
		Type   json.RawMessage `json:"type"`
		Name   json.RawMessage `json:"name"`
		Schema json.RawMessage `json:"schema"`
		Strict json.RawMessage `json:"strict"`
	}
	var outer struct {
		Type       json.RawMessage `json:"type"`
		JSONSchema json.RawMessage `json:"json_schema"`
	}
	var jerr error
	if nested {
		jerr = r.decodeMembers(raw, &outer, path)
		f.Type = outer.Type
	} else {
		jerr = r.decodeMembers(raw, &f, path)
	}
	if jerr != nil {
		return nil, "", paramJSONError(path, "invalid_type", jerr)
	}
	typ, err := rawString(f.Type, path+".type")
	if err != nil {
		return nil, "", err
	}
	switch typ {
	case "text":
		return nil, "", nil
	case "json_object":
		return &grammar.Format{}, "", nil
	case "json_schema":
	case "":
		return nil, "", paramError(path+".type", "invalid_value", "required: text, json_object or json_schema")
	default:
		return nil, "", paramError(path+".type", "unsupported_parameter", quoteText(typ)+
			" is not supported; use text, json_object or json_schema")
	}
	schemaPath := path + ".schema"
	if nested {
		// Chat Completions: {"type": "json_schema", "json_schema": {"name", "schema", "strict"}}.
		inner := path + ".json_schema"
		if isNull(outer.JSONSchema) || outer.JSONSchema[0] != '{' {
			return nil, "", paramError(inner, "invalid_type", "required with type json_schema, an object with name and schema")
		}
		var js struct {
			Name   json.RawMessage `json:"name"`
			Schema json.RawMessage `json:"schema"`
			Strict json.RawMessage `json:"strict"`
		}
		if err := r.decodeMembers(outer.JSONSchema, &js, inner); err != nil {
			return nil, "", paramJSONError(inner, "invalid_type", err)
		}
		f.Schema, f.Strict = js.Schema, js.Strict
		schemaPath = inner + ".schema"
	}
	strict, _, aerr := rawBool(f.Strict, strings.TrimSuffix(schemaPath, ".schema")+".strict")
	if aerr != nil {
		return nil, "", aerr
	}
	schema := bytes.TrimSpace(f.Schema)
	switch {
	case isNull(schema):
		// No schema: any JSON value.
		schema = json.RawMessage(`{}`)
	case schema[0] != '{' && string(schema) != "true" && string(schema) != "false":
		return nil, "", paramError(schemaPath, "invalid_type", "must be a JSON Schema object, got "+kindOf(schema))
	}
	return &grammar.Format{Schema: schema, Strict: strict}, schemaPath, nil
}

// compileGrammar compiles the request's constraint, when it has one, into
// the grammar the engine gets. A constraint that can't be honoured is a
// 400 naming the request path.
// The grammar is compiled for the engine's kind when it is known (what
// xgrammar can't enforce cheaply differs, grammar.Spec.XGrammar); when it
// is detected only later, checkEngine compiles it again if it must.
func (c *exchange) compileGrammar() *apiError {
	return c.compileFor(c.s.knownKind().xgrammar())
}

// compileFor is compileGrammar, for xgrammar (vLLM, SGLang) or not.
func (c *exchange) compileFor(xgrammar bool) *apiError {
	r := c.req
	k := &r.constraint
	tools := make([]toolSchema, len(r.opts.Tools))
	for i := range r.opts.Tools {
		tools[i] = toolSchema{r.opts.Tools[i].Function.Name, r.opts.Tools[i].Function.Parameters}
	}
	spec := k.spec(tools)
	if !spec.Constrained() {
		return nil
	}
	spec.XGrammar = xgrammar
	ctx, cancel := context.WithTimeout(c.clientCtx, c.s.cfg.timeout())
	defer cancel()
	g, err := c.s.grammars.Compile(ctx, spec)
	if err != nil {
		switch {
		case errors.Is(context.Cause(c.clientCtx), errShutdown):
			return shutdownError()
		case c.clientCtx.Err() != nil:
			return &apiError{status: statusClientClosed, kind: kindClientClosed, code: "client_closed", msg: "client closed the request"}
		case ctx.Err() != nil:
			return paramError(k.param(), "invalid_constraint", "the grammar for this constraint could not be compiled within the server's time limit; simplify the schemas")
		}
		var ge *grammar.Error
		if !errors.As(err, &ge) {
			return paramError(k.param(), "invalid_constraint", err.Error())
		}
		p := k.mapPath(ge.Path)
		return paramError(p, "invalid_constraint", ge.Msg)
	}
	c.grammar, c.forXGrammar, c.unenforced = g, xgrammar, c.unenforced[:0]
	for _, d := range g.Dropped {
		c.unenforced = append(c.unenforced, k.mapPath(d.Path))
	}
	return nil
}

// checkEngine finds how to send the grammar: a constrained request to an
// engine of unknown kind is refused with a 400, never sent unconstrained.
// It sets the header that lists the keywords left out.
func (c *exchange) checkEngine(w http.ResponseWriter) *apiError {
	if c.grammar == nil {
		return nil
	}
	kind, why, public, down := c.s.engineKind(c.clientCtx)
	if !kind.constrains() {
		p := c.req.constraint.param()
		if down {
			// The engine is unreachable or failing (loading, say): the
			// server's condition, not the client's; retry.
			return (&apiError{status: http.StatusServiceUnavailable, kind: kindEngine, code: "engine_unavailable", param: p,
				msg: p + ": the engine did not answer the gateway's questions about its kind, which decide how the grammar that " +
					"constrains the generation is sent; retry once the engine is up. Detection: " + public}).withDetail(why)
		}
		return paramError(p, "engine_cannot_constrain", "cannot be honoured: the gateway does not know which engine serves it "+
			"(llama.cpp, vLLM or SGLang), so it cannot send the grammar that would constrain the generation; "+
			"start the gateway with --engine. Detection: "+public).withDetail(why)
	}
	c.engine = kind
	if kind.xgrammar() != c.forXGrammar {
		// Detected after the grammar was compiled (the first constrained
		// request to an engine of --engine auto).
		if aerr := c.compileFor(kind.xgrammar()); aerr != nil {
			return aerr
		}
	}
	if len(c.unenforced) > 0 {
		w.Header().Set(UnenforcedHeader, headerList(c.unenforced))
		c.warnings = append(c.warnings, "schema keywords not enforced: "+strings.Join(c.unenforced, ", "))
	}
	return nil
}

// maxHeaderList caps the unenforced header's value.
const maxHeaderList = 4096

// headerList joins paths for a header value: bytes outside printable
// ASCII, commas and percent signs are percent-encoded, and a list longer
// than maxHeaderList ends with ", ...".
func headerList(paths []string) string {
	var b strings.Builder
	for i, p := range paths {
		var one strings.Builder
		if i > 0 {
			one.WriteString(", ")
		}
		for j := 0; j < len(p); j++ {
			switch c := p[j]; {
			case c < 0x20 || c > 0x7e || c == ',' || c == '%':
				one.WriteString("%" + strings.ToUpper(strconv.FormatUint(uint64(c)>>4, 16)+strconv.FormatUint(uint64(c)&15, 16)))
			default:
				one.WriteByte(c)
			}
		}
		if b.Len()+one.Len() > maxHeaderList {
			b.WriteString(", ...")
			break
		}
		b.WriteString(one.String())
	}
	return b.String()
}

// structuredOutputs is vLLM's structured_outputs request field.
type structuredOutputs struct {
	Grammar string `json:"grammar"`
}

// completionRequest is the engine request for the exchange, with its
// grammar in the engine's dialect.
func (c *exchange) completionRequest() *completionRequest {
	cr := newCompletionRequest(c.req, c.model, c.enginePrompt())
	if c.grammar == nil {
		return cr
	}
	switch c.engine {
	case EngineLlamaCpp:
		cr.Grammar = c.grammar.GBNF()
	case EngineVLLM:
		cr.StructuredOutputs = &structuredOutputs{Grammar: c.grammar.EBNF()}
	case EngineSGLang:
		cr.EBNF = c.grammar.EBNF()
	}
	return cr
}
