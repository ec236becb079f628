package dataset

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/beamharmony/harmony/internal/pyjson"
)

// A Parquet row becomes the JSON request that ParseRequest reads, so that
// both inputs share one decoder. Columns are read as the Hugging Face
// datasets library writes them: a list of structs is a JSON array of
// objects, a struct field that is null is left out (datasets fills the keys
// a row lacks with None), and a string column holding the messages is JSON
// text; one holding the tools is passed as a JSON string, which ParseRequest
// decodes as it does in any request.

// pqNode is a node of the file's schema with its levels.
type pqNode struct {
	name     string
	typ      int32 // a leaf's physical type
	optional bool
	repeated bool
	def, rep int // the levels at which this node is present
	col      int // first leaf column under the node
	leaves   int // number of leaf columns under the node
	fields   []*pqNode
	list     bool // LIST: an array of the repeated child's elements
	isMap    bool // MAP: an object of the repeated child's key/value pairs
	json     bool // a JSON or (for the messages and tools) string leaf
	unsigned bool // an unsigned integer leaf
}

// Logical type annotations (the LogicalType union's field ids) and
// converted types the reader acts on.
const (
	logicalMap     = 2
	logicalList    = 3
	logicalInteger = 10
	logicalJSON    = 12
	logicalVariant = 16

	convertedMap    = 1
	convertedList   = 3
	convertedUint8  = 11
	convertedUint64 = 14
	convertedJSON   = 19
)

// knownLogical reports whether a leaf's logical type annotation is one
// that decides its type; otherwise its converted type does.
func knownLogical(id int16) bool {
	return id >= 1 && id <= 18 && id != 9 && id != 15 && id != 16
}

// schemaTree builds the file's schema as a tree; checkFooter has checked
// that the flat list is one (and its depth).
func schemaTree(m *pqMeta) *pqNode {
	i, col := 0, 0
	return buildNode(m.schema, &i, 0, 0, &col, true)
}

func buildNode(schema []pqElement, i *int, def, rep int, col *int, root bool) *pqNode {
	e := schema[*i]
	*i++
	p := &pqNode{name: e.name, typ: e.typ, col: *col}
	if !root {
		p.optional, p.repeated = e.repetition == 1, e.repetition == 2
	}
	if p.optional || p.repeated {
		def++
	}
	if p.repeated {
		rep++
	}
	p.def, p.rep = def, rep
	if e.numChildren <= 0 && !root {
		p.leaves = 1
		*col++
		if knownLogical(e.logical) {
			p.json = e.logical == logicalJSON
			p.unsigned = e.logical == logicalInteger && !e.signed
		} else {
			p.json = e.converted == convertedJSON
			p.unsigned = e.converted >= convertedUint8 && e.converted <= convertedUint64
		}
		return p
	}
	switch {
	case e.logical == logicalList:
		p.list = true
	case e.logical == logicalMap:
		p.isMap = true
	case e.logical == logicalVariant:
	case e.converted == convertedList:
		p.list = true
	case e.converted == convertedMap:
		p.isMap = true
	}
	for range max(e.numChildren, 0) {
		c := buildNode(schema, i, def, rep, col, false)
		p.fields = append(p.fields, c)
		p.leaves += c.leaves
	}
	if (p.list || p.isMap) && (len(p.fields) != 1 || !p.fields[0].repeated) {
		p.list, p.isMap = false, false // not the standard layout: read as a struct
	}
	return p
}

// pqConverter turns the rows of one Parquet file into request JSON.
type pqConverter struct {
	root *pqNode
	// columns are the top-level fields read, with the request key each
	// is written under.
	columns []pqColumn
	row     pqRow // the row's values, by leaf column
	cur     []int // the next value of each leaf column
	err     error
}

type pqColumn struct {
	key  string
	node *pqNode
	// raw says that a string value is JSON text (messages and tools).
	raw bool
}

// requestKeys are the request's keys read from columns of the same name.
var requestKeys = []string{"reasoning_effort", "model_identity", "builtin_tools", "allow_missing_thinking"}

