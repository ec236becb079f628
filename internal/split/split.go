// Package split finds the matches of a tokenizer's Split pre-tokenizer pattern
// exactly as Hugging Face tokenizers finds them with Oniguruma.
//
// A tokenizer.json writes a Split pattern as {"Regex": pattern}, an Oniguruma
// regular expression (Oniguruma's default syntax, Ruby's grammar; UTF-8;
// Unicode classes: \s is White_Space,
// \d is Nd, \p{L} and \p{N} are the general categories), or as
// {"String": s}, matched literally. Go's regexp has no look-ahead, which the
// common patterns need (\s+(?!\S)), so:
//
//   - the patterns of GPT-2, cl100k / Llama 3, Qwen 2, Qwen 3.5, o200k,
//     Mistral's Tekken and the three of DeepSeek V3, recognised by exact string equality, run on
//     hand-written scanners, each proven equal to the backtracking engine by
//     differential and fuzz tests;
//   - any other pattern is translated construct by construct into the syntax
//     of github.com/dlclark/regexp2/v2 (a backtracking engine with .NET
//     syntax) and runs there. A construct whose meaning differs between the
//     two engines and has no faithful translation is an error naming it.
//
// Invalid UTF-8 never reaches Oniguruma (Rust strings are valid UTF-8). Go
// strings may hold it; every invalid byte is then one character U+FFFD of
// width one byte, as regexp2 reads a Go string, and the scanners do the same.
//
// Classes follow Unicode 16.0, the version of Oniguruma's tables in Hugging
// Face's tokenizers, on both paths (Go's own tables are 15.0; the generated
// unicode_added.go holds the difference). The package also answers the
// other character questions the tokenizer asks as Hugging Face does, each
// at the version of the code that asks it: IsWord (an added token's
// single_word, 16.0), IsNumber (the Digits pre-tokenizer, 17.0) and
// NormUnknown (what the normalizers' tables, 9.0, do not know).
package split

import (
	"context"
	"fmt"
	"iter"
	"strings"
	"unicode/utf8"
)

// Matcher finds the matches of a pre-tokenizer pattern, leftmost-first and
// non-overlapping, exactly as Hugging Face tokenizers' Oniguruma-based Split
// finds them.
//
// A Matcher is safe for concurrent use.
type Matcher interface {
	// Find returns the first match in s that starts at or after byte offset
	// pos, as the byte span [start, end); start is -1 when there is none.
	// The match may be empty (start == end) for patterns that can match
	// nothing; All says how successive searches treat empty matches. Text
	// before pos is context (look-behind sees it) but is never matched.
	Find(s string, pos int) (start, end int)
}

// The patterns that have hand-written scanners, exactly as they appear in
// tokenizer.json files.
const (
	// PatternGPT2 is the pattern of GPT-2 (and r50k/p50k), which the
	// ByteLevel pre-tokenizer applies when use_regex is true.
	// Source: openai/tiktoken tiktoken_ext/openai_public.py (gpt2 pat_str) and
	// huggingface/tokenizers pre_tokenizers/byte_level.rs.
	PatternGPT2 = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`

	// PatternCL100K is the pattern of cl100k_base as Llama 3's tokenizer.json
	// writes it. Source: openai/tiktoken tiktoken_ext/openai_public.py
	// (cl100k_base pat_str, before the possessive rewrite).
	PatternCL100K = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

	// PatternQwen2 is the pattern of Qwen 2 and Qwen 3: cl100k with single
	// digits. Source: transformers models/qwen2/tokenization_qwen2.py
	// (PRETOKENIZE_REGEX).
	PatternQwen2 = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`

	// PatternO200K is the pattern of o200k_base (GPT-4o, gpt-oss), as
	// transformers' TikTokenConverter writes it into tokenizer.json.
	// Source: openai/tiktoken tiktoken_ext/openai_public.py (o200k_base
	// pat_str, the seven alternatives joined with "|").
	PatternO200K = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
		`|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
		`|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`

	// PatternTekken is the pattern of Mistral's Tekken tokenizer (Mistral
	// NeMo, Pixtral, Mistral Small 3, NVIDIA's Nemotron 3): o200k's without
	// the contractions, numbers one by one. Source: mistral-common's Tekken
	// tokenizer files and their tokenizer.json conversions.
	PatternTekken = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+` +
		`|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*` +
		`|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`
)

