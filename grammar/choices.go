package grammar

import "slices"

// Choices of names to leave out of an object: a oneOf of variants that
// only require names (exclusiveVariants, gap decision 200) and nots of
// required (notRequired, decisions 199 and 205) each ask an object to lack
// a name of each of some sets; each least choice of such names is a case
// of the object.

// leastChoices returns the least sets of names that hold a name of each of
// sets (the minimal hitting sets), or ok false when they are more than
// limit. None when a set is empty.
func leastChoices(sets [][]string, limit int) (choices [][]string, ok bool) {
	return moreChoices([][]string{nil}, sets, limit)
}

// moreChoices is leastChoices of the sets choices were made of and sets:
// choices (leastChoices' of the first ones) gain a name of each of sets.
// Nots taken one by one extend the choices so, each once, not the whole
// list again for each (gap decision 316).
func moreChoices(choices [][]string, sets [][]string, limit int) ([][]string, bool) {
	for _, set := range sets {
		if len(set) == 0 {
			return nil, true
		}
		var next [][]string
		for _, ch := range choices {
			if slices.ContainsFunc(ch, func(name string) bool { return slices.Contains(set, name) }) {
				next = append(next, ch)
				continue
			}
			for _, name := range set {
				next = append(next, append(slices.Clip(ch), name))
			}
		}
		if len(next) > 16*limit {
			return nil, false
		}
		if choices = leastSets(next); len(choices) > limit {
			return nil, false
		}
	}
	return choices, true
}

// leastSets returns sets without those that hold another set of them (a
// case that leaves out more names than another is in it already), or
// that equal an earlier one.
func leastSets(sets [][]string) [][]string {
	holds := func(a, b []string) bool { // every name of b is in a
		for _, name := range b {
			if !slices.Contains(a, name) {
				return false
			}
		}
		return true
	}
	var out [][]string
	for i, a := range sets {
		redundant := false
		for j, b := range sets {
			if i != j && holds(a, b) && (len(b) < len(a) || j < i) {
				redundant = true
				break
			}
		}
		if !redundant {
			out = append(out, a)
		}
	}
	return out
}

// maxNotRequiredNames caps the names of the sets a view's nots of required
// ask its objects to lack one of each (the names counted once per set):
// the choices' work grows with their square, and a not past it is
// reported (an error under strict). Real schemas name a few.
const maxNotRequiredNames = 64

// setsNames returns the number of names of sets, each set's counted.
func setsNames(sets [][]string) int {
	n := 0
	for _, set := range sets {
		n += len(set)
	}
	return n
}
