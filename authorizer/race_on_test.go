//go:build race

package authorizer

// raceEnabled: the race detector's sync.Pool drops items at random, so
// allocation counts are not meaningful.
const raceEnabled = true
