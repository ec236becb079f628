package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/beamharmony/harmony/internal/tokgen"
	"github.com/beamharmony/harmony/tokenizer"
)

// gpt2Dir is the small GPT-2-style fixture: quick to load, so most cases
// use it; Beam's 12 MB tokenizer is loaded only where its ids matter.
const gpt2Dir = "../tokenizer/testdata/gpt2"

func beamDir(t *testing.T) string {
	t.Helper()
	dir, err := tokgen.BeamDir()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

type tokenizeOutput struct {
	InputIDs []int    `json:"input_ids"`
	Offsets  [][2]int `json:"offsets"`
}

// TestTokenize: the output is {"input_ids", "offsets"} as the library
// encodes (markers as marker tokens, or ordinary text with --ordinary),
// offsets in characters; FILE or stdin; PATH a directory or the file.
func TestTokenize(t *testing.T) {
	dir := gpt2Dir
	tk, err := tokenizer.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	text := "<|endoftext|>user <sep> 日本語 🧬 Hi <mask> there"
	file := filepath.Join(t.TempDir(), "in.txt")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		stdin string
		args  []string
		want  *tokenizer.Encoding
	}{
		{"stdin", text, []string{"tokenize", "--tokenizer", dir}, tk.Encode(text)},
		{"file path", text, []string{"tokenize", "--tokenizer", filepath.Join(dir, "tokenizer.json")}, tk.Encode(text)},
		{"FILE", "", []string{"tokenize", file, "--tokenizer", dir}, tk.Encode(text)},
		{"ordinary", text, []string{"tokenize", "--ordinary", "--tokenizer", dir}, tk.EncodeOrdinary(text)},
	} {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, c.stdin, c.args...)
			if code != 0 || stderr != "" {
				t.Fatalf("code %d, stderr %q", code, stderr)
			}
			if !strings.HasPrefix(stdout, `{"input_ids": [`) || !strings.HasSuffix(stdout, "]}\n") {
				t.Errorf("output shape: %q", stdout)
			}
			var got tokenizeOutput
			if err := json.Unmarshal([]byte(stdout), &got); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.InputIDs, c.want.IDs) || !slices.Equal(got.Offsets, c.want.Offsets) {
				t.Errorf("got %v %v\nwant %v %v", got.InputIDs, got.Offsets, c.want.IDs, c.want.Offsets)
			}
		})
	}
	stdout, _, _ := runCLI(t, "", "tokenize", "--tokenizer", dir)
	if want := `{"input_ids": [], "offsets": []}` + "\n"; stdout != want {
		t.Errorf("empty input: got %q, want %q", stdout, want)
	}
	// Hand-checked: "Hello, world!" in o200k, offsets in characters.
	dir = beamDir(t)
	stdout, _, _ = runCLI(t, "Hello, world!", "tokenize", "--tokenizer", dir)
	if want := `{"input_ids": [13225, 11, 2375, 0], "offsets": [[0, 5], [5, 6], [6, 12], [12, 13]]}` + "\n"; stdout != want {
		t.Errorf("got %q, want %q", stdout, want)
	}
	stdout, _, _ = runCLI(t, "日本語<|start|>", "tokenize", "--tokenizer", dir)
	if want := `{"input_ids": [9048, 40909, 199998], "offsets": [[0, 2], [2, 3], [3, 12]]}` + "\n"; stdout != want {
		t.Errorf("got %q, want %q", stdout, want)
	}
}

