//go:build race

package bughist

const raceEnabled = true
