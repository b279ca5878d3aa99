package linearize

import (
	"fmt"
	"sort"
	"strings"

	"github.com/anishathalye/porcupine"
)

// formatHistory lists a history by call time, for failure messages.
func formatHistory(h []porcupine.Operation) string {
	h = append([]porcupine.Operation(nil), h...)
	sort.Slice(h, func(i, j int) bool { return h[i].Call < h[j].Call })
	var b strings.Builder
	for _, op := range h {
		fmt.Fprintf(&b, "  c%d [%d,%d] %s\n", op.ClientId, op.Call, op.Return, describeOperation(op.Input, op.Output))
	}
	return b.String()
}