// TestDetokenize: the text with nothing added; --skip-special drops only
// special tokens; tokenize's output is accepted.
func TestDetokenize(t *testing.T) {
	dir := gpt2Dir
	tk, err := tokenizer.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	// <sep> is an added token that is not special; <|endoftext|> is special.
	text := "<sep>hello 🧬<|endoftext|>"
	ids, _ := json.Marshal(tk.Encode(text).IDs)
	hello, _ := json.Marshal(tk.Encode("hello!").IDs)
	skipped := func(n int, what string, id, pos int) string {
		return fmt.Sprintf("beamharmony detokenize: warning: %d %s outside the vocabulary of %d tokens skipped, as Hugging Face's decode skips them (the first: %d, at position %d)\n",
			n, what, tk.VocabSize(), id, pos)
	}
	for _, c := range []struct {
		name, stdin string
		args        []string
		want        string
		stderr      string
	}{
		// The ByteLevel pre-tokenizer added a space before "hello" (add_prefix_space).
		{"all", string(ids), []string{"detokenize", "--tokenizer", dir}, "<sep> hello 🧬<|endoftext|>", ""},
		{"skip special", string(ids), []string{"detokenize", "--skip-special", "--tokenizer", dir}, "<sep> hello 🧬", ""},
		{"unknown id skipped, and said", strings.Replace(string(hello), "[", "[999999999, ", 1), []string{"detokenize", "--tokenizer", dir}, " hello!", skipped(1, "id", 999999999, 0)},
		{"unknown ids skipped, and said", strings.Replace(string(hello), "]", fmt.Sprintf(", %d, 7777777]", tk.VocabSize()), 1), []string{"detokenize", "--tokenizer", dir}, " hello!",
			skipped(2, "ids", tk.VocabSize(), len(tk.Encode("hello!").IDs))},
		{"empty", "[]", []string{"detokenize", "--tokenizer", dir}, "", ""},
		{"tokenize output", `{"input_ids": ` + string(hello) + `, "offsets": []}`, []string{"detokenize", "--tokenizer", dir}, " hello!", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, c.stdin, c.args...)
			if code != 0 || stderr != c.stderr || stdout != c.want {
				t.Errorf("code %d, stderr %q, stdout %q, want %q and stderr %q", code, stderr, stdout, c.want, c.stderr)
			}
		})
	}
}

// TestTokenizeErrors: one line on stderr, exit 1, nothing on stdout.
func TestTokenizeErrors(t *testing.T) {
	dir := gpt2Dir
	for _, c := range []struct {
		name, stdin string
		args        []string
		want        string
		code        int // 0 means 1; 2 for a usage error
	}{
		{"no tokenizer", "x", []string{"tokenize"}, "beamharmony tokenize: --tokenizer PATH is required", 2},
		{"missing path", "x", []string{"tokenize", "--tokenizer", filepath.Join(t.TempDir(), "nope")}, "beamharmony tokenize: ", 0},
		{"not a tokenizer", "x", []string{"tokenize", "--tokenizer", "../tokenizer/testdata/oracle/package.json"}, "beamharmony tokenize: ", 0},
		{"invalid UTF-8", "ab\xffc", []string{"tokenize", "--tokenizer", dir}, "beamharmony tokenize: input: invalid UTF-8 at byte 2", 0},
		{"two files", "", []string{"tokenize", "--tokenizer", dir, "a", "b"}, "beamharmony tokenize: expected at most one FILE", 2},
		{"detokenize no tokenizer", "[1]", []string{"detokenize"}, "beamharmony detokenize: --tokenizer PATH is required", 2},
		{"not an array", `"x"`, []string{"detokenize", "--tokenizer", dir}, "beamharmony detokenize: input: want a JSON array of token ids", 0},
		{"negative id", "[1, -2]", []string{"detokenize", "--tokenizer", dir}, "beamharmony detokenize: input[1]: -2 is not a token id", 0},
		{"fraction", "[1.5]", []string{"detokenize", "--tokenizer", dir}, "beamharmony detokenize: input[0]: 1.5 is not a token id", 0},
		{"id as a string", `["104"]`, []string{"detokenize", "--tokenizer", dir}, `beamharmony detokenize: input[0]: "104" is not a token id`, 0},
		{"null id", `[1, null]`, []string{"detokenize", "--tokenizer", dir}, "beamharmony detokenize: input[1]: null is not a token id", 0},
		{"null", `null`, []string{"detokenize", "--tokenizer", dir}, "beamharmony detokenize: input: want a JSON array of token ids", 0},
		{"null input_ids", `{"input_ids": null}`, []string{"detokenize", "--tokenizer", dir}, "beamharmony detokenize: input_ids: want a JSON array of token ids", 0},
		{"trailing data", "[1] [2]", []string{"detokenize", "--tokenizer", dir}, "beamharmony detokenize: input: unexpected data after the array", 0},
		{"object without ids", `{"ids": [1]}`, []string{"detokenize", "--tokenizer", dir}, `beamharmony detokenize: input: want a JSON array of token ids or an object with "input_ids"`, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, c.stdin, c.args...)
			if c.code == 0 {
				c.code = 1
			}
			if code != c.code || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, c.want) {
				t.Errorf("code %d (want %d), stdout %q, stderr %q, want prefix %q", code, c.code, stdout, stderr, c.want)
			}
		})
	}
	for _, cmd := range []string{"tokenize", "detokenize"} {
		stdout, _, code := runCLI(t, "", cmd, "--help")
		if code != 0 || !strings.Contains(stdout, "Example:") || !strings.Contains(stdout, "--tokenizer") {
			t.Errorf("%s --help: code %d, %q", cmd, code, stdout)
		}
	}
}