func newConverter(c *Config, meta *pqMeta) (*pqConverter, error) {
	root := schemaTree(meta)
	pc := &pqConverter{root: root, row: pqRow{cols: make([][]pqValue, root.leaves)}, cur: make([]int, root.leaves)}
	byName := map[string]*pqNode{}
	for _, f := range root.fields {
		byName[f.name] = f
	}
	messages := c.column(c.MessagesColumn, "messages")
	m := byName[messages]
	prompt, completion := byName["prompt"], byName["completion"]
	switch {
	case m != nil:
		pc.columns = append(pc.columns, pqColumn{"messages", m, true})
	case prompt != nil && completion != nil:
		// TRL's prompt-completion rows (promptcompletion.go).
		pc.columns = append(pc.columns, pqColumn{"prompt", prompt, true}, pqColumn{"completion", completion, true})
	default:
		return nil, fmt.Errorf("no column %q for the messages (use --messages-column), nor prompt and completion columns", messages)
	}
	if t := byName[c.column(c.ToolsColumn, "tools")]; t != nil {
		pc.columns = append(pc.columns, pqColumn{"tools", t, true})
	}
	keys := requestKeys
	if c.MessagesFormat == FormatShareGPT {
		keys = append(slices.Clip(keys), "system") // a ShareGPT row's system prompt
	}
	for _, k := range keys {
		if n := byName[k]; n != nil {
			pc.columns = append(pc.columns, pqColumn{k, n, false})
		}
	}
	if c.IDColumn != "" {
		if n := byName[c.IDColumn]; n != nil && c.IDColumn != messages {
			pc.columns = append(pc.columns, pqColumn{c.IDColumn, n, false})
		}
	}
	return pc, nil
}

// unreadColumns names the top-level columns of a Parquet file that
// newConverter does not read (none of them reaches the rows written), so
// that a run says so: a column of a misspelt or unexpected name (tool,
// conversation) would otherwise be left out without a word. A JSONL row's
// keys are counted as the request's unknown keys instead (Stats).
func unreadColumns(c *Config, meta *pqMeta) []string {
	conv, err := newConverter(c, meta)
	if err != nil {
		return nil // the run reports the file's error
	}
	var out []string
	for _, f := range conv.root.fields {
		if !slices.ContainsFunc(conv.columns, func(col pqColumn) bool { return col.node == f }) {
			out = append(out, f.name)
		}
	}
	return out
}

// unreadColumnsWarning is the run's warning about the columns of the
// Parquet file at path that are not read, "" when there are none; it
// names at most maxNamedColumns.
func unreadColumnsWarning(path string, cols []string) string {
	if len(cols) == 0 {
		return ""
	}
	names := strings.Join(cols[:min(len(cols), maxNamedColumns)], ", ")
	if len(cols) > maxNamedColumns {
		names += fmt.Sprintf(" and %d more", len(cols)-maxNamedColumns)
	}
	return path + ": columns not read, so not in the rows written: " + names
}

// maxNamedColumns is how many unread columns a warning names.
const maxNamedColumns = 20

// appendRow appends the request JSON of the row in pc.row to out.
func (pc *pqConverter) appendRow(out []byte) ([]byte, error) {
	pc.start()
	out = append(out, '{')
	first := true
	for _, col := range pc.columns {
		n := col.node
		if pc.isNull(n) {
			continue
		}
		if !first {
			out = append(out, ", "...)
		}
		first = false
		out = pyjson.AppendQuoted(out, col.key)
		out = append(out, ": "...)
		if col.raw && n.leaves == 1 && len(n.fields) == 0 && isByteArray(n) {
			v, ok := pc.next(n.col)
			if !ok {
				break
			}
			switch text := pc.row.bytes(v); {
			case col.key == "tools":
				// ParseRequest decodes tools sent as a JSON string, the
				// same rule as for JSONL rows (a blank string is none).
				out = pyjson.AppendQuoted(out, string(text))
			case len(bytes.TrimSpace(text)) > 0:
				out = append(out, text...)
			default:
				out = append(out, "null"...)
			}
			continue
		}
		out = pc.value(out, n)
		if pc.err != nil {
			break
		}
	}
	if pc.err != nil {
		return out, pc.err
	}
	return append(out, '}'), nil
}

// start reads the row in pc.row from its start.
func (pc *pqConverter) start() {
	clear(pc.cur)
	pc.err = nil
}

func isByteArray(n *pqNode) bool {
	return n.typ == pqByteArray || n.typ == pqFixedLenByteArray
}

var errLevels = errors.New("parquet: the row's values do not match the schema")

func (pc *pqConverter) peek(col int) (pqValue, bool) {
	if col >= len(pc.row.cols) || pc.cur[col] >= len(pc.row.cols[col]) {
		pc.err = errLevels
		return pqValue{}, false
	}
	return pc.row.cols[col][pc.cur[col]], true
}

func (pc *pqConverter) next(col int) (pqValue, bool) {
	v, ok := pc.peek(col)
	if ok {
		pc.cur[col]++
	}
	return v, ok
}

