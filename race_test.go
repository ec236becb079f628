//go:build race

package harmony_test

// raceEnabled is true under the race detector, which makes the exhaustive
// tests too slow to run in full (see everyRune).
const raceEnabled = true
