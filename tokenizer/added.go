package tokenizer

import (
	"sort"
	"unicode"
	"unicode/utf8"
)

// trie finds added tokens leftmost-longest, as the Aho-Corasick automaton of
// Hugging Face's AddedVocabulary (MatchKind::LeftmostLongest) does.
type trie struct {
	first [256]bool
	nodes []trieNode
}

type trieNode struct {
	edges []trieEdge // sorted by byte
	tok   int32      // index in Tokenizer.added ending here, or -1
}

type trieEdge struct {
	b    byte
	node int32
}

type trieEntry struct {
	pattern string
	tok     int32
}

func buildTrie(entries []trieEntry) trie {
	var t trie
	if len(entries) == 0 {
		return t
	}
	t.nodes = []trieNode{{tok: -1}}
	for _, e := range entries {
		if e.pattern == "" {
			continue
		}
		t.first[e.pattern[0]] = true
		n := int32(0)
		for i := 0; i < len(e.pattern); i++ {
			c := e.pattern[i]
			edges := t.nodes[n].edges
			j := sort.Search(len(edges), func(k int) bool { return edges[k].b >= c })
			if j < len(edges) && edges[j].b == c {
				n = edges[j].node
				continue
			}
			child := int32(len(t.nodes))
			t.nodes = append(t.nodes, trieNode{tok: -1})
			edges = append(edges, trieEdge{})
			copy(edges[j+1:], edges[j:])
			edges[j] = trieEdge{c, child}
			t.nodes[n].edges = edges
			n = child
		}
		t.nodes[n].tok = e.tok
	}
	return t
}

func (t *trie) empty() bool { return len(t.nodes) == 0 }

// longest returns the longest token matching s at i: its index and end.
func (t *trie) longest(s string, i int) (tok int32, end int) {
	tok, end = -1, -1
	n := int32(0)
	for j := i; j < len(s); j++ {
		edges := t.nodes[n].edges
		c := s[j]
		k := -1
		for x := range edges {
			if edges[x].b == c {
				k = x
				break
			}
			if edges[x].b > c {
				break
			}
		}
		if k < 0 {
			break
		}
		n = edges[k].node
		if tk := t.nodes[n].tok; tk >= 0 {
			tok, end = tk, j+1
		}
	}
	return tok, end
}

// segment is a span of text: an added token (tok >= 0) or text for the
// model (tok = -1).
type segment struct {
	start, end int
	tok        int32
}

// splitAdded splits s at the added tokens of tr, applying each token's
// single_word, lstrip and rstrip as AddedVocabulary::find_matches does.
func (t *Tokenizer) splitAdded(dst []segment, tr *trie, s string) []segment {
	if tr.empty() {
		return append(dst, segment{0, len(s), -1})
	}
	last := 0
	for i := 0; i < len(s); {
		if !tr.first[s[i]] {
			i++
			continue
		}
		k, stop := tr.longest(s, i)
		if k < 0 {
			i++
			continue
		}
		// The automaton resumes after the match, whether it is kept or not
		// and whatever white space lstrip and rstrip add to it.
		start := i
		i = stop
		a := &t.added[k]
		if a.singleWord {
			before := start > 0 && endsWithWord(s[:start])
			after := stop < len(s) && startsWithWord(s[stop:])
			if before || after {
				continue
			}
		}
		if a.lstrip {
			start = max(start-trailingSpace(s[:start]), last)
		}
		if a.rstrip {
			stop += leadingSpace(s[stop:])
		}
		if last < start {
			dst = append(dst, segment{last, start, -1})
		}
		start = max(start, last)
		dst = append(dst, segment{start, stop, k})
		last = stop
	}
	if last < len(s) {
		dst = append(dst, segment{last, len(s), -1})
	}
	return dst
}

func endsWithWord(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return isWordChar(r)
}

func startsWithWord(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return isWordChar(r)
}

// leadingSpace returns the length in bytes of s's leading white space.
func leadingSpace(s string) int {
	for i, r := range s {
		if !unicode.IsSpace(r) {
			return i
		}
	}
	return len(s)
}

// trailingSpace returns the length in bytes of s's trailing white space.
func trailingSpace(s string) int {
	n := len(s)
	for n > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:n])
		if !unicode.IsSpace(r) {
			break
		}
		n -= size
	}
	return len(s) - n
}