// isNull reports whether optional node n is null in the current place,
// and if so consumes its placeholder values.
func (pc *pqConverter) isNull(n *pqNode) bool {
	if !n.optional {
		return false
	}
	v, ok := pc.peek(n.col)
	if !ok || int(v.def) >= n.def {
		return false
	}
	pc.skip(n)
	return true
}

// skip consumes the one placeholder value each leaf under n has where n
// is null or an empty list.
func (pc *pqConverter) skip(n *pqNode) {
	for c := n.col; c < n.col+n.leaves; c++ {
		pc.next(c)
	}
}

// value appends node n's value; n is present (not null) here.
func (pc *pqConverter) value(out []byte, n *pqNode) []byte {
	switch {
	case pc.err != nil:
		return out
	case len(n.fields) == 0 && !n.repeated:
		v, ok := pc.next(n.col)
		if !ok {
			return out
		}
		return pc.appendScalar(out, n, v)
	case n.list:
		return pc.repeated(out, n.fields[0], true)
	case n.isMap:
		return pc.mapValue(out, n.fields[0])
	}
	out = append(out, '{')
	first := true
	for _, f := range n.fields {
		if f.repeated {
			if !first {
				out = append(out, ", "...)
			}
			first = false
			out = pyjson.AppendQuoted(out, f.name)
			out = append(out, ": "...)
			out = pc.repeated(out, f, false)
			continue
		}
		if pc.isNull(f) {
			continue
		}
		if !first {
			out = append(out, ", "...)
		}
		first = false
		out = pyjson.AppendQuoted(out, f.name)
		out = append(out, ": "...)
		out = pc.value(out, f)
	}
	return append(out, '}')
}

// repeated appends the elements of repeated node r as a JSON array. In a
// LIST, a repeated group of one field holds the element in that field.
func (pc *pqConverter) repeated(out []byte, r *pqNode, inList bool) []byte {
	v, ok := pc.peek(r.col)
	if !ok {
		return out
	}
	if int(v.def) < r.def {
		pc.skip(r)
		return append(out, "[]"...)
	}
	out = append(out, '[')
	for i := 0; pc.err == nil; i++ {
		if i > 0 {
			out = append(out, ", "...)
		}
		switch {
		case len(r.fields) == 0:
			v, _ := pc.next(r.col)
			out = pc.appendScalar(out, r, v)
		case inList && len(r.fields) == 1:
			if e := r.fields[0]; pc.isNull(e) {
				out = append(out, "null"...)
			} else if e.repeated {
				out = pc.repeated(out, e, false)
			} else {
				out = pc.value(out, e)
			}
		default:
			out = pc.value(out, &pqNode{fields: r.fields, col: r.col, leaves: r.leaves})
		}
		if c := r.col; pc.cur[c] >= len(pc.row.cols[c]) || int(pc.row.cols[c][pc.cur[c]].rep) != r.rep {
			break
		}
	}
	return append(out, ']')
}

// mapValue appends a MAP's key/value pairs as a JSON object; a key that is
// not a string is written as its JSON text.
func (pc *pqConverter) mapValue(out []byte, kv *pqNode) []byte {
	v, ok := pc.peek(kv.col)
	if !ok {
		return out
	}
	if int(v.def) < kv.def || len(kv.fields) != 2 {
		pc.skip(kv)
		return append(out, "{}"...)
	}
	out = append(out, '{')
	for i := 0; pc.err == nil; i++ {
		if i > 0 {
			out = append(out, ", "...)
		}
		k, _ := pc.next(kv.fields[0].col)
		if isByteArray(kv.fields[0]) {
			out = pyjson.AppendQuoted(out, string(pc.row.bytes(k)))
		} else {
			out = pyjson.AppendQuoted(out, string(pc.appendScalar(nil, kv.fields[0], k)))
		}
		out = append(out, ": "...)
		if val := kv.fields[1]; pc.isNull(val) {
			out = append(out, "null"...)
		} else {
			out = pc.value(out, val)
		}
		if c := kv.col; pc.cur[c] >= len(pc.row.cols[c]) || int(pc.row.cols[c][pc.cur[c]].rep) != kv.rep {
			break
		}
	}
	return append(out, '}')
}

