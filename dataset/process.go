package dataset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/beamharmony/harmony"
	"github.com/beamharmony/harmony/internal/jsonpath"
	"github.com/beamharmony/harmony/internal/pyjson"
)

// processor renders the rows of a batch; one is shared by every worker.
type processor struct {
	c *Config
	// rename maps a column name to the request key it feeds, for the
	// columns that are renamed; drop lists request keys whose own column
	// is replaced by a renamed one.
	rename  map[string]string
	drop    map[string]bool
	parquet bool // the output is Parquet: fill outRows, not out
	// idPath is the --id-column's path among a request's unknown keys:
	// the run reads it, so it is not counted as one.
	idPath string
}

func newProcessor(c *Config) *processor {
	p := &processor{c: c, rename: map[string]string{}, drop: map[string]bool{}}
	for key, col := range map[string]string{"messages": c.MessagesColumn, "tools": c.ToolsColumn} {
		if col != "" && col != key {
			p.rename[col] = key
			p.drop[key] = true
		}
	}
	if k, _ := fileKind(c.Output); k == kindParquet && c.Output != "-" {
		p.parquet = true
	}
	if c.IDColumn != "" {
		p.idPath = jsonpath.Key("", c.IDColumn)
	}
	return p
}

// batch renders every row of b into b's results.
func (p *processor) batch(ctx context.Context, b *batch) {
	var row Row
	// Parquet rows are converted with the request's own keys already.
	remap := len(p.rename) > 0 && b.u.in.kind != kindParquet
	for i := range b.rows {
		if ctx.Err() != nil {
			return // the run is stopping: the batch is not written
		}
		r := &b.rows[i]
		data := b.buf[r.start:r.end]
		row = Row{}
		id, truncated, missing, err := p.row(ctx, r, data, remap, &row, &b.res)
		if missing > 0 {
			b.res.rowsWithoutReasoning++
			b.res.turnsWithoutReasoning += int64(missing)
		}
		if err != nil {
			if p.c.MessagesFormat != FormatShareGPT && looksShareGPT(data, p.messagesKey(remap)) {
				err = fmt.Errorf("%w (the messages look like ShareGPT's {\"from\", \"value\"}: pass --messages-format sharegpt)", err)
			}
			p.reject(b, r, data, err)
			continue
		}
		p.emit(b, r, id, truncated, &row)
	}
}

// errorAt reports whether err is a render error at path. (Its own
// function, so that the error it looks into is not allocated for the rows
// that render.)
func errorAt(err error, path string) bool {
	var re *harmony.RenderError
	return errors.As(err, &re) && re.Path == path
}

// messagesKey is the key of a row's messages as the input holds it: the
// --messages-column in a JSONL row (renamed as it is read), "messages" in a
// Parquet row, which is converted with the request's keys.
func (p *processor) messagesKey(remap bool) string {
	if remap {
		return p.c.column(p.c.MessagesColumn, "messages")
	}
	return "messages"
}

// row decodes and renders one row, and returns its id (raw JSON, nil when
// absent), whether it was truncated, and how many of its assistant turns
// have no reasoning. The keys of the row the renderer does not read are
// noted in res.
func (p *processor) row(ctx context.Context, r *rowRef, data []byte, remap bool, row *Row, res *batchResult) (id []byte, truncated bool, missing int, err error) {
	if r.err != nil {
		return nil, false, 0, r.err
	}
	if r.size > 0 {
		return nil, false, 0, fmt.Errorf("row is %d bytes, longer than the limit of %d bytes (--max-row-bytes)", r.size, p.c.maxRowBytes())
	}
	// The id and the renamed columns are found by a skim of the row's
	// members, not a parse: ParseRequest parses the row, once.
	original, renamed := data, false
	if p.c.IDColumn != "" || remap {
		var out []byte
		if remap {
			out = append(make([]byte, 0, len(data)+16), '{')
		}
		if pyjson.SkimMembers(data, func(k, v []byte) bool {
			if p.c.IDColumn != "" && pyjson.KeyEqual(k, p.c.IDColumn) {
				id = v // the last wins, as in the parse
			}
			if remap {
				out = p.remapMember(out, k, v)
			}
			return true
		}) && remap {
			data, renamed = append(out, '}'), true
		}
	}
	if p.c.MessagesFormat == FormatShareGPT {
		if data, err = fromShareGPT(data); err != nil {
			return id, false, 0, err
		}
	}
	if p.c.ThinkTags {
		if data, err = fromThinkTags(data); err != nil {
			return id, false, 0, err
		}
	}
	req, err := harmony.ParseRequest(data)
	if err != nil && errorAt(err, "messages") {
		// No messages: TRL's prompt-completion row, if it is one.
		if pc, ok, perr := fromPromptCompletion(data); ok {
			if perr != nil {
				return id, false, 0, perr
			}
			if p.c.ThinkTags {
				if pc, err = fromThinkTags(pc); err != nil {
					return id, false, 0, err
				}
			}
			req, err = harmony.ParseRequest(pc)
		}
	}
	if err != nil {
		if renamed && errorAt(err, "request") {
			// Not JSON, which the skim does not see: the error names
			// the row's own text, not the remapped one.
			_, err = harmony.ParseRequest(original)
		}
		return id, false, 0, err
	}
	p.noteUnknown(res, req)
	if idx := harmony.MissingReasoning(req.Messages); len(idx) > 0 {
		missing = len(idx)
		if !p.c.AllowMissingThinking {
			err := missingReasoningError(idx)
			if _, _, think := splitThink(req.Messages[idx[0]].Content); think && !p.c.ThinkTags {
				err = fmt.Errorf("%w (its content starts with <think>...</think>: pass --think-tags to read that as the reasoning)", err)
			}
			return id, false, missing, err
		}
	}
	req.AddGenerationPrompt = false
	// Late instructions are placed as the gateway places them, so that
	// the model is trained on the prompts it is served
	// (docs/gap-decisions.md 110).
	req.PlaceLateInstructions = true
	if !req.ReasoningEffort.IsSet() {
		req.ReasoningEffort = p.c.DefaultEffort
	}
	if err := p.c.Render(ctx, req, row); err != nil {
		return id, false, missing, err
	}
	if p.c.Tokens {
		if len(row.AssistantMasks) != len(row.InputIDs) {
			return id, false, missing, fmt.Errorf("tokenizer gave %d ids and %d mask entries", len(row.InputIDs), len(row.AssistantMasks))
		}
		if max := p.c.MaxTokens; max > 0 && len(row.InputIDs) > max {
			if !p.c.Truncate {
				return id, false, missing, fmt.Errorf("row has %d tokens, more than --max-tokens %d", len(row.InputIDs), max)
			}
			row.InputIDs, row.AssistantMasks = row.InputIDs[:max], row.AssistantMasks[:max]
			truncated = true
		}
	}
	return id, truncated, missing, nil
}

