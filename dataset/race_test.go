//go:build race

package dataset

// raceScale divides the sizes of the larger tests under the race
// detector, which makes them several times slower.
const raceScale = 4