// GPT2 is the matcher of PatternGPT2, the regex of the ByteLevel
// pre-tokenizer with use_regex: its hand-written scanner.
var GPT2 Matcher = scanner(gpt2)

// Regex returns a Matcher for an Oniguruma pattern as written in
// tokenizer.json ({"Regex": pattern}). The known patterns (PatternGPT2,
// PatternCL100K, PatternQwen2, PatternQwen35, PatternO200K, PatternTekken,
// PatternDeepSeekDigits,
// PatternDeepSeekCJK, PatternDeepSeekWords; exact string match) get
// hand-written scanners; any other pattern runs on regexp2 with Oniguruma's
// semantics. A pattern that cannot run faithfully is an error that names the
// construct.
func Regex(pattern string) (Matcher, error) {
	if m := scanners[pattern]; m != nil {
		return m, nil
	}
	return Backtrack(pattern)
}

// Known names the hand-written scanner Regex uses for pattern ("gpt2",
// "cl100k", "qwen2", "qwen35", "o200k", "tekken", "deepseek-digits",
// "deepseek-cjk", "deepseek-words"), or returns "" when pattern runs on
// regexp2.
func Known(pattern string) string {
	return scannerNames[pattern]
}

// scanners maps a known pattern to its hand-written scanner; scannerNames
// names them.
var (
	scanners     = map[string]Matcher{}
	scannerNames = map[string]string{}
)

// Literal returns a Matcher for a {"String": s} pattern: s matched literally,
// case-sensitively (Hugging Face escapes s and compiles it with Oniguruma).
// The empty string matches, empty, at every position.
func Literal(s string) Matcher { return literal(s) }

type literal string

func (l literal) Find(s string, pos int) (int, int) {
	if pos < 0 {
		pos = 0
	}
	if pos > len(s) {
		return -1, -1
	}
	if l == "" {
		pos = nextBoundary(s, pos)
		return pos, pos
	}
	i := strings.Index(s[pos:], string(l))
	if i < 0 {
		return -1, -1
	}
	return pos + i, pos + i + len(l)
}

// matchStart returns where the hand-written matchers (scanner, finder)
// look for a match at or after pos: pos clamped to 0, moved off a byte
// inside a UTF-8 sequence.
func matchStart(s string, pos int) int {
	if pos <= 0 {
		return 0 // at 0, nextBoundary would return 0 too
	}
	if pos < len(s) && s[pos] >= 0x80 {
		return nextBoundary(s, pos)
	}
	return pos
}

// nextBoundary returns pos, or the start of the next character when pos is
// inside a UTF-8 sequence (an invalid byte is a character of its own).
func nextBoundary(s string, pos int) int {
	for pos < len(s) && pos > 0 && !utf8.RuneStart(s[pos]) {
		// A continuation byte: it belongs to the character before it only
		// when that character's encoding reaches it.
		start := pos - 1
		for start > 0 && pos-start < utf8.UTFMax && !utf8.RuneStart(s[start]) {
			start--
		}
		_, size := utf8.DecodeRuneInString(s[start:])
		if start+size <= pos {
			return pos // a stray continuation byte starts its own character
		}
		pos = start + size
	}
	return pos
}

// All yields the matches of m in s in the order, and with the treatment of
// empty matches, of the Rust onig crate's find_iter, which Hugging Face
// tokenizers iterates:
//
//   - each search starts where the previous match ended;
//   - after an empty match the next search starts one character further;
//   - the first empty match found after a non-empty match is dropped (and the
//     search goes on one character past it), so a pattern such as \d* gives
//     (0,0) (1,2) (3,3) (4,4) (5,6) on "a1bbb2".
//
// Hugging Face does not search an empty string at all (see Splits).
func All(m Matcher, s string) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		_ = matches(s, func(pos int) (int, int, error) {
			start, end := m.Find(s, pos)
			return start, end, nil
		}, yield)
	}
}

