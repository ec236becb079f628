package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/beamharmony/harmony/tokenizer"
)

func init() {
	extraCommands = append(extraCommands,
		command{"tokenize", "encode text into token ids and character offsets with a tokenizer.json", runTokenize},
		command{"detokenize", "decode a JSON array of token ids into text with a tokenizer.json", runDetokenize},
	)
}

const tokenizeHelp = `
Usage: beamharmony tokenize --tokenizer PATH [--ordinary] [FILE]

Encode text (all of FILE or stdin, UTF-8) as Hugging Face's
tokenizer(text, add_special_tokens=False) does, and write

  {"input_ids": [...], "offsets": [[start, end], ...]}

with one [start, end) span per token in characters (Unicode code points,
the unit of Python strings), as Hugging Face's offset mapping gives them.
PATH is a tokenizer.json or a directory that holds one (with its
tokenizer_config.json). Marker text in the input becomes marker tokens;
with --ordinary it is encoded as ordinary text.

On an error (invalid UTF-8 included) the command prints one line to stderr
and exits with 1.

Example:

  printf 'Hello, world!' | beamharmony tokenize --tokenizer ./checkpoint
  {"input_ids": [13225, 11, 2375, 0], "offsets": [[0, 5], [5, 6], [6, 12], [12, 13]]}
`

const detokenizeHelp = `
Usage: beamharmony detokenize --tokenizer PATH [--skip-special] [FILE]

Decode token ids (a JSON array of integers, from FILE or stdin; the output
of "beamharmony tokenize" is accepted too) as Hugging Face's decode does,
and write the text with nothing added. Ids outside the vocabulary are
skipped, as Hugging Face skips them. With --skip-special, special tokens
(for Beam, only <|return|>) are left out; the other markers stay.
PATH is a tokenizer.json or a directory that holds one.

On an error the command prints one line to stderr and exits with 1.

Example:

  echo '[13225, 11, 2375, 0]' | beamharmony detokenize --tokenizer ./checkpoint
  Hello, world!
`

func runTokenize(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("tokenize", tokenizeHelp, stdout, stderr)
	path := fs.String("tokenizer", "", "tokenizer.json, or a directory that holds it (required)")
	ordinary := fs.Bool("ordinary", false, "encode marker and other added-token text as ordinary text")
	files, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	tk, err := loadTokenizer(*path)
	if err != nil {
		return fail(stderr, "tokenize", err)
	}
	data, err := readInput(files, stdin)
	if err != nil {
		return fail(stderr, "tokenize", err)
	}
	if !utf8.Valid(data) {
		return fail(stderr, "tokenize", fmt.Errorf("input: invalid UTF-8 at byte %d", invalidAt(data)))
	}
	text := string(data)
	// Bounded: a backtracking split pattern that takes too long on the
	// text is an error, not a hang.
	encode := tk.EncodeContext
	if *ordinary {
		encode = tk.EncodeOrdinaryContext
	}
	e, err := encode(context.Background(), text)
	if err != nil {
		return fail(stderr, "tokenize", err)
	}
	if err := writeEncoding(stdout, e); err != nil {
		return fail(stderr, "tokenize", err)
	}
	return 0
}

// writeEncoding writes e as tokenize's one line of JSON,
//
//	{"input_ids": [1, 2], "offsets": [[0, 5], [5, 6]]}
//
// through one buffered writer, each number appended by strconv into the
// writer's own buffer: no allocation but the buffer's.
func writeEncoding(w io.Writer, e *tokenizer.Encoding) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	// room returns the free end of the buffer, flushed first when it may
	// not hold one more element (at most 26 bytes).
	room := func() []byte {
		if bw.Available() < 64 {
			bw.Flush() // an error is kept, and returned by the last Flush
		}
		return bw.AvailableBuffer()
	}
	bw.WriteString(`{"input_ids": [`)
	for i, id := range e.IDs {
		b := room()
		if i > 0 {
			b = append(b, ", "...)
		}
		bw.Write(strconv.AppendInt(b, int64(id), 10))
	}
	bw.WriteString(`], "offsets": [`)
	for i, o := range e.Offsets {
		b := room()
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(append(b, '['), int64(o[0]), 10)
		b = strconv.AppendInt(append(b, ", "...), int64(o[1]), 10)
		bw.Write(append(b, ']'))
	}
	bw.WriteString("]}\n")
	return bw.Flush()
}

func runDetokenize(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("detokenize", detokenizeHelp, stdout, stderr)
	path := fs.String("tokenizer", "", "tokenizer.json, or a directory that holds it (required)")
	skip := fs.Bool("skip-special", false, "leave out special tokens (skip_special_tokens=True)")
	files, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	tk, err := loadTokenizer(*path)
	if err != nil {
		return fail(stderr, "detokenize", err)
	}
	data, err := readInput(files, stdin)
	if err != nil {
		return fail(stderr, "detokenize", err)
	}
	ids, err := parseIDs(data)
	if err != nil {
		return fail(stderr, "detokenize", err)
	}
	if _, err := io.WriteString(stdout, tk.Decode(ids, *skip)); err != nil {
		return fail(stderr, "detokenize", err)
	}
	return 0
}

func loadTokenizer(path string) (*tokenizer.Tokenizer, error) {
	if path == "" {
		return nil, errors.New("--tokenizer PATH is required (a tokenizer.json or a directory that holds one)")
	}
	return tokenizer.Load(path)
}

// parseIDs reads a JSON array of token ids, or an object whose input_ids
// is one (what tokenize writes).
func parseIDs(data []byte) ([]int, error) {
	trimmed := bytes.TrimSpace(data)
	field := "input"
	if len(trimmed) > 0 && trimmed[0] == '{' {
		var obj struct {
			IDs json.RawMessage `json:"input_ids"`
		}
		if err := json.Unmarshal(trimmed, &obj); err != nil {
			return nil, fmt.Errorf("input: %v", err)
		}
		if obj.IDs == nil {
			return nil, errors.New(`input: want a JSON array of token ids or an object with "input_ids"`)
		}
		trimmed, field = obj.IDs, "input_ids"
	}
	// Each element is read as raw JSON, so that a string ("104") or null
	// is refused rather than read as a number or as nothing.
	var raw []json.RawMessage
	if len(trimmed) == 0 || trimmed[0] != '[' {
		return nil, fmt.Errorf("%s: want a JSON array of token ids", field)
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s: want a JSON array of token ids: %v", field, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: unexpected data after the array", field)
	}
	ids := make([]int, len(raw))
	for i, n := range raw {
		v, err := strconv.ParseInt(string(n), 10, 32)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("%s[%d]: %s is not a token id (an integer from 0 to 2147483647)", field, i, n)
		}
		ids[i] = int(v)
	}
	return ids, nil
}

// invalidAt returns the offset of the first invalid UTF-8 byte.
func invalidAt(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return len(b)
}
