// Package spell finds the name a misspelt one was probably meant to be:
// the optimal string alignment distance (insertions, deletions,
// substitutions and swaps of two neighbours), ASCII case ignored.
package spell

// Distance is the optimal string alignment distance between a and b, by
// bytes, ASCII letters compared without case. Its cost is len(a) times
// len(b): callers bound the lengths.
func Distance(a, b string) int {
	var small [3][33]int
	var prev2, prev, cur []int
	if len(b) < len(small[0]) {
		prev2, prev, cur = small[0][:len(b)+1], small[1][:len(b)+1], small[2][:len(b)+1]
	} else {
		prev2, prev, cur = make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	}
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if fold(a[i-1]) == fold(b[j-1]) {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && fold(a[i-1]) == fold(b[j-2]) && fold(a[i-2]) == fold(b[j-1]) {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// fold is c with an ASCII capital made small.
func fold(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// Within reports whether Distance(a, b) is at most k. It computes only the
// cells within k of the diagonal and stops at the first row whose cells
// all pass k, so that comparing a name with many others that are far from
// it costs a few cells each.
func Within(a, b string, k int) bool {
	if d := len(a) - len(b); d > k || -d > k {
		return false
	}
	if len(b) >= 64 {
		return Distance(a, b) <= k
	}
	const inf = 1 << 20
	var rows [3][65]int
	prev2, prev, cur := rows[0][:len(b)+1], rows[1][:len(b)+1], rows[2][:len(b)+1]
	for j := range prev {
		prev[j] = j
		if j > k {
			prev[j] = inf
		}
	}
	for i := 1; i <= len(a); i++ {
		lo, hi := max(1, i-k), min(len(b), i+k)
		for j := range cur {
			cur[j] = inf
		}
		if i <= k {
			cur[0] = i
		}
		least := cur[0]
		for j := lo; j <= hi; j++ {
			cost := 1
			if fold(a[i-1]) == fold(b[j-1]) {
				cost = 0
			}
			c := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && fold(a[i-1]) == fold(b[j-2]) && fold(a[i-2]) == fold(b[j-1]) {
				c = min(c, prev2[j-2]+1)
			}
			cur[j] = c
			least = min(least, c)
		}
		if least > k {
			return false
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)] <= k
}

// Closest returns the name among known that key was probably meant to be:
// the one at the smallest distance, when that distance is at most 1 for
// keys of up to 4 bytes, 2 up to 8 and 3 beyond (case ignored); "" when
// none is that close, or key is longer than 64 bytes. It is the rule of
// every "did you mean" the module prints.
func Closest(key string, known []string) string {
	if len(key) > 64 {
		return ""
	}
	limit := 3
	switch {
	case len(key) <= 4:
		limit = 1
	case len(key) <= 8:
		limit = 2
	}
	best, bestDist := "", limit+1
	for _, k := range known {
		if !Within(key, k, bestDist-1) {
			continue // most keys are far from every known one: a few cells each
		}
		if d := Distance(key, k); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}
