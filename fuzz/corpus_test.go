package fuzz

import (
	"fmt"
	"strconv"
	"strings"
)

// parseCorpusFile reads a one-value []byte corpus file in the
// "go test fuzz v1" format, so tests can run a committed seed directly.
func parseCorpusFile(b []byte) ([]byte, error) {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || lines[0] != "go test fuzz v1" {
		return nil, fmt.Errorf("not a one-value fuzz corpus file")
	}
	lit, ok := strings.CutPrefix(lines[1], "[]byte(")
	if !ok || !strings.HasSuffix(lit, ")") {
		return nil, fmt.Errorf("value is not a []byte")
	}
	s, err := strconv.Unquote(strings.TrimSuffix(lit, ")"))
	if err != nil {
		return nil, err
	}
	return []byte(s), nil
}