// noteUnknown adds to res each kind of key of req the renderer does not
// read, once per row (unknownKind), but the --id-column, which the run
// reads. A misspelt tools or a message's weight changes nothing in the
// rendered row: the summary says so instead of training on it unseen.
func (p *processor) noteUnknown(res *batchResult, req *harmony.Request) {
	keys := req.UnknownKeys()
	from := len(res.unknown)
	var seen map[string]bool // past a few keys, so that a row of many is linear
	if len(keys) > 8 {
		seen = make(map[string]bool, len(keys))
	}
	for _, w := range keys {
		if p.idPath != "" && w.Path == p.idPath {
			continue
		}
		k := unknownKind(w)
		if seen != nil {
			if seen[k] {
				continue
			}
			seen[k] = true
		} else if slices.Contains(res.unknown[from:], k) {
			continue
		}
		res.unknown = append(res.unknown, k)
	}
	if len(res.unknown) > from {
		res.unknown = append(res.unknown, "") // the row's end
	}
}

// unknownKind names an unknown key by its path with every position
// written [] (messages[].weight, tools[].function.paramters) and Lint's
// word on it: one kind for the same key in every message and row. A key
// quoted in the path (["a[1]"]) is left as it is.
func unknownKind(w harmony.Warning) string {
	b := make([]byte, 0, len(w.Path)+len(w.Msg)+2)
	quoted := false
	for i := 0; i < len(w.Path); i++ {
		c := w.Path[i]
		b = append(b, c)
		switch {
		case quoted && c == '\\' && i+1 < len(w.Path):
			i++
			b = append(b, w.Path[i])
			continue
		case c == '"':
			quoted = !quoted
			continue
		case quoted || c != '[':
			continue
		}
		j := i + 1
		for j < len(w.Path) && w.Path[j] >= '0' && w.Path[j] <= '9' {
			j++
		}
		if j > i+1 && j < len(w.Path) && w.Path[j] == ']' {
			i = j - 1 // the digits are left out; the bracket follows
		}
	}
	b = append(b, ": "...)
	return string(append(b, w.Msg...))
}

// missingReasoningError rejects a row whose assistant turns at idx have no
// reasoning, naming the first: the template would train the model on an
// empty analysis message, which Beam never writes.
func missingReasoningError(idx []int) error {
	more := ""
	if len(idx) > 1 {
		more = fmt.Sprintf(" (and %d more in this row)", len(idx)-1)
	}
	return fmt.Errorf("messages[%d]: assistant turn without reasoning%s; it would train the model on an empty analysis message, "+
		"which Beam never writes: put the reasoning in reasoning_content, or pass --allow-missing-thinking to render it as the template does", idx[0], more)
}

// remapMember appends a row's member to out, the row's object with renamed
// columns under their request keys, opened by its brace.
func (p *processor) remapMember(out, key, value []byte) []byte {
	name, ok := pyjson.KeyString(key)
	if !ok {
		return out // the parse that follows refuses the row
	}
	if k, ok := p.rename[name]; ok {
		name = k
	} else if p.drop[name] {
		return out
	}
	if len(out) > 1 {
		out = append(out, ", "...)
	}
	out = pyjson.AppendQuoted(out, name)
	out = append(out, ": "...)
	return append(out, value...)
}

