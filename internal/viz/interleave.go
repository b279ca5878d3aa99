package viz

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/gmpcheck/gmpcheck/internal/interleave"
	"github.com/gmpcheck/gmpcheck/spec"
)

// InterleavePage is the picture of an interleave counterexample: the real
// run-queue code's atomic steps, one column per step, one lane per actor;
// each call is a coloured bar over its window (first to last atomic step),
// the step's access (load head, CAS head, store tail ...) and its queue in
// the cell of the actor that took it. Under the strip: every call with what
// it returned, the queues before and after, and the replay command.
type InterleavePage struct {
	Title     string
	Violation *interleave.Violation
	Replay    string // the command line that replays the schedule ("" for none)
}

type ilCell struct {
	Op, Obj string
	Call    int // index in calls, -1 outside a call
	Colour  int
	First   bool
	Last    bool
	Acting  bool
	Title   string
}

type ilLane struct {
	Name  string
	Queue string
	Cells []ilCell
}

type ilCall struct {
	I          int
	Actor      string
	What       string
	Result     string
	First      int
	Last       int
	Done       bool
	Colour     int
	Overlapped bool
}

type ilPage struct {
	Title, Kind, Msg, Scenario, Doc, Schedule, Replay string
	Steps                                             []int
	Lanes                                             []ilLane
	Calls                                             []ilCall
	Init, Final                                       []string
	Last                                              int
	Panic                                             string
}

