package console

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"unicode/utf8"

	"github.com/beamharmony/harmony"
	"github.com/klauspost/compress/zstd"
)

// The dataset preview reads one uploaded JSONL file (gzip or zstd
// compressed too) of one of four kinds, told by its first row's keys:
//
//	tokens    the dataset command's output with --tokenizer: input_ids, assistant_masks
//	text      its output without one: text, assistant_spans
//	rejects   its rejects file: source, line or row_index, error, row
//	requests  its input: one render request per row, rendered here for training
const (
	kindTokens   = "tokens"
	kindText     = "text"
	kindRejects  = "rejects"
	kindRequests = "requests"
)

// maxPreviewRows caps the rows a preview sends whole; every row counts in
// the lengths and shares.
const maxPreviewRows = 200

// maxPreviewRowBytes caps the text of one row a preview sends.
const maxPreviewRowBytes = 256 << 10

// DatasetReply is the dataset call's reply.
type DatasetReply struct {
	Kind string `json:"kind"`
	// Format is the file's: jsonl (compressed or not) or parquet, whose
	// rows' Line is their number from 1.
	Format string `json:"format"`
	// Unit is what Lengths count: tokens, or characters for text rows
	// without a tokenizer.
	Unit     string       `json:"unit"`
	RowsRead int          `json:"rows_read"`
	Rejected int          `json:"rejected"`
	Rows     []PreviewRow `json:"rows"`
	// Lengths and Trained have one entry per row read that is not
	// rejected: its length, and its trained share (0 to 1).
	Lengths []int     `json:"lengths"`
	Trained []float64 `json:"trained"`
	// TrainedTotal is the share of all rows' units that are trained.
	TrainedTotal float64 `json:"trained_total"`
	Truncated    bool    `json:"truncated,omitempty"`
}

// PreviewRow is one row as the preview shows it: its text split into
// pieces, each trained or not (Mask); or a reject's reason beside its row.
type PreviewRow struct {
	Line    int      `json:"line"`
	ID      any      `json:"id,omitempty"`
	Pieces  []string `json:"pieces,omitempty"`
	Mask    []int    `json:"mask,omitempty"`
	IDs     []int    `json:"input_ids,omitempty"`
	Length  int      `json:"length"`
	Trained int      `json:"trained"`
	Error   string   `json:"error,omitempty"`
	Row     string   `json:"row,omitempty"`
	Source  string   `json:"source,omitempty"`
}

func (h *Handler) dataset(w http.ResponseWriter, r *http.Request) {
	if !method(w, r, http.MethodPost) {
		return
	}
	data, ok := readBody(w, r, h.cfg.MaxUploadBytes)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.cfg.Timeout)
	defer cancel()
	rep, err := h.Preview(ctx, data)
	if err != nil {
		writeError(w, http.StatusUnprocessableEntity, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, rep)
}