// emit adds a rendered row to b's output.
func (p *processor) emit(b *batch, r *rowRef, id []byte, truncated bool, row *Row) {
	res := &b.res
	res.written++
	if truncated {
		res.truncated++
	}
	if p.c.Tokens {
		res.tokens += int64(len(row.InputIDs))
		for _, m := range row.AssistantMasks {
			res.trainedTokens += int64(m)
		}
	} else {
		chars := row.Characters
		if chars == 0 {
			chars = utf8.RuneCountInString(row.Text)
		}
		res.chars += int64(chars)
		for _, s := range row.Spans {
			res.trainedChars += int64(s.End - s.Start)
		}
	}
	if p.parquet {
		b.outRows = append(b.outRows, *row)
		if p.c.IDColumn != "" {
			b.idRaw = append(b.idRaw, id)
			b.ids = append(b.ids, idInfoOf(id, r.pos))
		}
		return
	}
	b.out = appendJSONRow(b.out, p.c, id, row)
}

// appendJSONRow writes one output row as a JSONL line.
func appendJSONRow(out []byte, c *Config, id []byte, row *Row) []byte {
	out = append(out, '{')
	if c.IDColumn != "" {
		out = pyjson.AppendQuoted(out, c.IDColumn)
		out = append(out, ": "...)
		if id == nil {
			id = []byte("null")
		}
		out = append(out, id...)
		out = append(out, ", "...)
	}
	if c.Tokens {
		out = append(out, `"input_ids": `...)
		out = appendInts(out, row.InputIDs)
		out = append(out, `, "assistant_masks": `...)
		out = appendInts(out, row.AssistantMasks)
		out = append(out, `, "num_tokens": `...)
		out = strconv.AppendInt(out, int64(len(row.InputIDs)), 10)
		return append(out, "}\n"...)
	}
	out = append(out, `"text": `...)
	out = pyjson.AppendQuoted(out, row.Text)
	out = append(out, `, "assistant_spans": [`...)
	for i, s := range row.Spans {
		if i > 0 {
			out = append(out, ", "...)
		}
		out = append(out, '[')
		out = strconv.AppendInt(out, int64(s.Start), 10)
		out = append(out, ", "...)
		out = strconv.AppendInt(out, int64(s.End), 10)
		out = append(out, ']')
	}
	return append(out, "]}\n"...)
}

func appendInts(out []byte, xs []int32) []byte {
	out = append(out, '[')
	for i, x := range xs {
		if i > 0 {
			out = append(out, ", "...)
		}
		out = strconv.AppendInt(out, int64(x), 10)
	}
	return append(out, ']')
}

// reject adds a bad row to b's rejects file lines:
//
//	{"source": FILE, "line": N, "error": MESSAGE, "row": ROW}
//
// with "row_index" (0-based) in place of "line" for Parquet. ROW is the
// row as JSON when it is valid JSON, else its text as a string; a row
// longer than RejectRowBytes (or too long to read) is its first bytes as a
// string, with "row_bytes", its size.
func (p *processor) reject(b *batch, r *rowRef, data []byte, err error) {
	res := &b.res
	res.rejected++
	msg := err.Error()
	posKey := "line"
	if b.u.in.kind == kindParquet {
		posKey = "row_index"
	}
	if res.first == "" {
		res.first = fmt.Sprintf("%s: %s %d: %s", b.u.in.path, strings.ReplaceAll(posKey, "_", " "), r.pos, msg)
	}
	res.kinds = append(res.kinds, errorKind(msg))
	out := res.rejects
	out = append(out, `{"source": `...)
	out = pyjson.AppendQuoted(out, b.u.in.path)
	out = append(out, `, "`...)
	out = append(out, posKey...)
	out = append(out, `": `...)
	out = strconv.AppendInt(out, r.pos, 10)
	out = append(out, `, "error": `...)
	if len(msg) > maxRejectError {
		msg = msg[:maxRejectError] + "..."
	}
	out = pyjson.AppendQuoted(out, strings.ToValidUTF8(msg, "\uFFFD"))
	out = append(out, `, "row": `...)
	size := r.size
	if size == 0 && len(data) > RejectRowBytes {
		size = int64(len(data))
		data = data[:RejectRowBytes]
	}
	if size == 0 && utf8.Valid(data) && json.Valid(data) {
		out = append(out, data...)
	} else {
		out = pyjson.AppendQuoted(out, strings.ToValidUTF8(string(data), "\uFFFD"))
	}
	if size > 0 {
		out = append(out, `, "row_bytes": `...)
		out = strconv.AppendInt(out, size, 10)
	}
	res.rejects = append(out, "}\n"...)
}

// maxRejectError bounds the error message a reject records.
const maxRejectError = 4 << 10

// errorKind groups errors for the statistics: the message with every run
// of digits replaced by N ("messages[N].content: ...").
func errorKind(msg string) string {
	var sb strings.Builder
	digits := false
	for _, c := range msg {
		if c >= '0' && c <= '9' {
			if !digits {
				sb.WriteByte('N')
			}
			digits = true
			continue
		}
		digits = false
		sb.WriteRune(c)
	}
	return sb.String()
}
