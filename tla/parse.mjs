// parse.mjs checks the syntax of TLA+ modules with the community TLA+
// grammar (@tlaplus/tree-sitter-tlaplus, its wasm build) under
// web-tree-sitter, both pinned in package.json, offline.
//
//   node parse.mjs File.tla...
//
// It prints one JSON object per file on one line:
//   {"file": ..., "ok": bool, "errors": [{"line", "column", "kind", "text"}]}
// where kind is "ERROR" (text the grammar could not place) or "MISSING x"
// (a token the parser had to invent, e.g. a closing bracket). tla-checker
// accepts some text TLC's parser would not; this is the check that the
// modules are TLA+ as the grammar (and so TLC and the VS Code extension)
// reads it. It is a syntax check only: names are not resolved and levels
// are not checked (SANY does that, with TLC).
//
// Exit status: 0 when every file was parsed (clean or not: the caller reads
// "ok"), 2 on bad usage, a missing package or an unreadable file.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const grammarWasm = path.join(here, 'node_modules', '@tlaplus', 'tree-sitter-tlaplus', 'tree-sitter-tlaplus.wasm');
const runtimeDir = path.join(here, 'node_modules', 'web-tree-sitter');

function die(msg) {
  process.stderr.write(`parse.mjs: ${msg}\n`);
  process.exit(2);
}

const files = process.argv.slice(2);
if (files.length === 0) die('usage: node parse.mjs File.tla...');
if (!fs.existsSync(grammarWasm) || !fs.existsSync(path.join(runtimeDir, 'web-tree-sitter.js'))) {
  die(`tree-sitter-tlaplus or web-tree-sitter is not installed in ${path.join(here, 'node_modules')}: run 'npm ci --prefix tla' in the repository root`);
}

const { Parser, Language } = await import(path.join(runtimeDir, 'web-tree-sitter.js'));
await Parser.init({ locateFile: (name) => path.join(runtimeDir, name) });
const parser = new Parser();
parser.setLanguage(await Language.load(fs.readFileSync(grammarWasm)));

for (const file of files) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    die(e.message);
  }
  const tree = parser.parse(text);
  const errors = [];
  // Walk only into subtrees that contain an error.
  const walk = (n) => {
    if (n.isError || n.isMissing) {
      errors.push({
        line: n.startPosition.row + 1,
        column: n.startPosition.column + 1,
        kind: n.isMissing ? `MISSING ${n.type}` : 'ERROR',
        text: n.text.slice(0, 80),
      });
      if (n.isMissing) return;
    }
    if (n.hasError) for (const c of n.children) walk(c);
  };
  walk(tree.rootNode);
  if (tree.rootNode.hasError && errors.length === 0) {
    errors.push({ line: 1, column: 1, kind: 'ERROR', text: 'the parse tree has an error the walk did not locate' });
  }
  process.stdout.write(JSON.stringify({ file, ok: errors.length === 0, errors }) + '\n');
  tree.delete();
}