// matches runs find over s as All describes, until yield returns false or
// find fails.
func matches(s string, find func(pos int) (int, int, error), yield func(int, int) bool) error {
	last, skipEmpty := 0, false
	for last <= len(s) {
		start, end, err := find(last)
		if err != nil {
			return err
		}
		if start < 0 {
			return nil
		}
		last = end
		if start == end {
			if last < len(s) {
				_, size := utf8.DecodeRuneInString(s[last:])
				last += size
			} else {
				last++
			}
			if skipEmpty {
				skipEmpty = false
				continue
			}
		} else {
			skipEmpty = true
		}
		if !yield(start, end) {
			return nil
		}
	}
	return nil
}

// Splits yields the pieces of s as Hugging Face's Pattern::find_matches gives
// them to Split: every match (isMatch true, possibly empty) and every
// non-empty gap between matches (isMatch false), in order, covering s. An
// empty s gives one empty non-match piece.
func Splits(m Matcher, s string, yield func(start, end int, isMatch bool) bool) {
	_ = splits(s, func(pos int) (int, int, error) {
		start, end := m.Find(s, pos)
		return start, end, nil
	}, yield)
}

// A ContextMatcher is a Matcher whose search can be stopped: FindContext
// is Find, with an error when ctx is done or the search takes too long.
// BacktrackMatcher is one; the hand-written scanners and Literal run in
// linear time and need not be.
type ContextMatcher interface {
	Matcher
	FindContext(ctx context.Context, s string, pos int) (start, end int, err error)
}

// FindContext is m's FindContext when m is a ContextMatcher, otherwise
// m.Find once ctx is checked.
func FindContext(ctx context.Context, m Matcher, s string, pos int) (int, int, error) {
	if cm, ok := m.(ContextMatcher); ok {
		return cm.FindContext(ctx, s, pos)
	}
	if err := ctx.Err(); err != nil {
		return -1, -1, err
	}
	start, end := m.Find(s, pos)
	return start, end, nil
}

// SplitsContext is Splits with each search bounded as FindContext bounds
// it; it returns the first search's error, after yielding the pieces
// found before it.
func SplitsContext(ctx context.Context, m Matcher, s string, yield func(start, end int, isMatch bool) bool) error {
	cm, ok := m.(ContextMatcher)
	if !ok {
		if err := ctx.Err(); err != nil {
			return err
		}
		Splits(m, s, yield)
		return nil
	}
	return splits(s, func(pos int) (int, int, error) { return cm.FindContext(ctx, s, pos) }, yield)
}

// splits is Splits over a find function.
func splits(s string, find func(pos int) (int, int, error), yield func(start, end int, isMatch bool) bool) error {
	if s == "" {
		yield(0, 0, false)
		return nil
	}
	prev := 0
	stopped := false
	err := matches(s, find, func(start, end int) bool {
		if prev != start {
			if !yield(prev, start, false) {
				stopped = true
				return false
			}
		}
		if !yield(start, end, true) {
			stopped = true
			return false
		}
		prev = end
		return true
	})
	if err != nil || stopped {
		return err
	}
	if prev != len(s) {
		yield(prev, len(s), false)
	}
	return nil
}

// PatternError is the error Regex returns for a pattern it cannot run
// faithfully.
type PatternError struct {
	Pattern string // the pattern as written in tokenizer.json
	Offset  int    // byte offset of the offending construct in Pattern, or -1
	Msg     string // what is wrong
}

func (e *PatternError) Error() string {
	if e.Offset < 0 {
		return fmt.Sprintf("split pattern %q: %s", e.Pattern, e.Msg)
	}
	return fmt.Sprintf("split pattern %q at byte %d: %s", e.Pattern, e.Offset, e.Msg)
}
