//go:build !race

package dataset

const raceScale = 1
