package dataset

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestHybridRoundTrip: the writer's run-length/bit-packed levels decode to
// the levels written, for runs of every length around the groups of eight
// and widths 1 to 3.
func TestHybridRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		max := 1 + i%7
		var levels []uint8
		for len(levels) < i%300 {
			run := 1 + r.IntN(20)
			if r.IntN(3) == 0 {
				run = 1
			}
			v := uint8(r.IntN(max + 1))
			for range run {
				levels = append(levels, v)
			}
		}
		enc := appendHybrid(nil, levels, bits.Len(uint(max)))
		got, err := decodeLevels("test", enc, max, len(levels))
		if err != nil || !slices.Equal(got, levels) {
			t.Fatalf("levels %v (max %d): encoded %x, decoded %v, %v", levels, max, enc, got, err)
		}
	}
}

// TestInt96: an INT96 is its signed decimal, as parquet-go gave it.
func TestInt96(t *testing.T) {
	int96 := func(lo uint64, hi uint32) []byte {
		return binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint64(nil, lo), hi)
	}
	tests := []struct {
		b    []byte
		want string
	}{
		{int96(0, 0), "0"},
		{int96(42, 0), "42"},
		{int96(0, 1), "18446744073709551616"},
		{int96(^uint64(0), ^uint32(0)), "-1"},
		{int96(0, 1<<31), "-39614081257132168796771975168"},
	}
	for _, tt := range tests {
		if got := int96String(tt.b); got != tt.want {
			t.Errorf("%x: %s, want %s", tt.b, got, tt.want)
		}
	}
}

// TestBitPackedLevels: the deprecated BIT_PACKED levels of a v1 page are
// read most significant bit first.
func TestBitPackedLevels(t *testing.T) {
	// Levels 1, 0, 2, 3, 1 at 2 bits: 01 00 10 11 | 01 000000.
	levels, rest, err := levelsV1("definition", encBitPacked, []byte{0b01001011, 0b01000000, 0xee}, 3, 5)
	if err != nil || !slices.Equal(levels, []uint8{1, 0, 2, 3, 1}) || !slices.Equal(rest, []byte{0xee}) {
		t.Fatalf("levels %v, rest %x, %v", levels, rest, err)
	}
	if _, _, err := levelsV1("definition", encBitPacked, []byte{0xff}, 2, 4); err == nil {
		t.Fatal("a level above the maximum was accepted")
	}
}
