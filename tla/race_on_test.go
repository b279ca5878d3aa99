//go:build race

package tla

const raceEnabled = true