// WriteInterleave renders p as one self-contained HTML document.
func WriteInterleave(w io.Writer, p InterleavePage) error {
	v := p.Violation
	if v == nil || v.Exec == nil || v.Exec.Scenario == nil {
		return errors.New("viz: no interleave violation to draw")
	}
	ex := v.Exec
	sc := ex.Scenario
	d := ilPage{Title: p.Title, Kind: string(v.Kind), Msg: v.Msg, Scenario: sc.String(), Doc: sc.Doc,
		Schedule: ex.Schedule().String(), Replay: p.Replay, Last: len(ex.Steps) - 1}
	if ex.Panic != nil {
		d.Panic = fmt.Sprintf("actor %d panicked: %s", ex.Panic.Actor, ex.Panic.Value)
	}
	for i := range ex.Steps {
		d.Steps = append(d.Steps, i)
	}
	// Calls, actor by actor; callAt[actor][step] is the call the actor was in.
	callOf := map[[2]int]int{} // (actor, script index) → index in d.Calls
	for i := range ex.Calls {
		c := &ex.Calls[i]
		a := sc.Actors[c.Actor]
		ic := ilCall{I: i, Actor: a.Name, What: describe(c.Call, a.Queue), Result: result(c), First: c.First, Last: c.Last,
			Done: c.Done, Colour: i % 12}
		callOf[[2]int{c.Actor, c.Index}] = len(d.Calls)
		d.Calls = append(d.Calls, ic)
	}
	// Calls whose windows overlap a call of another actor.
	for i := range d.Calls {
		for j := range d.Calls {
			a, b := &ex.Calls[i], &ex.Calls[j]
			if a.Actor != b.Actor && a.First <= b.Last && b.First <= a.Last {
				d.Calls[i].Overlapped = true
			}
		}
	}
	for ai, a := range sc.Actors {
		lane := ilLane{Name: a.Name, Queue: "q" + strconv.Itoa(a.Queue)}
		for si := range ex.Steps {
			cell := ilCell{Call: -1}
			for ci := range ex.Calls {
				c := &ex.Calls[ci]
				if c.Actor == ai && c.First <= si && si <= c.Last {
					cell.Call = callOf[[2]int{c.Actor, c.Index}]
					cell.Colour = d.Calls[cell.Call].Colour
					cell.First, cell.Last = si == c.First, si == c.Last
				}
			}
			if st := ex.Steps[si]; st.Actor == ai {
				cell.Acting = true
				cell.Op = st.Op.String()
				cell.Obj = "global"
				if st.Obj != interleave.GlobalObj {
					cell.Obj = "q" + strconv.Itoa(st.Obj)
				}
				if k, ok := callOf[[2]int{ai, st.Call}]; ok {
					cell.Call, cell.Colour = k, d.Calls[k].Colour
					cell.Title = d.Calls[k].What
				}
			}
			lane.Cells = append(lane.Cells, cell)
		}
		d.Lanes = append(d.Lanes, lane)
	}
	for i := 0; i < sc.Queues; i++ {
		q := spec.LocalQueue{Cap: sc.Cap}
		if i < len(sc.Init) {
			q.RunNext, q.Ring = sc.Init[i].RunNext, sc.Init[i].Ring
		}
		d.Init = append(d.Init, fmt.Sprintf("q%d %v", i, q))
	}
	if len(sc.Global) > 0 {
		d.Init = append(d.Init, fmt.Sprintf("global %v", sc.Global))
	}
	if ex.Complete {
		for i, q := range ex.Final {
			d.Final = append(d.Final, fmt.Sprintf("q%d %v", i, q))
		}
		d.Final = append(d.Final, fmt.Sprintf("global %v", ex.FinalGlobal.Gs))
	}
	var buf bytes.Buffer
	if err := ilTmpl.Execute(&buf, d); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// WriteInterleaveFile writes the page to path.
func WriteInterleaveFile(path string, p InterleavePage) error {
	var buf bytes.Buffer
	if err := WriteInterleave(&buf, p); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

func describe(c interleave.Call, own int) string {
	switch c.Kind {
	case interleave.Put, interleave.PutNext:
		return fmt.Sprintf("%v g%d on q%d", c.Kind, c.G, own)
	case interleave.Get, interleave.Drain:
		return fmt.Sprintf("%v q%d", c.Kind, own)
	case interleave.Steal, interleave.StealNext:
		return fmt.Sprintf("%v q%d → q%d", c.Kind, c.Q, own)
	}
	return fmt.Sprintf("%v q%d", c.Kind, c.Q)
}

func result(c *interleave.CallRecord) string {
	if !c.Done {
		return "did not return"
	}
	switch c.Call.Kind {
	case interleave.Get:
		if c.G == spec.NoG {
			return "none"
		}
		return fmt.Sprintf("g%d inherit=%v", c.G, c.Inherit)
	case interleave.Steal, interleave.StealNext:
		if c.G == spec.NoG {
			return "none"
		}
		s := "g" + strconv.Itoa(int(c.G))
		if len(c.Batch) > 1 {
			s += fmt.Sprintf(" (batch %v)", c.Batch)
		}
		return s
	case interleave.Drain:
		return fmt.Sprint(c.Gs)
	case interleave.Empty:
		return strconv.FormatBool(c.Empty)
	}
	return "done"
}

var ilTmpl = template.Must(template.New("il").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"/><meta name="viewport" content="width=device-width"/>
<title>{{.Title}}</title>
<style>` + pageCSS + ilCSS + `</style></head>
<body data-focus="{{.Last}}" data-last="{{.Last}}">
<header>
<h1>{{.Title}}</h1>
<div class="bounds">scenario {{.Scenario}}</div>
{{- if .Doc}}<div class="sum">{{.Doc}}</div>{{end}}
<div class="verdict"><span class="kind">{{.Kind}}</span><span class="detail">{{.Msg}}</span></div>
{{- if .Panic}}<div class="err">{{.Panic}}</div>{{end}}
<div class="sum">{{len .Steps}} atomic steps, schedule <code>{{.Schedule}}</code> (the actor that took each step).
<span class="legend"><span class="k-win">a call's window: first to last atomic step</span><span class="k-acc">the step's access</span><span class="k-key">← → Home End: move the focus (or click a column)</span></span></div>
</header>
<div class="strip" id="strip"><table>
<tr class="acts"><th class="lane corner">actor<small>queue</small></th>
{{- range .Steps}}<th class="act" id="h{{.}}" data-c="{{.}}"><div class="n">step {{.}}</div></th>{{end}}</tr>
{{- range .Lanes}}
<tr class="il"><th class="lane">{{.Name}}<small>own queue {{.Queue}}</small></th>
{{- range $i, $c := .Cells}}<td data-c="{{$i}}" class="{{if ge $c.Call 0}}win c{{$c.Colour}}{{if $c.First}} wf{{end}}{{if $c.Last}} wl{{end}}{{end}}{{if $c.Acting}} acting{{end}}"{{if $c.Title}} title="{{$c.Title}}"{{end}}>
{{- if $c.Acting}}<div class="op">{{$c.Op}}</div><div class="obj">{{$c.Obj}}</div>{{else if ge $c.Call 0}}<div class="in">·</div>{{end}}</td>{{end}}</tr>
{{- end}}
</table></div>
<main class="ilmain">
<section class="vbox"><div class="vt">calls <small>[first..last step] actor: call = result</small></div>
{{- range .Calls}}<div class="call"><span class="sw c{{.Colour}}"></span> <code>[{{.First}}..{{.Last}}]</code> <b>{{.Actor}}</b>: {{.What}} = <b>{{.Result}}</b>{{if .Overlapped}} <span class="ov">concurrent</span>{{end}}</div>{{end}}
</section>
<section class="vbox"><div class="vt">queues</div>
<div><b>before:</b> {{range .Init}}<code>{{.}}</code>; {{end}}</div>
{{- if .Final}}<div><b>after:</b> {{range .Final}}<code>{{.}}</code>; {{end}}</div>{{else}}<div><b>after:</b> the execution did not finish</div>{{end}}
{{- if .Replay}}<div class="replay"><b>replay:</b> <code>{{.Replay}}</code></div>{{end}}
</section>
</main>
<script>` + ilJS + `</script>
</body></html>
`))

// ilCSS: a colour per call (the window's band), the acting cell in bold.
const ilCSS = `
.k-win{background:#d7e9f7;border-left:3px solid #5b6475;border-right:3px solid #5b6475}.k-acc{box-shadow:inset 0 -3px 0 #1565c0;font-weight:600}
tr.il td{min-width:74px;height:46px;vertical-align:middle;text-align:center;cursor:pointer}
td.win{background:#eef3fb}
td.c0,.sw.c0{background:#d7e9f7}td.c1,.sw.c1{background:#fde2c8}td.c2,.sw.c2{background:#d8f0dc}td.c3,.sw.c3{background:#f7d6d9}
td.c4,.sw.c4{background:#e6dcf2}td.c5,.sw.c5{background:#f6ecc6}td.c6,.sw.c6{background:#dbe7ff}td.c7,.sw.c7{background:#ecdccd}
td.c8,.sw.c8{background:#d7e9f7}td.c9,.sw.c9{background:#fde2c8}td.c10,.sw.c10{background:#d8f0dc}td.c11,.sw.c11{background:#f7d6d9}
td.wf{border-left:3px solid #5b6475}td.wl{border-right:3px solid #5b6475}
td.acting{box-shadow:inset 0 -3px 0 #1565c0}
.op{font:600 11.5px ui-monospace,Menlo,Consolas,monospace}
.obj{font-size:10.5px;color:#5b6475}
.in{color:#8a93a3}
td.f{outline:2px solid #1565c0;outline-offset:-2px}
th.act.f{background:#dbe7ff}
.ilmain{display:flex;flex-wrap:wrap;gap:12px;padding:12px 16px}
.vbox{background:#fff;border:1px solid #dde1e7;border-radius:6px;padding:8px 10px;max-width:100%}
.vt{font-weight:700;margin-bottom:4px}
.call{margin:2px 0}
.sw{display:inline-block;width:14px;height:12px;border:1px solid rgba(0,0,0,.25);vertical-align:middle}
.ov{background:#7b1fa2;color:#fff;border-radius:3px;padding:0 4px;font-size:10px}
.replay{margin-top:6px}
`

// ilJS moves a focus column with the keys (no '<' or '&': the page stays
// well-formed XML).
const ilJS = `(function(){
var b=document.body,last=+b.dataset.last,cur=-1;
function cells(i){return document.querySelectorAll('[data-c="'+i+'"]');}
function focus(i){
i=Math.max(0,Math.min(last,i));
if(i===cur){return;}
if(cur>=0){cells(cur).forEach(function(e){e.classList.remove('f');});}
cur=i;
cells(i).forEach(function(e){e.classList.add('f');});
var h=document.getElementById('h'+i);if(h){h.scrollIntoView({block:'nearest',inline:'nearest'});}
}
document.addEventListener('keydown',function(e){
var k={ArrowLeft:cur-1,ArrowRight:cur+1,Home:0,End:last}[e.key];
if(k===undefined||e.altKey||e.ctrlKey||e.metaKey){return;}
e.preventDefault();focus(k);
});
document.addEventListener('click',function(e){
var t=e.target.closest('[data-c]');
if(t){focus(+t.dataset.c);}
});
focus(+b.dataset.focus);
})();`

// sanity: the script must stay XML-safe.
var _ = func() bool {
	if strings.ContainsAny(ilJS, "<&") {
		panic("viz: ilJS must have no '<' or '&'")
	}
	return true
}()
