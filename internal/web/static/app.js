// The stepper's page: it draws what the engine (the spec in WebAssembly)
// returns and sends it the user's choices. No scheduler logic lives here.
(function () {
  'use strict';
  var $ = function (id) { return document.getElementById(id); };
  var PRESETS = {
    // the bounds of docs/pictures.md's explore examples (find them with "… with liveness")
    'ready-no-wakep': {ps: 2, ms: 3, gs: 2, cap: 2, spawn: 1, schedtick: 2, syscalls: false, netpoll: false, go: 'go1.26', bug: 'ready-no-wakep'},
    'go119': {ps: 2, ms: 3, gs: 2, cap: 2, spawn: 1, schedtick: 2, syscalls: true, netpoll: true, go: 'go1.19', bug: 'none'},
    'nmspinning': {ps: 2, ms: 3, gs: 2, cap: 2, spawn: 1, schedtick: 2, syscalls: false, netpoll: false, go: 'go1.26', bug: 'nmspinning-no-dec'}
  };
  var cur = null;

  function bounds() {
    var f = $('bounds').elements;
    return {ps: +f.ps.value, ms: +f.ms.value, gs: +f.gs.value, cap: +f.cap.value, spawn: +f.spawn.value,
      schedtick: +f.schedtick.value, syscalls: f.syscalls.checked, netpoll: f.netpoll.checked, go: f.go.value, bug: f.bug.value};
  }
  function setBounds(b) {
    var f = $('bounds').elements;
    ['ps', 'ms', 'gs', 'cap', 'spawn', 'schedtick', 'go', 'bug'].forEach(function (k) { f[k].value = b[k]; });
    f.syscalls.checked = b.syscalls; f.netpoll.checked = b.netpoll;
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  function g(id) { return id ? el('span', 'g g' + id, 'g' + id) : el('span', 'g e', ''); }

  function apply(json) {
    var v = JSON.parse(json);
    cur = v;
    draw(v);
    return v;
  }

  function draw(v) {
    var st = $('status');
    var msg = 'step ' + v.step + ' — ' + v.bounds + '. ';
    st.className = 'status';
    if (v.invariant) { st.className = 'status bad'; msg += '✗ ' + v.invariant + '. '; }
    else if (v.deadlock) { st.className = 'status bad'; msg += '✗ deadlock: no action enabled, live Gs not all waiting. '; }
    else { msg += '✓ every invariant holds. '; }
    if (v.violation) {
      if (!v.message) { msg += 'Loaded counterexample: ' + v.violation + '. '; }
      if (!v.invariant && !v.deadlock) { st.className = 'status warn'; }
    }
    if (v.loop >= 0) { msg += '↻ the cycle returns to step ' + v.loop + '. '; }
    if (v.stutter) { msg += '∞ no fair action is enabled: the behaviour stays in this state forever. '; }
    if (v.message) { msg += v.message + ' '; }
    if (v.error) { st.className = 'status bad'; msg += 'error: ' + v.error; }
    st.textContent = msg;
    document.body.dataset.step = v.step;
    document.body.dataset.invariant = v.invariant || '';
    document.body.dataset.violation = v.violation || '';
    document.body.dataset.enabled = v.enabled.length;

    var chg = {};
    v.changed.forEach(function (c) { chg[c] = true; });
    var s = $('state');
    s.textContent = '';
    // the global queue and the counters
    var q = el('div', 'vbox' + (chg.runq || chg.sched ? ' chg' : ''));
    q.appendChild(el('div', 'vt', 'sched.runq')).appendChild(el('small', '', ' global queue'));
    var qd = el('div', 'q');
    if (v.runq.length === 0) { qd.appendChild(el('span', 'lbl', 'empty')); }
    v.runq.forEach(function (id) { qd.appendChild(g(id)); });
    q.appendChild(qd);
    var cs = el('div', 'q');
    [['npidle', v.npidle], ['nmspinning', v.nmspinning], ['needspinning', v.needspinning ? 1 : 0], ['spawn left', v.spawnleft]].forEach(function (c) {
      cs.appendChild(el('span', 'ct', c[0] + ' ' + c[1]));
    });
    q.appendChild(cs);
    s.appendChild(q);
    // each P with the M that holds it and its run queue
    v.ps.forEach(function (p, i) {
      var b = el('div', 'vp ' + p.status + (chg['p' + i] ? ' chg' : ''));
      b.dataset.p = i;
      var t = el('div', 'vt', 'p' + i + ' ');
      t.appendChild(el('span', 'ps ' + p.status, p.status));
      t.appendChild(el('span', 'lbl', '  schedtick ' + p.tick));
      b.appendChild(t);
      if (p.m >= 0) { b.appendChild(mbox(v.ms[p.m], p.m, chg)); } else { b.appendChild(el('div', 'lbl', 'held by no M')); }
      var rq = el('div', 'q');
      rq.appendChild(el('span', 'lbl', 'runnext'));
      var rn = el('span', 'rn'); rn.appendChild(g(p.runnext)); rq.appendChild(rn);
      rq.appendChild(el('span', 'lbl', ' runq'));
      var capn = v.cap;
      for (var k = 0; k < Math.max(capn, p.ring.length); k++) { rq.appendChild(g(p.ring[k] || 0)); }
      b.appendChild(rq);
      s.appendChild(b);
    });
    var free = el('div', 'vbox');
    free.appendChild(el('div', 'vt', 'Ms without a P'));
    var n = 0;
    v.ms.forEach(function (m, i) { if (m.p < 0) { free.appendChild(mbox(m, i, chg)); n++; } });
    if (n === 0) { free.appendChild(el('span', 'lbl', 'none')); }
    s.appendChild(free);
    var gs = el('div', 'vbox');
    gs.appendChild(el('div', 'vt', 'Gs'));
    v.gs.forEach(function (status, i) {
      var c = el('span', 'gst' + (chg['g' + (i + 1)] ? ' chg' : ''));
      c.appendChild(g(i + 1)); c.appendChild(document.createTextNode(' ' + status));
      gs.appendChild(c);
    });
    s.appendChild(gs);

    var en = $('enabled');
    en.textContent = '';
    v.enabled.forEach(function (a, i) {
      var btn = el('button', '');
      btn.type = 'button';
      btn.dataset.i = i;
      btn.dataset.label = a.label;
      btn.appendChild(el('span', 'who', a.who + ': '));
      btn.appendChild(document.createTextNode(a.label.slice(a.who.length + 2)));
      en.appendChild(btn);
    });
    if (v.enabled.length === 0) { en.appendChild(el('div', 'lbl', 'nothing is enabled')); }

    var path = $('path');
    path.textContent = '';
    var li0 = el('li', '', 'initial state'); li0.dataset.k = 0; path.appendChild(li0);
    v.path.forEach(function (a, k) {
      var li = el('li', v.loop >= 0 && k >= v.loop ? 'cyc' : '', a);
      li.dataset.k = k + 1;
      path.appendChild(li);
    });
    $('text').textContent = v.text;
  }

  function mbox(m, i, chg) {
    var d = el('div', 'vm' + (chg['m' + i] ? ' chg' : ''));
    d.appendChild(el('b', '', 'm' + i + ' '));
    d.appendChild(el('span', '', m.pc));
    if (m.curg) { d.appendChild(document.createTextNode(' curg ')); d.appendChild(g(m.curg)); }
    if (m.spinning) { d.appendChild(el('span', 'spin', ' ⟳ spinning')); }
    if (m.scan.length) { d.appendChild(el('span', 'lbl', ' scanned {' + m.scan.map(function (p) { return 'p' + p; }).join(',') + '}')); }
    return d;
  }

  function reset() { apply(gmp.reset(JSON.stringify(bounds()))); }

  function start() {
    var ch = JSON.parse(gmp.choices());
    ch.go.forEach(function (x) { $('go').appendChild(new Option(x, x)); });
    ch.bugs.forEach(function (x) { $('bug').appendChild(new Option(x, x)); });
    $('bounds').addEventListener('submit', function (e) { e.preventDefault(); reset(); });
    document.querySelectorAll('[data-preset]').forEach(function (b) {
      b.addEventListener('click', function () { setBounds(PRESETS[b.dataset.preset]); reset(); });
    });
    $('enabled').addEventListener('click', function (e) {
      var b = e.target.closest('button');
      if (b) { apply(gmp.step(+b.dataset.i)); }
    });
    $('undo').addEventListener('click', function () { apply(gmp.undo()); });
    $('restart').addEventListener('click', function () { back(0); });
    $('path').addEventListener('click', function (e) {
      var li = e.target.closest('li');
      if (li) { back(+li.dataset.k); }
    });
    $('explore').addEventListener('click', function () { explore(false); });
    $('explorelive').addEventListener('click', function () { explore(true); });
    $('load').addEventListener('click', function () { apply(gmp.load($('trace').value)); });
    $('file').addEventListener('change', function () {
      var f = $('file').files[0];
      if (f) { f.text().then(function (t) { $('trace').value = t; apply(gmp.load(t)); }); }
    });
    document.addEventListener('keydown', function (e) {
      if (e.key === 'ArrowLeft' && e.target.tagName !== 'TEXTAREA' && e.target.tagName !== 'INPUT') { e.preventDefault(); apply(gmp.undo()); }
    });
    var h = parseHash();
    if (h.preset && PRESETS[h.preset]) { setBounds(PRESETS[h.preset]); }
    reset();
    if (h.explore) { explore(h.explore === 'live'); }
    if (h.load) { apply(gmp.load(h.load.split(';').join('\n'))); }
    document.body.dataset.ready = '1';
  }

  function back(k) {
    while (cur && cur.step > k) { apply(gmp.undo()); }
  }

  function explore(live) {
    $('status').textContent = 'exploring…';
    apply(gmp.explore(live));
  }

  // #preset=ready-no-wakep&explore=1 (or explore=live) or &load=m0: NewProc;m0: Park
  function parseHash() {
    var out = {};
    location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
      var i = kv.indexOf('=');
      if (i > 0) { out[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1)); }
    });
    return out;
  }

  window.gmpReady = start;
  var go = new Go();
  var bytes;
  if (window.GMP_WASM_B64) {
    var bin = atob(window.GMP_WASM_B64);
    bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) { bytes[i] = bin.charCodeAt(i); }
    var inst = null;
    try {
      // Synchronous where the browser allows it (modules under 8 MB): the
      // page is ready when its scripts have run.
      inst = new WebAssembly.Instance(new WebAssembly.Module(bytes), go.importObject);
    } catch (e) {
      inst = null;
    }
    if (inst !== null) {
      go.run(inst);
    } else {
      WebAssembly.instantiate(bytes, go.importObject).then(function (r) { go.run(r.instance); }, fail);
    }
  } else {
    fail(new Error('gmp.wasm.js is missing: build the page with gmpcheck web -out DIR'));
  }
  function fail(err) {
    var st = $('status');
    st.className = 'status bad';
    st.textContent = 'the spec could not be loaded: ' + err;
    document.body.dataset.ready = 'error';
  }
})();
