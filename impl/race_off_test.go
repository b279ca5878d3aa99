//go:build !race

package impl

const raceEnabled = false
