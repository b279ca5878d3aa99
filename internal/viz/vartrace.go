package viz

import (
	"bytes"
	"errors"
	"html/template"
	"io"
	"os"
	"sort"
	"strconv"
)

// VarTracePage is the picture of a TLA+ counterexample whose states are
// not GMP.tla's (RunQueue.tla): a column per state, a lane per variable
// with its value, the cells a step changed highlighted, the lasso's cycle
// marked.
type VarTracePage struct {
	Title, Kind, Detail, Note string
	Trace                     TLATrace
	Labels                    []string // per step (state i has Labels[i-1]), optional
}

type vtCell struct {
	Text string
	Chg  bool
}

type vtPage struct {
	Title, Kind, Detail, Note string
	Cols                      []vtCol
	Vars                      []vtVar
	Last, Loop                int
}

type vtCol struct {
	I     int
	Head  string
	Label string
	Class string
}

type vtVar struct {
	Name  string
	Cells []vtCell
}

// WriteVarTrace renders p as one self-contained HTML document.
func WriteVarTrace(w io.Writer, p VarTracePage) error {
	tr := p.Trace
	if len(tr.States) == 0 {
		return errors.New("viz: no states to draw")
	}
	d := vtPage{Title: p.Title, Kind: p.Kind, Detail: p.Detail, Note: p.Note, Last: len(tr.States) - 1, Loop: tr.Loop}
	for i := range tr.States {
		c := vtCol{I: i, Head: "initial", Label: "initial state"}
		if i > 0 {
			c.Head, c.Label = "step "+strconv.Itoa(i), ""
			if i-1 < len(p.Labels) {
				c.Label = p.Labels[i-1]
			}
		}
		switch {
		case tr.Loop >= 0 && i == tr.Loop:
			c.Class = "cycstart"
		case tr.Loop >= 0 && i > tr.Loop:
			c.Class = "cyc"
		}
		if i == d.Last && tr.Loop < 0 {
			c.Class = "bad"
		}
		d.Cols = append(d.Cols, c)
	}
	var names []string
	for n := range tr.States[0] {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		v := vtVar{Name: n}
		for i, s := range tr.States {
			txt := s[n].String()
			chg := i > 0 && txt != tr.States[i-1][n].String()
			v.Cells = append(v.Cells, vtCell{Text: txt, Chg: chg})
		}
		d.Vars = append(d.Vars, v)
	}
	var buf bytes.Buffer
	if err := vtTmpl.Execute(&buf, d); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// WriteVarTraceFile writes the page to path.
func WriteVarTraceFile(path string, p VarTracePage) error {
	var buf bytes.Buffer
	if err := WriteVarTrace(&buf, p); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

var vtTmpl = template.Must(template.New("vt").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"/><meta name="viewport" content="width=device-width"/>
<title>{{.Title}}</title>
<style>` + pageCSS + `
tr.vv td{font:11.5px ui-monospace,Menlo,Consolas,monospace;white-space:pre-wrap;max-width:420px}
td.f{outline:2px solid #1565c0;outline-offset:-2px}
</style></head>
<body data-focus="{{.Last}}" data-last="{{.Last}}">
<header>
<h1>{{.Title}}</h1>
<div class="verdict"><span class="kind">{{.Kind}}</span><span class="detail">{{.Detail}}</span></div>
{{- if .Note}}<div class="bounds">{{.Note}}</div>{{end}}
<div class="sum">{{len .Cols}} states{{if ge .Loop 0}}; after the last, the behaviour returns to state {{.Loop}} (↻){{end}}.
<span class="legend"><span class="k-chg">changed by the step</span><span class="k-key">← → Home End: move the focus (or click a column)</span></span></div>
</header>
<div class="strip" id="strip"><table>
<tr class="acts"><th class="lane corner">variable<small>step / action</small></th>
{{- range .Cols}}<th class="act {{.Class}}" id="h{{.I}}" data-c="{{.I}}"><div class="n">{{.Head}}</div><div class="what">{{.Label}}</div></th>{{end}}</tr>
{{- range .Vars}}
<tr class="vv"><th class="lane">{{.Name}}</th>
{{- range $i, $c := .Cells}}<td data-c="{{$i}}" class="{{if $c.Chg}}chg{{end}}">{{$c.Text}}</td>{{end}}</tr>
{{- end}}
</table></div>
<script>` + ilJS + `</script>
</body></html>
`))
