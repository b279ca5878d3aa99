package linearize

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/anishathalye/porcupine"
)

// ErrorTag is the annotation lane of the visualization that marks the first
// error (or says the history is linearizable).
const ErrorTag = "check result"

// ClientRole names client c of a recorded history: client 0 owns the queue,
// client i >= 1 is thief i (see Recorder).
func ClientRole(c int) string {
	if c == 0 {
		return "owner"
	}
	return "thief " + strconv.Itoa(c)
}

// FirstError is where porcupine's search got stuck: after the longest
// partial linearization it found (Linearized operations), none of the
// operations that could come next (Stuck, indices into the history) is a
// legal step from State. Start..End is their window: from the earliest call
// among them to the first return among the operations not linearized.
type FirstError struct {
	Linearized int
	Last       int // the last operation linearized, -1 for none
	Stuck      []int
	State      string
	Start, End int64
}

// firstError finds the first error of an Illegal check from its
// linearization info (one partition: the run-queue model has no
// partitions). ok is false if the info holds no partial linearization.
func firstError(model porcupine.Model, history []porcupine.Operation, info porcupine.LinearizationInfo) (FirstError, bool) {
	parts := info.PartialLinearizations()
	if len(parts) != 1 || len(parts[0]) == 0 {
		return FirstError{}, false
	}
	longest := parts[0][0]
	for _, l := range parts[0] {
		if len(l) > len(longest) {
			longest = l
		}
	}
	in := make([]bool, len(history))
	state := model.Init()
	for _, id := range longest {
		if id < 0 || id >= len(history) {
			return FirstError{}, false
		}
		in[id] = true
		_, state = model.Step(state, history[id].Input, history[id].Output)
	}
	fe := FirstError{Linearized: len(longest), Last: -1, State: model.DescribeState(state), End: -1}
	if len(longest) > 0 {
		fe.Last = longest[len(longest)-1]
	}
	for i, op := range history {
		if !in[i] && (fe.End < 0 || op.Return < fe.End) {
			fe.End = op.Return
		}
	}
	if fe.End < 0 {
		return FirstError{}, false // everything linearized: no error
	}
	fe.Start = fe.End
	for i, op := range history {
		if !in[i] && op.Call <= fe.End {
			fe.Stuck = append(fe.Stuck, i)
			fe.Start = min(fe.Start, op.Call)
		}
	}
	return fe, true
}

// annotate adds the visualization's own lane, ErrorTag: a red box over the
// first error's window, or a green one over the whole history when it is
// linearizable.
func annotate(model porcupine.Model, history []porcupine.Operation, res porcupine.CheckResult, info *porcupine.LinearizationInfo) (FirstError, bool) {
	if len(history) == 0 {
		return FirstError{}, false
	}
	lo, hi := history[0].Call, history[0].Return
	for _, op := range history {
		lo, hi = min(lo, op.Call), max(hi, op.Return)
	}
	if res != porcupine.Illegal {
		info.AddAnnotations([]porcupine.Annotation{{Tag: ErrorTag, Start: lo, End: hi,
			Description: "✓ linearizable", BackgroundColor: "#c8f0c8"}})
		return FirstError{}, false
	}
	fe, ok := firstError(model, history, *info)
	if !ok {
		return fe, false
	}
	var stuck []string
	for _, i := range fe.Stuck {
		op := history[i]
		stuck = append(stuck, fmt.Sprintf("%s: %s", ClientRole(op.ClientId), model.DescribeOperation(op.Input, op.Output)))
	}
	info.AddAnnotations([]porcupine.Annotation{{Tag: ErrorTag, Start: fe.Start, End: fe.End,
		Description: "✗ first error",
		Details: fmt.Sprintf("after %d operations linearized (state %s), none of these can be next: %s",
			fe.Linearized, fe.State, strings.Join(stuck, "; ")),
		TextColor: "#ffffff", BackgroundColor: "#c0392b"}})
	return fe, true
}

