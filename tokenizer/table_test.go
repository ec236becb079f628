package tokenizer

import (
	"math/rand/v2"
	"testing"
)

// TestPairTable: putAll gives what a map given the same pairs in order
// gives (a repeated pair keeps its last value), for a table small enough
// to be filled in order and for one filled in the order of home slots.
func TestPairTable(t *testing.T) {
	for _, n := range []int{10, 1000, 300000} {
		r := rand.New(rand.NewPCG(uint64(n), 1))
		pairs := make([]pairSlot, n)
		want := map[uint64]uint64{}
		for i := range pairs {
			// Ids from a small range, so that pairs repeat.
			k := uint64(r.IntN(800))<<32 | uint64(r.IntN(800))
			pairs[i] = pairSlot{k, uint64(i)}
			want[k] = uint64(i)
		}
		tab := newPairTable(len(pairs))
		tab.putAll(pairs)
		if tab.n != len(want) {
			t.Errorf("n=%d: %d pairs in the table, want %d", n, tab.n, len(want))
		}
		for k, v := range want {
			if got, ok := tab.get(k); !ok || got != v {
				t.Fatalf("n=%d: get(%x) = %d, %v; want %d", n, k, got, ok, v)
			}
		}
		for range 1000 {
			k := uint64(800+r.IntN(800))<<32 | uint64(r.IntN(1600))
			if _, ok := tab.get(k); ok {
				t.Fatalf("n=%d: get(%x) found a pair never put", n, k)
			}
		}
	}
}

// TestKeyTable: keys of every length around the inline eight bytes, a key
// repeated (its last id), and keys that are absent.
func TestKeyTable(t *testing.T) {
	keys := []string{"a", "ab", "abc", "abcd", "abcde", "abcdefg", "abcdefgh", "abcdefghi", "abcdefghijklmnop", "abcdefghijklmnopq", "\x00", "\x00\x00", "a\x00"}
	tab := newKeyTable(len(keys))
	for i, k := range keys {
		put(&tab, k, int32(i))
	}
	if old, again := put(&tab, "abcdefghi", 99); !again || old != 7 {
		t.Errorf("put of a repeated key = %d, %v; want 7, true", old, again)
	}
	tab.done()
	for i, k := range keys {
		want := int32(i)
		if k == "abcdefghi" {
			want = 99
		}
		if id, ok := tab.get(k); !ok || id != want {
			t.Errorf("get(%q) = %d, %v; want %d", k, id, ok, want)
		}
		if id, ok := get(&tab, []byte(k)); !ok || id != want {
			t.Errorf("get([]byte(%q)) = %d, %v; want %d", k, id, ok, want)
		}
	}
	for _, k := range []string{"", "b", "abcdefgj", "abcdefghj", "abcdefghijklmnoq", "\x00\x00\x00"} {
		if id, ok := tab.get(k); ok {
			t.Errorf("get(%q) = %d, true; want absent", k, id)
		}
	}
}
