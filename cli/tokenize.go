package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"unicode/utf8"

	"github.com/beamharmony/harmony/tokenizer"
)

func init() {
	extraCommands = append(extraCommands,
		command{"tokenize", "encode text into token ids and character offsets with a tokenizer.json", anyProgram(runTokenize)},
		command{"detokenize", "decode a JSON array of token ids into text with a tokenizer.json", anyProgram(runDetokenize)},
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
skipped, as Hugging Face skips them, and counted in a warning on stderr.
With --skip-special, special tokens (for Beam, only <|return|>) are left
out; the other markers stay.
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
	tk, err := loadTokenizer(*path, "tokenize", stderr)
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
// through one buffer of 64 KiB, written out whenever it fills, each number
// appended to it in place: no allocation but the buffer's.
func writeEncoding(w io.Writer, e *tokenizer.Encoding) error {
	const size = 64 << 10
	buf := make([]byte, 0, size)
	var err error
	// flush writes the buffer out when it may not hold one more element
	// (at most 26 bytes), or at the end; the first error stops the writes.
	flush := func(end bool) {
		if (end || len(buf) > size-64) && err == nil {
			_, err = w.Write(buf)
			buf = buf[:0]
		}
	}
	buf = append(buf, `{"input_ids": [`...)
	for i, id := range e.IDs {
		if i > 0 {
			buf = append(buf, ", "...)
		}
		buf = appendNat(buf, id)
		flush(false)
	}
	buf = append(buf, `], "offsets": [`...)
	for i, o := range e.Offsets {
		if i > 0 {
			buf = append(buf, ", "...)
		}
		buf = appendNat(append(buf, '['), o[0])
		buf = appendNat(append(buf, ", "...), o[1])
		buf = append(buf, ']')
		flush(false)
	}
	buf = append(buf, "]}\n"...)
	flush(true)
	return err
}

// digitPairs holds "00" to "99".
const digitPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"

// appendNat appends the decimal digits of v, as strconv.AppendInt does,
// written in place two at a time for the ids and offsets (under a
// million); other values go to strconv.
func appendNat(b []byte, v int) []byte {
	var n int
	switch {
	case v < 0 || v >= 1000000:
		return strconv.AppendInt(b, int64(v), 10)
	case v < 10:
		return append(b, byte('0'+v))
	case v < 100:
		n = 2
	case v < 1000:
		n = 3
	case v < 10000:
		n = 4
	case v < 100000:
		n = 5
	default:
		n = 6
	}
	if cap(b)-len(b) >= n {
		b = b[:len(b)+n]
	} else {
		b = append(b, "000000"[:n]...)
	}
	i := len(b)
	for v >= 100 {
		q := v / 100
		r := 2 * (v - 100*q)
		i -= 2
		b[i], b[i+1] = digitPairs[r], digitPairs[r+1]
		v = q
	}
	if v >= 10 {
		b[i-2], b[i-1] = digitPairs[2*v], digitPairs[2*v+1]
	} else {
		b[i-1] = byte('0' + v)
	}
	return b
}

func runDetokenize(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("detokenize", detokenizeHelp, stdout, stderr)
	path := fs.String("tokenizer", "", "tokenizer.json, or a directory that holds it (required)")
	skip := fs.Bool("skip-special", false, "leave out special tokens (skip_special_tokens=True)")
	files, code := parseFlags(fs, args)
	if code >= 0 {
		return code
	}
	tk, err := loadTokenizer(*path, "detokenize", stderr)
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
	if w := unknownIDs(tk, ids); w != "" {
		fmt.Fprintf(stderr, "beamharmony detokenize: warning: %s\n", w)
	}
	if _, err := io.WriteString(stdout, tk.Decode(ids, *skip)); err != nil {
		return fail(stderr, "detokenize", err)
	}
	return 0
}

// unknownIDs says which ids are outside the vocabulary, which Decode
// skips as Hugging Face does: "" when none is, else how many and where the
// first stands, so that a wrong tokenizer or a corrupted list is not
// decoded into shorter text without a word.
func unknownIDs(tk *tokenizer.Tokenizer, ids []int) string {
	n, first := 0, -1
	for i, id := range ids {
		if _, ok := tk.IDToToken(id); !ok {
			if n == 0 {
				first = i
			}
			n++
		}
	}
	if n == 0 {
		return ""
	}
	what := "id"
	if n > 1 {
		what = "ids"
	}
	return fmt.Sprintf("%d %s outside the vocabulary of %d tokens skipped, as Hugging Face's decode skips them (the first: %d, at position %d)",
		n, what, tk.VocabSize(), ids[first], first)
}

// standInWarning is the warning for a tokenizer written by
// cmd/standin-tokenizer, "" for any other: a stand-in's ids are not the
// checkpoint's, which matters as soon as they reach a model.
func standInWarning(path string) string {
	dir := path
	if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
		dir = filepath.Dir(path)
	}
	cfg := filepath.Join(dir, "tokenizer_config.json")
	st, err := os.Stat(cfg)
	if err != nil || !st.Mode().IsRegular() || st.Size() > 1<<20 {
		return ""
	}
	data, err := os.ReadFile(cfg)
	if err != nil || !bytes.Contains(data, []byte(`"beamharmony_stand_in"`)) {
		return ""
	}
	return path + " is a stand-in tokenizer (o200k_base with Beam's markers, from go run ./cmd/standin-tokenizer): its ids are not the checkpoint's; use the checkpoint's tokenizer.json for anything real"
}

// loadTokenizer loads --tokenizer, and warns on stderr when it is a
// stand-in.
func loadTokenizer(path, cmd string, stderr io.Writer) (*tokenizer.Tokenizer, error) {
	if path == "" {
		return nil, usagef("--tokenizer PATH is required (a tokenizer.json or a directory that holds one)")
	}
	tk, err := tokenizer.Load(path)
	if err == nil {
		if w := standInWarning(path); w != "" {
			fmt.Fprintf(stderr, "beamharmony %s: warning: %s\n", cmd, w)
		}
	}
	return tk, err
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