// pageScript relabels porcupine's client lanes with their roles (the lanes
// are numbered by client id) and, when there is an error, follows
// porcupine's own "jump to first error" link once the page is drawn:
// the first illegal linearization point is scrolled into view and its
// partial linearization selected.
const pageScript = `<script>
(function () {
  var roles = %s;
  var labels = document.querySelectorAll('#canvas svg text[text-anchor="end"]');
  for (var i = 0; i < labels.length; i++) {
    var t = labels[i].textContent;
    if (Object.prototype.hasOwnProperty.call(roles, t)) {
      labels[i].textContent = roles[t];
      labels[i].setAttribute('data-client', t);
    }
  }
  // The first error: porcupine's first illegal linearization point, shown
  // as its "jump to first error" link does (the partial linearization
  // that ends at operation %d selected, the point in view), without the
  // smooth scroll.
  var last = %d;
  var pts = document.querySelectorAll('line.linearization-invalid.linearization-point');
  var first = null;
  for (var k = 0; k < pts.length; k++) {
    if (first === null || +pts[k].getAttribute('x1') < +first.getAttribute('x1')) first = pts[k];
  }
  var op = document.querySelector('.target-rect[data-partition="0"][data-index="' + last + '"]');
  if (last >= 0 && op !== null) {
    op.dispatchEvent(new MouseEvent('click', {bubbles: true}));
    var tip = document.querySelector('.tooltip');
    if (tip !== null) tip.style.display = 'none';
  }
  if (first !== null) {
    first.scrollIntoView({inline: 'center', block: 'nearest'});
    document.body.setAttribute('data-first-error-x', first.getAttribute('x1'));
  }
})();
</script>
`

// noteHTML is a line above porcupine's legend saying what the lanes are.
const noteHTML = `<style>#canvas { margin-top: 4px }</style>
<div id="gmpcheck-note" style="font: 14px sans-serif; margin: 45px 0 0 10px">%s</div>
`

// writeVisualization writes porcupine's page for info with the roles and
// the first-error marking of annotate.
func writeVisualization(w io.Writer, model porcupine.Model, history []porcupine.Operation, res porcupine.CheckResult, info porcupine.LinearizationInfo) error {
	fe, isErr := annotate(model, history, res, &info)
	var buf bytes.Buffer
	if err := porcupine.Visualize(model, info, &buf); err != nil {
		return err
	}
	page := buf.String()
	clients := map[int]bool{}
	for _, op := range history {
		clients[op.ClientId] = true
	}
	ids := make([]int, 0, len(clients))
	for c := range clients {
		ids = append(ids, c)
	}
	sort.Ints(ids)
	roles := map[string]string{}
	var names []string
	for _, c := range ids {
		roles[strconv.Itoa(c)] = ClientRole(c)
		names = append(names, fmt.Sprintf("%s = client %d", ClientRole(c), c))
	}
	rolesJSON, err := json.Marshal(roles)
	if err != nil {
		return err
	}
	note := "Lanes: " + strings.Join(names, ", ") + ". The lane “" + ErrorTag + "” is gmpcheck's: "
	if isErr {
		note += fmt.Sprintf("the red box is the first error (after %d operations linearized, %d can neither be next nor wait); the page scrolls to it.", fe.Linearized, len(fe.Stuck))
	} else {
		note += "the history is linearizable."
	}
	note = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(note)
	const canvas = `<div id="canvas">`
	const end = `</body>`
	i, j := strings.Index(page, canvas), strings.LastIndex(page, end)
	if i < 0 || j < i {
		return fmt.Errorf("linearize: porcupine's page has no %s or %s", canvas, end)
	}
	last := -1
	if isErr {
		last = fe.Last
	}
	page = page[:i] + fmt.Sprintf(noteHTML, note) + page[i:j] + fmt.Sprintf(pageScript, rolesJSON, last, last) + page[j:]
	_, err = io.WriteString(w, page)
	return err
}

// writeVisualizationFile is writeVisualization to the file path.
func writeVisualizationFile(path string, model porcupine.Model, history []porcupine.Operation, res porcupine.CheckResult, info porcupine.LinearizationInfo) error {
	var buf bytes.Buffer
	if err := writeVisualization(&buf, model, history, res, info); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
