//go:build !race

package bughist

const raceEnabled = false