// TestWriteEncoding: tokenize's output holds the values encoding/json
// writes for the same encoding, byte for byte once spaces are taken out,
// and keeps its own layout (a space after each comma and colon); it is
// written without an allocation per token.
func TestWriteEncoding(t *testing.T) {
	tk, err := tokenizer.Load(beamDir(t))
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("Tokenizers 日本語 🧬 <|start|> 1234567 ", 3000)
	for _, text := range []string{"", "a", "Hello, world!", "日本語<|start|>", long} {
		e := tk.Encode(text)
		var out bytes.Buffer
		if err := writeEncoding(&out, e); err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(tokenizeOutput{e.IDs, e.Offsets})
		if err != nil {
			t.Fatal(err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, out.Bytes()); err != nil {
			t.Fatalf("%q: output is not JSON: %v", clipText(text), err)
		}
		if !bytes.Equal(compact.Bytes(), want) {
			t.Errorf("%q: compacted output\n%.200s\nencoding/json\n%.200s", clipText(text), compact.Bytes(), want)
		}
		// The layout: encoding/json's bytes with a space after each comma
		// and colon (no string holds either).
		layout := strings.NewReplacer(",", ", ", ":", ": ").Replace(string(want)) + "\n"
		if out.String() != layout {
			t.Errorf("%q: output\n%.200s\nwant\n%.200s", clipText(text), out.String(), layout)
		}
	}
	e := tk.Encode(long)
	var out bytes.Buffer
	writeEncoding(&out, e)
	size := out.Len()
	allocs := testing.AllocsPerRun(5, func() { writeEncoding(io.Discard, e) })
	// The writer's buffer only.
	if limit := 1.0; allocs > limit {
		t.Errorf("writeEncoding of %d tokens (%d bytes): %v allocations, want at most %v", len(e.IDs), size, allocs, limit)
	}
}

func clipText(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// TestAppendNat: appendNat writes what strconv does, around every change
// of length and past the values it writes itself.
func TestAppendNat(t *testing.T) {
	var vals []int
	for p := 1; p <= 100000000; p *= 10 {
		for d := -2; d <= 2; d++ {
			vals = append(vals, p+d, 2*p+d, 5*p+d)
		}
	}
	for v := 0; v < 100000; v += 7 {
		vals = append(vals, v)
	}
	vals = append(vals, -1, -12345, 999999, 1000000, math.MaxInt32, math.MaxInt)
	for _, v := range vals {
		got := appendNat([]byte("x"), v)
		if want := strconv.AppendInt([]byte("x"), int64(v), 10); !bytes.Equal(got, want) {
			t.Errorf("appendNat(%d) = %q, want %q", v, got, want)
		}
	}
}
