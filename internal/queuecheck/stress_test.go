package queuecheck

import (
	"testing"
	"time"
)

func TestFinishWithin(t *testing.T) {
	if !finishWithin(time.Minute, func() {}) {
		t.Fatal("a function that returns at once was reported stuck")
	}
	block := make(chan struct{})
	defer close(block) // let the abandoned goroutine end with the test
	if finishWithin(10*time.Millisecond, func() { <-block }) {
		t.Fatal("a function that never returns was reported finished")
	}
}
