package linearize

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gmpcheck/gmpcheck/spec"
)

// String shows one state as the visualization's tooltips do:
// "runnext=g3 ring=[g1 g2]/4 glob=[g5]", plus "kicked=g4" and
// "transit=[g6 g7]" while an owner's Put is carrying Gs.
func (q *Queues) String() string {
	var b strings.Builder
	b.WriteString(q.Local.String())
	b.WriteString(" glob=")
	writeGs(&b, q.Global.Gs)
	if q.Kicked != spec.NoG {
		b.WriteString(" kicked=" + gName(q.Kicked))
	}
	if len(q.Transit) > 0 {
		b.WriteString(" transit=")
		writeGs(&b, q.Transit)
	}
	return b.String()
}

// String lists the possible states separated by " | ".
func (s State) String() string {
	parts := make([]string, len(s))
	for i, q := range s {
		parts[i] = q.String()
	}
	return strings.Join(parts, " | ")
}

func (in Input) String() string {
	switch in.Kind {
	case KindPut, KindPutNext:
		return in.Kind.String() + "(" + gName(in.G) + ")"
	case KindSteal:
		if in.StealRunNext {
			return "Steal(runnext)"
		}
		return "Steal()"
	}
	return in.Kind.String() + "()"
}

// describeOperation renders "Put(g3)", "Get() → g3 inherit",
// "Steal(runnext) → [g1 g2]", "Empty() → false" and so on.
func describeOperation(input, output any) string {
	in, ok := input.(Input)
	if !ok {
		return fmt.Sprintf("%v → %v", input, output)
	}
	switch in.Kind {
	case KindPut, KindPutNext:
		return in.String()
	}
	out, ok := output.(Output)
	if !ok {
		return fmt.Sprintf("%v → %v", in, output)
	}
	var b strings.Builder
	b.WriteString(in.String())
	b.WriteString(" → ")
	switch in.Kind {
	case KindGet:
		b.WriteString(gName(out.G))
		if out.InheritTime {
			b.WriteString(" inherit")
		}
	case KindSteal, KindDrain:
		writeGs(&b, out.Gs)
	case KindEmpty:
		b.WriteString(strconv.FormatBool(out.Empty))
	case KindGlobGet:
		b.WriteString(gName(out.G))
	default:
		fmt.Fprintf(&b, "%+v", out)
	}
	return b.String()
}

func gName(g spec.GID) string {
	if g == spec.NoG {
		return "none"
	}
	return "g" + strconv.Itoa(int(g))
}

func writeGs(b *strings.Builder, gs []spec.GID) {
	b.WriteByte('[')
	for i, g := range gs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(gName(g))
	}
	b.WriteByte(']')
}
