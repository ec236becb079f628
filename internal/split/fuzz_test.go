package split

import "testing"

// fuzzScanner checks a scanner against regexp2 on the fuzzer's texts, and
// that its matches tile the text (every known pattern matches at every
// position and never matches empty). Seeds are in testdata/fuzz/<name>.
func fuzzScanner(f *testing.F, pattern string) { fuzzMatcher(f, pattern, true) }

func FuzzScannerGPT2(f *testing.F)   { fuzzScanner(f, PatternGPT2) }
func FuzzScannerCL100K(f *testing.F) { fuzzScanner(f, PatternCL100K) }
func FuzzScannerQwen2(f *testing.F)  { fuzzScanner(f, PatternQwen2) }
func FuzzScannerO200K(f *testing.F)  { fuzzScanner(f, PatternO200K) }
func FuzzScannerTekken(f *testing.F) { fuzzScanner(f, PatternTekken) }
func FuzzScannerQwen35(f *testing.F) { fuzzScanner(f, PatternQwen35) }

// fuzzFinder checks a finder (a hand-written matcher of a pattern that
// does not match everywhere) against regexp2 on the fuzzer's texts. Seeds
// are in testdata/fuzz/<name>.
func fuzzFinder(f *testing.F, pattern string) { fuzzMatcher(f, pattern, false) }

// fuzzMatcher checks pattern's hand-written matcher against regexp2 and,
// with tiles, that its matches tile the text.
func fuzzMatcher(f *testing.F, pattern string, tiles bool) {
	scan, ref := scannerFor(f, pattern), reference(f, pattern)
	for _, s := range trickyCorpus {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d := diff(scan, ref, s); d != "" {
			t.Fatalf("%q: %s", s, d)
		}
		if !tiles {
			return
		}
		at := 0
		for start, end := range All(scan, s) {
			if start != at || end <= start {
				t.Fatalf("%q: match [%d,%d) after byte %d", s, start, end, at)
			}
			at = end
		}
		if at != len(s) {
			t.Fatalf("%q: matches end at %d of %d", s, at, len(s))
		}
	})
}

func FuzzScannerDeepSeekDigits(f *testing.F) { fuzzFinder(f, PatternDeepSeekDigits) }
func FuzzScannerDeepSeekCJK(f *testing.F)    { fuzzFinder(f, PatternDeepSeekCJK) }
func FuzzScannerDeepSeekWords(f *testing.F)  { fuzzFinder(f, PatternDeepSeekWords) }

// FuzzRegexPattern feeds arbitrary patterns to Regex: each is either refused
// with a *PatternError or runs, and never panics. Seeds are in
// testdata/fuzz/FuzzRegexPattern.
func FuzzRegexPattern(f *testing.F) {
	f.Fuzz(func(t *testing.T, pattern string) {
		m, err := Regex(pattern)
		if err != nil {
			if _, ok := err.(*PatternError); !ok {
				t.Fatalf("Regex(%q) error %T: %v", pattern, err, err)
			}
			return
		}
		for range All(m, "aB1 \n'sſ日😀\xff") {
		}
	})
}
