// run.mjs model-checks one TLA+ module against one TLC-style cfg with the
// tla-checker wasm build pinned in package.json, and prints the checker's JSON
// result (one object on one line) with the wall time added.
//
//   node run.mjs Module.tla Module.cfg [--max-states N] [--max-depth N] [--dot FILE]
//
// The npm package has no CLI of its own: it exports check_spec_with_options,
// which takes the module text and a JSON options object (cfg_source, max_states,
// max_depth, allow_deadlock, export_dot, dot_mode). With --dot the full state
// graph (every state, every edge labelled with its action) is written to FILE
// instead of being inlined in the JSON.
//
// Exit status: 0 when the checker produced a result (pass or violation; the
// caller reads "success"), 2 on bad usage or when the package is missing.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkgDir = path.join(here, 'node_modules', 'tla-checker');

function die(msg) {
  process.stderr.write(`run.mjs: ${msg}\n`);
  process.exit(2);
}

const args = process.argv.slice(2);
const positional = [];
const opts = { max_states: 20000000, max_depth: 1000000 };
let dotFile = '';
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  const val = () => {
    if (i + 1 >= args.length) die(`${a} needs a value`);
    return args[++i];
  };
  if (a === '--max-states') opts.max_states = Number(val());
  else if (a === '--max-depth') opts.max_depth = Number(val());
  else if (a === '--dot') dotFile = val();
  else if (a.startsWith('--')) die(`unknown flag ${a}`);
  else positional.push(a);
}
if (positional.length !== 2) die('usage: node run.mjs Module.tla Module.cfg [--max-states N] [--max-depth N] [--dot FILE]');
if (!Number.isSafeInteger(opts.max_states) || opts.max_states <= 0) die('--max-states wants a positive integer');
if (!Number.isSafeInteger(opts.max_depth) || opts.max_depth <= 0) die('--max-depth wants a positive integer');
if (!fs.existsSync(path.join(pkgDir, 'tla_checker_bg.wasm'))) {
  die(`tla-checker is not installed in ${path.join(here, 'node_modules')}: run 'npm ci --prefix tla' in the repository root`);
}

const { initSync, check_spec_with_options } = await import(path.join(pkgDir, 'tla_checker.js'));
initSync({ module: fs.readFileSync(path.join(pkgDir, 'tla_checker_bg.wasm')) });

const [specPath, cfgPath] = positional;
let spec, cfg;
try {
  spec = fs.readFileSync(specPath, 'utf8');
  cfg = fs.readFileSync(cfgPath, 'utf8');
} catch (e) {
  die(e.message);
}
if (dotFile) {
  opts.export_dot = true;
  opts.dot_mode = 'full';
}
opts.cfg_source = cfg;

const start = process.hrtime.bigint();
const out = JSON.parse(check_spec_with_options(spec, JSON.stringify(opts)));
out.elapsed_ms = Number((process.hrtime.bigint() - start) / 1000000n);
if (dotFile) {
  fs.writeFileSync(dotFile, out.dot ?? '');
  out.dot = null;
}
process.stdout.write(JSON.stringify(out) + '\n');
