//go:build race

package impl

const raceEnabled = true
