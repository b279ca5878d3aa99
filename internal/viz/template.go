package viz

import "html/template"

// The page is static HTML (html/template escapes every value); the script
// only moves the focus column and shows its large view. It has no '<' or
// '&', so the document stays well-formed XML (the tests parse it as such).
var pageTmpl = template.Must(template.New("page").Parse(pageHTML))

const pageHTML = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"/><meta name="viewport" content="width=device-width"/>
<title>{{.Title}}</title>
<style>` + pageCSS + `</style></head>
<body data-focus="{{.Focus}}" data-last="{{.Last}}">
<header>
<h1>{{.Title}}</h1>
{{- if .Bounds}}<div class="bounds">{{.Bounds}}</div>{{end}}
<div class="verdict"><span class="kind">{{.Kind}}</span><span class="detail">{{.Detail}}</span></div>
{{- if .Err}}<div class="err">{{.Err}}</div>{{end}}
{{- if .Note}}<div class="bounds">{{.Note}}</div>{{end}}
<div class="sum">{{.Steps}} steps. {{.Summary}}{{if .Witness}} <b class="witness">{{.Witness}}</b>{{end}}
<span class="legend"><span class="k-chg">changed by the step</span><span class="k-act">the acting M</span><span class="k-tgt">the P it names</span>
{{- if .Cycle}}<span class="k-cyc">↻ cycle</span>{{end}}<span class="k-key">← → Home End: move the focus (or click a column)</span></span></div>
</header>
<div class="strip" id="strip"><table>
{{- if .Cycle}}
<tr class="band"><th class="lane"></th><td class="pre" colspan="{{.Prefix}}">prefix</td><td class="cycband" colspan="{{.CycleSpan}}"><span>↻ cycle: steps {{.CycleFrom}}–{{.Last}} repeat forever</span></td><td class="pre"></td></tr>
{{- end}}
<tr class="acts"><th class="lane corner">lane<small>step / action</small></th>
{{- range .Cols}}<th class="act {{.Class}}" id="h{{.I}}" data-c="{{.I}}"><div class="n">{{.Head}}</div>
{{- if .Who}}<div class="who">{{.Who}}:</div><div class="what">{{range $i, $w := .What}}{{if $i}}<wbr/>{{end}}{{$w}}{{end}}</div>{{else}}<div class="what">initial state</div>{{end}}
{{- if .Mark}}<div class="mark">{{.Mark}}</div>{{end}}</th>{{end}}
{{- if .End}}<td class="end{{if .Safety}} endbad{{end}}" rowspan="{{.Rows}}" title="{{.EndTitle}}">{{.End}}</td>{{end}}</tr>
{{- range $p := .PIdx}}
<tr class="lp"><th class="lane">p{{$p}}{{if index $.PWit $p}} <span class="wit">idle ↻</span>{{end}}<small>status, tick<br/>runnext ‖ runq</small></th>
{{- range $c := $.Cols}}{{$x := index $c.Ps $p}}<td data-c="{{$c.I}}" class="{{$c.Class}}{{if $x.Chg}} chg{{end}}{{if $x.Target}} tgt{{end}}">{{template "pcell" $x}}</td>{{end}}</tr>
{{- end}}
<tr class="lq"><th class="lane">sched.runq{{if .QWit}} <span class="wit">{{.QWit}}</span>{{end}}<small>global queue</small></th>
{{- range .Cols}}<td data-c="{{.I}}" class="{{.Class}}{{if .Runq.Chg}} chg{{end}}">{{range .Runq.Gs}}{{template "g" .}}{{else}}<span class="none">empty</span>{{end}}</td>{{end}}</tr>
{{- range $m := .MIdx}}
<tr class="lm"><th class="lane">m{{$m}}<small>pc<br/>P curg scan</small></th>
{{- range $c := $.Cols}}{{$x := index $c.Ms $m}}<td data-c="{{$c.I}}" class="{{$c.Class}}{{if $x.Chg}} chg{{end}}{{if $x.Actor}} actor{{end}}">{{template "mcell" $x}}</td>{{end}}</tr>
{{- end}}
<tr class="ls"><th class="lane">sched<small>counters</small></th>
{{- range .Cols}}<td data-c="{{.I}}" class="{{.Class}}{{if .SChg}} chg{{end}}"><div class="ctg">{{range .Sched}}<span class="ct{{if .Chg}} c{{end}}" title="{{.Name}}">{{.Short}} <b>{{.Val}}</b></span>{{end}}</div></td>{{end}}</tr>
<tr class="lg"><th class="lane">G<small>status</small></th>
{{- range .Cols}}<td data-c="{{.I}}" class="{{.Class}}{{if .GChg}} chg{{end}}">{{range .G}}<span class="gc{{if .Chg}} c{{end}}"><span class="g g{{.ID}}">{{.Name}}</span> <span class="st-{{.Status}}">{{.Status}}</span></span>{{end}}</td>{{end}}</tr>
</table></div>
<main id="big">
{{- range .Cols}}
<section class="view {{.Class}}" id="v{{.I}}"{{if ne .I $.Focus}} hidden="hidden"{{end}}>
<div class="vhead"><button type="button" data-go="-1" title="previous (←)">‹</button><button type="button" data-go="1" title="next (→)">›</button>
<span class="vstep">{{.Head}} of {{$.Steps}}</span><span class="vact">{{.Label}}</span>{{if .Mark}}<span class="mark">{{.Mark}}</span>{{end}}</div>
<div class="vbody">
<div class="vbox{{if or .Runq.Chg .SChg}} chg{{end}}"><div class="vt">sched.runq <small>global queue</small></div><div class="q">{{range .Runq.Gs}}{{template "g" .}}{{else}}<span class="none">empty</span>{{end}}</div>
<div class="vcts">{{range .Sched}}<span class="vct{{if .Chg}} c{{end}}">{{.Name}} <b>{{.Val}}</b></span>{{end}}</div></div>
{{- range .Ps}}<div class="vp {{if .Running}}run{{else}}idle{{end}}{{if .Chg}} chg{{end}}{{if .Target}} tgt{{end}}">
<div class="vt">{{.Name}} <span class="ps {{if .Running}}run{{else}}idle{{end}}{{if .StatusChg}} c{{end}}">{{if .Running}}running{{else}}idle{{end}}</span> <span class="tick{{if .TickChg}} c{{end}}">schedtick {{.Tick}}</span></div>
{{- with .HM}}{{template "bigm" .}}{{else}}<div class="nom">held by no M</div>{{end}}
<div class="vq"><span class="lbl">runnext</span><span class="rn">{{template "g" .RunNext}}</span><span class="lbl">runq</span>{{range .Ring}}{{template "g" .}}{{end}}</div></div>{{end}}
<div class="vbox"><div class="vt">Ms without a P</div>{{range .Free}}{{template "bigm" .}}{{else}}<span class="none">none</span>{{end}}</div>
<div class="vbox{{if .GChg}} chg{{end}}"><div class="vt">Gs</div>{{range .G}}<div class="gc{{if .Chg}} c{{end}}"><span class="g g{{.ID}}">{{.Name}}</span> <span class="st-{{.Status}}">{{.Status}}</span></div>{{end}}</div>
</div></section>
{{- end}}
</main>
<script>` + pageJS + `</script>
</body></html>
{{define "g"}}<span class="g{{if .Name}} g{{.ID}}{{else}} e{{end}}{{if .Chg}} c{{end}}">{{.Name}}</span>{{end}}
{{- define "pcell"}}<div><span class="ps {{if .Running}}run{{else}}idle{{end}}{{if .StatusChg}} c{{end}}">{{if .Running}}running{{else}}idle{{end}}</span> <span class="tick{{if .TickChg}} c{{end}}" title="schedtick residue">t{{.Tick}}</span></div>
<div class="nw"><span class="rn" title="runnext">{{template "g" .RunNext}}</span><span class="sep"></span>{{range .Ring}}{{template "g" .}}{{end}}</div>{{end}}
{{- define "mcell"}}<div><span class="pc pc-{{.PC}}{{if .PCChg}} c{{end}}">{{.PC}}</span>{{if .Spinning}} <span class="spin{{if .SpinChg}} c{{end}}">⟳ spin</span>{{else if .SpinChg}} <span class="unspin c">spin off</span>{{end}}</div>
<div>{{if .P}}<span class="mp{{if .PChg}} c{{end}}">{{.P}}</span> {{else if .PChg}}<span class="mp nop c">no P</span> {{end}}{{if .CurG.Name}}{{template "g" .CurG}}{{end}}{{if .Scan}} <span class="scan{{if .ScanChg}} c{{end}}">{{.Scan}}</span>{{end}}</div>{{end}}
{{- define "bigm"}}<div class="vm{{if .Actor}} actor{{end}}{{if .Chg}} chg{{end}}"><b>{{.Name}}</b> <span class="pc pc-{{.PC}}{{if .PCChg}} c{{end}}">{{.PC}}</span>
{{- if .CurG.Name}} curg {{template "g" .CurG}}{{end}}{{if .Spinning}} <span class="spin{{if .SpinChg}} c{{end}}">⟳ spinning</span>{{end}}{{if .Scan}} <span class="scan{{if .ScanChg}} c{{end}}">scanned {{.Scan}}</span>{{end}}{{if .Actor}} <span class="acttag">acts</span>{{end}}</div>{{end}}
`

const pageJS = `(function(){
var b=document.body,last=+b.dataset.last,cur=-1;
function cells(i){return document.querySelectorAll('[data-c="'+i+'"]');}
function focus(i){
i=Math.max(0,Math.min(last,i));
if(i===cur){return;}
if(cur>=0){cells(cur).forEach(function(e){e.classList.remove('f');});document.getElementById('v'+cur).hidden=true;}
cur=i;
cells(i).forEach(function(e){e.classList.add('f');});
document.getElementById('v'+i).hidden=false;
document.getElementById('h'+i).scrollIntoView({block:'nearest',inline:'nearest'});
}
document.addEventListener('keydown',function(e){
var k={ArrowLeft:cur-1,ArrowRight:cur+1,Home:0,End:last}[e.key];
if(k===undefined||e.altKey||e.ctrlKey||e.metaKey){return;}
e.preventDefault();focus(k);
});
document.addEventListener('click',function(e){
var t=e.target.closest('[data-go]');
if(t){focus(cur+(+t.dataset.go));return;}
t=e.target.closest('[data-c]');
if(t){focus(+t.dataset.c);}
});
focus(+b.dataset.focus);
})();`

const pageCSS = `
*{box-sizing:border-box}
body{margin:0;font:12px/1.35 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2330;background:#f4f5f8}
header{padding:10px 16px 8px;background:#fff;border-bottom:1px solid #dde1e7}
h1{font-size:17px;margin:0}
.bounds{color:#5b6475;font:11.5px ui-monospace,Menlo,Consolas,monospace;margin-top:2px}
.verdict{margin-top:7px;font-size:14.5px;line-height:1.5}
.kind{background:#c62828;color:#fff;border-radius:4px;padding:2px 8px;font-weight:600;margin-right:8px}
.detail{font-weight:600}
.err{font:12px ui-monospace,Menlo,Consolas,monospace;color:#8a1c1c;margin-top:3px}
.sum{margin-top:6px;color:#3d4555}
.legend{margin-left:10px;white-space:nowrap}
.legend span{display:inline-block;padding:0 6px;margin-right:6px;border-radius:3px;font-size:11px}
.k-chg{background:#fff1b8}.k-act{box-shadow:inset 3px 0 0 #1565c0;background:#eef3fb}.k-tgt{box-shadow:inset 3px 0 0 #ef6c00;background:#fff3e6}
.witness{color:#c62828;font-weight:600}
.wit{background:#c62828;color:#fff;border-radius:3px;padding:0 4px;font-size:10px;font-weight:600;white-space:nowrap}
.k-cyc{background:#7b1fa2;color:#fff}.k-key{color:#6b7385}
.strip{overflow-x:auto;background:#fff;border-bottom:1px solid #dde1e7}
table{border-collapse:separate;border-spacing:0}
th,td{padding:4px 6px;border-right:1px solid #e6e9ee;border-bottom:1px solid #e6e9ee;vertical-align:top;min-width:100px;text-align:left}
th.lane{position:sticky;left:0;z-index:2;background:#eef0f4;min-width:92px;font-size:13px}
th.lane small{display:block;font-weight:400;color:#6b7385;font-size:10px;line-height:1.25}
tr.lm th.lane{background-color:#e8ebf1}
th.act{font-weight:400;cursor:pointer;scroll-margin-left:96px;scroll-margin-right:60px;border-top:4px solid transparent}
.act .n{color:#6b7385;font-size:10.5px}
.act .who{font-weight:600;color:#1565c0}
.act .what{font:600 12px ui-monospace,Menlo,Consolas,monospace;overflow-wrap:anywhere}
.mark{margin-top:3px;font-size:10.5px;font-weight:700;color:#7b1fa2}
.bad .mark{color:#c62828}
tr.band td{font-size:11px;padding:2px 6px;border-bottom:0}
td.pre{color:#8a93a3}
td.cycband{background:#7b1fa2;color:#fff;font-weight:600}
td.cycband span{position:sticky;left:100px;white-space:nowrap}
th.act.cyc{border-top-color:#7b1fa2}
td.cyc{background-color:#fbf7fd}
th.cycstart,td.cycstart{border-right:2px dashed #7b1fa2}
th.act.bad{border-top-color:#c62828;background:#fde7e7}
td.bad{background-color:#fff6f6}
th.act.stay{border-top-color:#7b1fa2;background:#f6ecfa}
td.end{background:#f3e8fb;color:#6a1b9a;font-weight:700;font-size:14px;min-width:54px;text-align:center;vertical-align:middle}
td.endbad{background:#fde7e7;color:#c62828;font-size:18px}
td.chg{background-color:#fff4c4}
th.f{background:#dcebff}
td.f,th.f{outline:2px solid #1565c0;outline-offset:-2px}
td.actor{box-shadow:inset 3px 0 0 #1565c0}
td.tgt{box-shadow:inset 3px 0 0 #ef6c00}
.c{outline:2px solid #f0a000;outline-offset:0}
.g{display:inline-block;min-width:26px;height:18px;padding:0 4px;margin:1px 2px 1px 0;border-radius:4px;border:1px solid rgba(0,0,0,.28);font:600 11px/16px ui-monospace,Menlo,Consolas,monospace;text-align:center;vertical-align:middle;color:#10141c}
.g.e{background:#fff;border:1px dashed #b9c0cc}
.rn .g{border-radius:9px}
.rn .g.e{border-style:dotted}
.g1{background:#8ecae6}.g2{background:#ffb703}.g3{background:#95d5b2}.g4{background:#f4978e}.g5{background:#cdb4db}.g6{background:#e9c46a}.g7{background:#a0c4ff}.g8{background:#d4a373}
.sep{display:inline-block;width:2px;height:18px;background:#9aa3b2;margin:0 4px 0 1px;vertical-align:middle}
.nw{white-space:nowrap}
.ps{display:inline-block;padding:0 5px;border-radius:3px;font-weight:600;font-size:11px}
.ps.run{background:#d8f0dc;color:#1b5e20}.ps.idle{background:#e6e9ee;color:#5b6475}
.tick{color:#4a5263;font-family:ui-monospace,Menlo,Consolas,monospace}
.pc{font:600 12px ui-monospace,Menlo,Consolas,monospace}
.pc-run{color:#1b5e20}.pc-idle{color:#8a93a3;font-weight:400}.pc-steal,.pc-sched{color:#1565c0}.pc-drop,.pc-stop,.pc-dropspin{color:#b23b00}
.spin{color:#e65100;font-weight:700}
.unspin{color:#6b7385}
.mp{font-family:ui-monospace,Menlo,Consolas,monospace;background:#e3ecfa;border-radius:3px;padding:0 4px}
.mp.nop{background:#eee;color:#6b7385}
.scan{font:11px ui-monospace,Menlo,Consolas,monospace;color:#6b7385}
.none{color:#a0a7b4;font-style:italic}
.ctg{display:grid;grid-template-columns:auto auto;gap:1px 5px}
.ct{font-size:10.5px;color:#4a5263;white-space:nowrap}
.ct b,.vct b{color:#10141c}
.gc{display:block;white-space:nowrap;font-size:11px}
.st-running{color:#1b5e20;font-weight:600}.st-runnable{color:#1565c0;font-weight:600}.st-syscall{color:#6a1b9a}.st-waiting{color:#8a5a00}.st-dead,.st-idle{color:#a0a7b4}
#big{padding:10px 16px 16px}
.vhead{display:flex;align-items:center;gap:10px;margin-bottom:8px}
.vhead button{font-size:16px;width:30px;height:28px;border:1px solid #c3c9d4;background:#fff;border-radius:5px;cursor:pointer}
.vstep{color:#6b7385;font-size:13px}
.vact{font:700 17px ui-monospace,Menlo,Consolas,monospace}
.view.cyc .vstep::after{content:" ↻ in the cycle";color:#7b1fa2;font-weight:600}
.vbody{display:flex;gap:12px;align-items:flex-start;flex-wrap:wrap}
.vcts{display:grid;grid-template-columns:auto auto;gap:2px 14px;margin-top:8px}
.vbox,.vp{background:#fff;border:1px solid #d5dae2;border-radius:8px;padding:8px 10px}
.vp{border:2px solid #81c784;min-width:280px}
.vp.idle{border:2px dashed #b9c0cc;background:#f8f9fb}
.vp.tgt{box-shadow:0 0 0 3px #ffcc80}
.vt{font-weight:700;font-size:14px;margin-bottom:6px}
.vt small{font-weight:400;color:#6b7385}
.view .chg{background:#fffbe6}
.view .g{min-width:40px;height:28px;font-size:15px;line-height:26px;margin-right:4px}
.view .rn .g{border-radius:14px}
.view .sep{height:28px}
.vq{margin-top:6px;white-space:nowrap}
.lbl{font-size:11px;color:#6b7385;margin:0 5px 0 2px}
.vm{border:1px solid #90a4c8;background:#eef3fb;border-radius:6px;padding:5px 8px;margin:4px 0;font-size:13px}
.vm.actor{border:2px solid #1565c0}
.acttag{background:#1565c0;color:#fff;border-radius:3px;padding:0 5px;font-size:11px}
.nom{color:#a0a7b4;font-style:italic;margin:4px 0}
.vct{font-size:13px;margin:2px 0}
.view .gc{font-size:13px;margin:3px 0}
`