// appendScalar writes a leaf value as Python's json.dumps writes the value
// datasets gives for it.
func (pc *pqConverter) appendScalar(out []byte, n *pqNode, v pqValue) []byte {
	if v.null {
		return append(out, "null"...)
	}
	switch v.kind {
	case pqBoolean:
		return strconv.AppendBool(out, v.u != 0)
	case pqInt32:
		if n.unsigned {
			return strconv.AppendUint(out, uint64(uint32(v.u)), 10)
		}
		return strconv.AppendInt(out, int64(int32(v.u)), 10)
	case pqInt64:
		if n.unsigned {
			return strconv.AppendUint(out, v.u, 10)
		}
		return strconv.AppendInt(out, int64(v.u), 10)
	case pqFloat:
		return appendPyFloat(out, float64(math.Float32frombits(uint32(v.u))))
	case pqDouble:
		return appendPyFloat(out, math.Float64frombits(v.u))
	case pqByteArray, pqFixedLenByteArray:
		if n.json {
			return append(out, pc.row.bytes(v)...)
		}
		return pyjson.AppendQuoted(out, string(pc.row.bytes(v)))
	case pqInt96:
		return pyjson.AppendQuoted(out, int96String(pc.row.bytes(v)))
	}
	return append(out, "null"...)
}

// int96String writes an INT96 (12 bytes, little-endian, two's complement)
// in decimal.
func int96String(b []byte) string {
	if len(b) != 12 {
		return ""
	}
	lo := binary.LittleEndian.Uint64(b)
	hi := int32(binary.LittleEndian.Uint32(b[8:]))
	n := new(big.Int).SetInt64(int64(hi))
	n.Lsh(n, 64)
	return n.Or(n, new(big.Int).SetUint64(lo)).String()
}

// appendPyFloat writes f as Python's repr does: 3.0, 0.5, 1e-05, 1e+16.
func appendPyFloat(out []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(out, "NaN"...)
	case math.IsInf(f, 1):
		return append(out, "Infinity"...)
	case math.IsInf(f, -1):
		return append(out, "-Infinity"...)
	}
	exp := 0
	if a := math.Abs(f); a != 0 {
		e := strconv.AppendFloat(nil, a, 'e', -1, 64)
		for i := range e {
			if e[i] == 'e' {
				exp, _ = strconv.Atoi(string(e[i+1:]))
			}
		}
	}
	if exp < -4 || exp >= 16 {
		return strconv.AppendFloat(out, f, 'e', -1, 64)
	}
	start := len(out)
	out = strconv.AppendFloat(out, f, 'f', -1, 64)
	for _, c := range out[start:] {
		if c == '.' {
			return out
		}
	}
	return append(out, ".0"...)
}

// readRowGroup reads one row group into batches of request JSON.
func readRowGroup(ctx context.Context, c *Config, u *unit, base int64, emit func(*batch) bool) (err error) {
	in := u.in
	// Damaged pages are errors of the reader; should one make it panic,
	// the run still ends with an error naming the file.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: row group %d: damaged Parquet data: %v", in.path, u.rowGroup, r)
		}
	}()
	conv, err := newConverter(c, in.meta)
	if err != nil {
		return fmt.Errorf("%s: %w", in.path, err)
	}
	rr := newRowGroupReader(in.ra, in.meta, u.rowGroup, newParquetLimits(c.maxRowBytes()))
	total := rr.rows
	maxRow := c.maxRowBytes()
	pos := in.rgOffset[u.rowGroup]
	var done int64
	b := newBatch(u)
	for {
		if ctx.Err() != nil {
			releaseBatch(b)
			return nil
		}
		ok, err := rr.next(&conv.row)
		if err != nil {
			releaseBatch(b)
			return fmt.Errorf("%s: %w", in.path, err)
		}
		if !ok {
			break
		}
		start := len(b.buf)
		var cerr error
		b.buf, cerr = conv.appendRow(b.buf)
		if cerr == nil && len(b.buf)-start > maxRow {
			// As a JSONL line past --max-row-bytes: rejected.
			cerr = fmt.Errorf("row is %d bytes as JSON, longer than the limit of %d bytes (--max-row-bytes)", len(b.buf)-start, maxRow)
		}
		if cerr != nil {
			b.buf = b.buf[:start]
		}
		b.rows = append(b.rows, rowRef{start: start, end: len(b.buf), pos: pos, err: cerr})
		pos++
		done++
		if len(b.buf) >= batchBytes || len(b.rows) >= maxBatchRows {
			b.doneBytes = base + u.bytes*done/max(total, 1)
			if !emit(b) {
				return nil
			}
			b = newBatch(u)
		}
	}
	if len(b.rows) == 0 {
		releaseBatch(b)
		return nil
	}
	b.doneBytes = base + u.bytes
	emit(b)
	return nil
}