// Preview reads a JSONL dataset, output or rejects file (gzip or zstd
// compressed too) and returns its preview. The decompressed text is
// bounded by the upload limit too.
func (h *Handler) Preview(ctx context.Context, data []byte) (*DatasetReply, error) {
	var rd io.Reader = bytes.NewReader(data)
	switch {
	case bytes.HasPrefix(data, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(rd)
		if err != nil {
			return nil, fmt.Errorf("gzip: %v", err)
		}
		rd = zr
	case bytes.HasPrefix(data, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		zr, err := zstd.NewReader(rd, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(h.cfg.MaxUploadBytes)))
		if err != nil {
			return nil, fmt.Errorf("zstd: %v", err)
		}
		defer zr.Close()
		rd = zr
	case bytes.HasPrefix(data, []byte("PAR1")):
		if h.cfg.ReadParquet == nil {
			return nil, errors.New("a Parquet file: this console reads JSONL only (beamharmony console reads Parquet too); write JSONL to preview it here")
		}
		return h.previewParquet(ctx, data)
	}
	limit := h.cfg.MaxUploadBytes
	sc := bufio.NewScanner(io.LimitReader(rd, limit+1))
	sc.Buffer(make([]byte, 0, 64<<10), int(min(limit+1, 1<<30)))
	p := h.newPreview()
	read := 0
	for line := 1; sc.Scan(); line++ {
		read += len(sc.Bytes()) + 1
		if int64(read) > limit+1 {
			return nil, errors.New("the decompressed file is larger than the console's limit of " + byteSize(limit))
		}
		if err := ctx.Err(); err != nil {
			p.rep.Truncated = true
			break
		}
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		if err := p.add(ctx, line, text, nil); err != nil {
			return nil, fmt.Errorf("line %d: %v (the preview reads JSONL)", line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the file: %v", err)
	}
	return p.done()
}

// previewParquet reads a Parquet file, as the dataset command reads one
// (package dataset checks its footer and pages first): the dataset
// command's input, one request per row from its messages column (and
// tools and request keys), or its Parquet output. A row's Line is its
// number from 1.
func (h *Handler) previewParquet(ctx context.Context, data []byte) (*DatasetReply, error) {
	p := h.newPreview()
	p.rep.Format = "parquet"
	n := 0
	var ferr error
	err := h.cfg.ReadParquet(ctx, bytes.NewReader(data), int64(len(data)), maxParquetRowBytes, func(row []byte, err error) bool {
		n++
		if ferr = p.add(ctx, n, row, err); ferr != nil {
			ferr = fmt.Errorf("row %d: %v", n, ferr)
			return false
		}
		return true
	})
	if err == nil {
		err = ferr
	}
	if err != nil {
		return nil, fmt.Errorf("a Parquet file: %v", err)
	}
	if ctx.Err() != nil {
		p.rep.Truncated = true
	}
	return p.done()
}

// ParquetReader reads the rows of a Parquet file of size bytes as JSON
// objects, each at most maxRowBytes, calling each with every row until it
// returns false. The beamharmony command gives the dataset command's
// reader (dataset.ParquetRows), so that this package, and the gateway that
// serves it, do not import the dataset pipeline and its storage drivers.
type ParquetReader func(ctx context.Context, ra io.ReaderAt, size int64, maxRowBytes int, each func(row []byte, err error) bool) error

// maxParquetRowBytes caps one Parquet row as JSON, and with it (as in the
// dataset command) what the checks let a page and a row group hold.
const maxParquetRowBytes = 8 << 20

// preview gathers a preview's rows and counts.
type preview struct {
	h              *Handler
	rep            *DatasetReply
	units, trained int
}

func (h *Handler) newPreview() *preview {
	return &preview{h: h, rep: &DatasetReply{Format: "jsonl", Rows: []PreviewRow{}, Lengths: []int{}, Trained: []float64{}}}
}

// add reads one row, numbered line, whose JSON is text or which could not
// be read (rowErr). A first row that is not a JSON object is the error of
// the whole file.
func (p *preview) add(ctx context.Context, line int, text []byte, rowErr error) error {
	rep := p.rep
	var obj map[string]json.RawMessage
	err := rowErr
	if err == nil {
		if err = json.Unmarshal(text, &obj); err != nil {
			err = errors.New("not a JSON object: " + err.Error())
		}
	}
	if err != nil {
		if rep.Kind == "" && rowErr == nil {
			return err
		}
		rep.RowsRead++
		rep.Rejected++
		if len(rep.Rows) < maxPreviewRows {
			rep.Rows = append(rep.Rows, PreviewRow{Line: line, Error: err.Error(), Row: cut(string(text))})
		}
		return nil
	}
	if rep.Kind == "" {
		rep.Kind = kindOf(obj)
		rep.Unit = "tokens"
		if rep.Kind == kindText || rep.Kind == kindRequests && p.h.cfg.Tokenizer == nil {
			rep.Unit = "characters"
		}
	}
	rep.RowsRead++
	row := p.h.previewRow(ctx, rep.Kind, obj, text)
	row.Line = line
	if row.Error != "" {
		rep.Rejected++
	} else {
		rep.Lengths = append(rep.Lengths, row.Length)
		share := 0.0
		if row.Length > 0 {
			share = float64(row.Trained) / float64(row.Length)
		}
		rep.Trained = append(rep.Trained, share)
		p.units += row.Length
		p.trained += row.Trained
	}
	if len(rep.Rows) < maxPreviewRows {
		rep.Rows = append(rep.Rows, row)
	}
	return nil
}

func (p *preview) done() (*DatasetReply, error) {
	if p.rep.Kind == "" && p.rep.RowsRead == 0 {
		return nil, errors.New("the file has no rows")
	}
	if p.units > 0 {
		p.rep.TrainedTotal = float64(p.trained) / float64(p.units)
	}
	return p.rep, nil
}

// kindOf tells a file's kind by its first row's keys.
func kindOf(obj map[string]json.RawMessage) string {
	has := func(k string) bool { _, ok := obj[k]; return ok }
	switch {
	case has("input_ids"):
		return kindTokens
	case has("text") && has("assistant_spans"):
		return kindText
	case has("error") && has("row"):
		return kindRejects
	}
	return kindRequests
}

// previewRow reads one row of a file of kind.
func (h *Handler) previewRow(ctx context.Context, kind string, obj map[string]json.RawMessage, text []byte) PreviewRow {
	var row PreviewRow
	if id, ok := obj["id"]; ok {
		_ = json.Unmarshal(id, &row.ID)
	}
	switch kind {
	case kindTokens:
		var ids, mask []int
		if err := json.Unmarshal(obj["input_ids"], &ids); err != nil {
			return PreviewRow{Error: "input_ids: " + err.Error(), Row: cut(string(text))}
		}
		if err := json.Unmarshal(obj["assistant_masks"], &mask); err != nil || len(mask) != len(ids) {
			return PreviewRow{Error: "assistant_masks: want one 0 or 1 per input id", Row: cut(string(text))}
		}
		h.tokenPieces(&row, ids, mask)
	case kindText:
		var t string
		var spans [][2]int
		if err := json.Unmarshal(obj["text"], &t); err != nil {
			return PreviewRow{Error: "text: " + err.Error(), Row: cut(string(text))}
		}
		if err := json.Unmarshal(obj["assistant_spans"], &spans); err != nil {
			return PreviewRow{Error: "assistant_spans: " + err.Error(), Row: cut(string(text))}
		}
		if err := textPieces(&row, t, spans); err != nil {
			return PreviewRow{Error: err.Error(), Row: cut(string(text))}
		}
	case kindRejects:
		var reason, source string
		_ = json.Unmarshal(obj["error"], &reason)
		_ = json.Unmarshal(obj["source"], &source)
		var line int
		if json.Unmarshal(obj["line"], &line) != nil || line == 0 {
			_ = json.Unmarshal(obj["row_index"], &line)
		}
		r := obj["row"]
		var s string
		if json.Unmarshal(r, &s) == nil {
			r = json.RawMessage(s) // a long row, echoed as a string
		}
		if reason == "" {
			reason = "(no reason given)"
		}
		return PreviewRow{Error: reason, Source: fmt.Sprintf("%s:%d", source, line), Row: cut(string(r))}
	default:
		req, err := harmony.ParseRequest(text)
		if err == nil {
			// Rendered for training, as the dataset command renders.
			req.AddGenerationPrompt = false
			req.PlaceLateInstructions = true
			err = h.renderRow(ctx, &row, req)
		}
		if err != nil {
			return PreviewRow{Error: OneLine(err), Row: cut(string(text))}
		}
	}
	return row
}

// renderRow renders a request row: as tokens with the console's tokenizer,
// else as text with its spans.
func (h *Handler) renderRow(ctx context.Context, row *PreviewRow, req *harmony.Request) error {
	if h.cfg.Tokenizer != nil {
		t, err := req.RenderTokens(ctx, h.cfg.Tokenizer)
		if err != nil {
			return err
		}
		h.tokenPieces(row, t.InputIDs, t.AssistantMasks)
		return nil
	}
	p, err := req.RenderPrompt()
	if err != nil {
		return err
	}
	spans := make([][2]int, 0, len(p.AssistantSpans))
	for _, s := range p.CharSpans() {
		spans = append(spans, [2]int{s.Start, s.End})
	}
	return textPieces(row, p.Text, spans)
}

// tokenPieces sets a token row's length, trained count, and (with a
// tokenizer) its pieces: each token's text, or the ids alone without one.
func (h *Handler) tokenPieces(row *PreviewRow, ids, mask []int) {
	row.Length = len(ids)
	for _, m := range mask {
		if m != 0 {
			row.Trained++
		}
	}
	row.Mask = mask
	if h.cfg.Tokenizer == nil {
		row.IDs = ids
		return
	}
	size := 0
	for i, id := range ids {
		s := h.cfg.Tokenizer.Decode([]int{id}, false)
		if size += len(s); size > maxPreviewRowBytes {
			row.Pieces = append(row.Pieces, "… ("+itoa(len(ids)-i)+" more tokens)")
			row.Mask = append(mask[:i:i], 0)
			return
		}
		row.Pieces = append(row.Pieces, s)
	}
}

// textPieces splits a text row at its spans (in characters) into pieces,
// each trained or not.
func textPieces(row *PreviewRow, text string, spans [][2]int) error {
	chars := []rune(text)
	row.Length = len(chars)
	at := 0
	add := func(end, m int) {
		if end > at {
			s := string(chars[at:end])
			if len(s) > maxPreviewRowBytes {
				s = string(chars[at:at+maxPreviewRowBytes/4]) + "…"
			}
			row.Pieces = append(row.Pieces, s)
			row.Mask = append(row.Mask, m)
			at = end
		}
	}
	for i, s := range spans {
		if s[0] < at || s[1] < s[0] || s[1] > len(chars) {
			return fmt.Errorf("assistant_spans[%d]: [%d, %d] is not a span of the text in order", i, s[0], s[1])
		}
		add(s[0], 0)
		add(s[1], 1)
		row.Trained += s[1] - s[0]
	}
	add(len(chars), 0)
	return nil
}

// cut shortens a row's text for the preview.
func cut(s string) string {
	if len(s) <= maxPreviewRowBytes {
		return s
	}
	end := maxPreviewRowBytes
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + "… (" + itoa(len(s)-end) + " more bytes)"
}
