package grammar

import (
	"math/big"
	"slices"
	"testing"
)

// TestIntegralSpellings checks integralSpellings, whose plain integers
// skip the rational, against the rule it states: the int's and the
// float's spellings of a whole number below 10^16 in magnitude, none for
// other numbers.
func TestIntegralSpellings(t *testing.T) {
	byRule := func(lit string) []string {
		r, ok := new(big.Rat).SetString(lit)
		if !ok || !r.IsInt() || new(big.Int).Abs(r.Num()).Cmp(big.NewInt(1e16)) >= 0 {
			return nil
		}
		n := r.Num().String()
		return []string{n, n + ".0"}
	}
	for _, lit := range []string{
		"0", "-0", "1", "-1", "7", "10", "-10", "00", "01", "-01", "2.0", "2.5", "-2.0", "1e3", "1E3", "-1e-0",
		"9999999999999999", "-9999999999999999", "10000000000000000", "-10000000000000000", "99999999999999999",
		"1.0e2", "0.0", "-0.0", "", "-", "1a", "+1", "12345678901234567890",
	} {
		if got, want := integralSpellings(lit), byRule(lit); !slices.Equal(got, want) {
			t.Errorf("integralSpellings(%q) = %q, want %q", lit, got, want)
		}
	}
}
