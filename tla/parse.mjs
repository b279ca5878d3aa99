// parse.mjs checks the syntax of TLA+ modules with the community TLA+
// grammar (@tlaplus/tree-sitter-tlaplus, its wasm build) under
// web-tree-sitter, both pinned in package.json, offline, and on the parse
// tree resolves the names a module uses the way SANY (TLC's front end) does.
//
//   node parse.mjs File.tla...
//
// It prints one JSON object per file on one line:
//   {"file": ..., "ok": bool, "errors": [{"line", "column", "kind", "text"}],
//    "constants": [names], "definitions": {name: arity}}
// where kind is "ERROR" (text the grammar could not place), "MISSING x"
// (a token the parser had to invent, e.g. a closing bracket), or one of the
// name-check kinds below; constants and definitions are the module's
// top-level CONSTANTs and operator definitions (for checking its cfgs).
//
// tla-checker accepts some text TLC would not; this is the check that the
// modules are TLA+ as the grammar (and so TLC and the VS Code extension)
// reads it. On a module that parses clean the name check then reports:
//   "UNDEFINED"     a name that is not defined, declared, bound or
//                   exported by an EXTENDed standard module at that point
//                   (TLA+ wants a definition before its use, and RECURSIVE
//                   for an operator that calls itself);
//   "NEEDS M"       an operator of standard module M (say the prefix minus
//                   of -1, which only Integers defines) without EXTENDS M;
//   "ARITY"         an operator applied to the wrong number of arguments,
//                   or one with parameters used without them;
//   "REDEFINED"     a name defined again where it is already visible
//                   (SANY's multiply-defined symbol);
//   "MODULE"        EXTENDS of a module this check does not know;
//   "UNSUPPORTED x" a construct the check does not resolve (INSTANCE ...).
// Levels (a prime in an invariant, ...) are not checked: that is SANY's,
// with TLC.
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

// The standard modules the name check knows: the names each exports, with
// their arities, and the grammar's node types for its operator symbols and
// number sets. Sequences, FiniteSets and TLC use Naturals through LOCAL
// INSTANCE, so they do not export it; Integers and Reals EXTEND.
const STD = {
  Naturals: {
    names: {},
    nodes: ['nat_number_set', 'plus', 'minus', 'mul', 'pow', 'lt', 'gt', 'leq', 'geq', 'mod', 'div', 'dots_2'],
  },
  Integers: { extends: ['Naturals'], names: {}, nodes: ['int_number_set', 'negative'] },
  Reals: { extends: ['Integers'], names: { Infinity: 0 }, nodes: ['real_number_set', 'slash'] },
  Sequences: {
    names: { Seq: 1, Len: 1, Append: 2, Head: 1, Tail: 1, SubSeq: 3, SelectSeq: 2 },
    nodes: ['circ'],
  },
  FiniteSets: { names: { IsFiniteSet: 1, Cardinality: 1 }, nodes: [] },
  TLC: {
    names: {
      Print: 2, PrintT: 1, Assert: 2, JavaTime: 0, TLCGet: 1, TLCSet: 2, Permutations: 1,
      SortSeq: 2, RandomElement: 1, Any: 0, ToString: 1, TLCEval: 1,
    },
    nodes: ['map_to', 'compose'],
  },
};
// The module that defines each standard operator symbol or number set.
const STD_NODE = {};
for (const [mod, def] of Object.entries(STD)) for (const n of def.nodes) STD_NODE[n] = mod;

// Nodes that open a scope for the identifiers they introduce.
const BINDERS = new Set(['bounded_quantification', 'unbounded_quantification', 'choose', 'set_filter',
  'set_map', 'function_literal', 'lambda']);
const UNSUPPORTED = new Set(['instance', 'module_definition', 'prefixed_op', 'module', 'theorem',
  'pcal_algorithm']);

function checkNames(root) {
  const problems = [];
  const report = (node, kind, text) => problems.push({
    line: node.startPosition.row + 1, column: node.startPosition.column + 1, kind, text: (text ?? node.text).slice(0, 80),
  });
  const mod = root.namedChildren.find((n) => n.type === 'module');
  if (!mod) return { problems, constants: [], definitions: {} };

  // What EXTENDS brings in.
  const extended = new Set();
  const extend = (name) => {
    if (extended.has(name)) return;
    extended.add(name);
    for (const e of STD[name].extends ?? []) extend(e);
  };
  for (const ext of mod.namedChildren.filter((n) => n.type === 'extends')) {
    for (const ref of ext.namedChildren) {
      if (STD[ref.text]) extend(ref.text);
      else report(ref, 'MODULE', `EXTENDS ${ref.text}: not a standard module this check knows`);
    }
  }

  // A scope maps a name to where it becomes visible (a byte offset) and
  // its arity.
  const stdScope = new Map();
  for (const m of extended) for (const [n, a] of Object.entries(STD[m].names)) stdScope.set(n, { pos: -1, arity: a });
  const lookup = (scopes, name, at) => {
    for (let i = scopes.length - 1; i >= 0; i--) {
      const d = scopes[i].get(name);
      if (d && d.pos <= at) return d;
    }
    return null;
  };
  const define = (scopes, scope, idNode, pos, arity) => {
    const name = idNode.text;
    if (scope.has(name) || lookup(scopes, name, idNode.startIndex)) {
      report(idNode, 'REDEFINED', `${name} is already defined`);
    }
    scope.set(name, { pos, arity });
  };
  const paramArity = (decl) => decl.namedChildren.filter((c) => c.type === 'placeholder').length;
  // Definitions a module or LET introduces, in order: an operator is
  // visible after its definition (or from a RECURSIVE declaration), a
  // recursive function from its own start.
  const defineUnit = (scopes, scope, unit) => {
    switch (unit.type) {
      case 'operator_definition': {
        const name = unit.childForFieldName('name');
        if (name?.type !== 'identifier') break; // an infix or a number-set definition
        const arity = unit.childrenForFieldName('parameter').filter((p) => p.type === 'identifier' || p.type === 'operator_declaration').length;
        const pre = scope.get(name.text);
        if (pre && pre.recursive) {
          scope.set(name.text, { pos: pre.pos, arity });
          break;
        }
        define(scopes, scope, name, unit.endIndex, arity);
        break;
      }
      case 'function_definition':
        define(scopes, scope, unit.childForFieldName('name'), unit.startIndex, 0);
        break;
      case 'recursive_declaration':
        for (const d of unit.namedChildren) {
          const id = d.type === 'operator_declaration' ? d.childForFieldName('name') : d;
          define(scopes, scope, id, d.startIndex, d.type === 'operator_declaration' ? paramArity(d) : 0);
          scope.get(id.text).recursive = true;
        }
        break;
      case 'constant_declaration':
        for (const d of unit.namedChildren) {
          if (d.type === 'identifier') define(scopes, scope, d, d.startIndex, 0);
          else if (d.type === 'operator_declaration') define(scopes, scope, d.childForFieldName('name'), d.startIndex, paramArity(d));
        }
        break;
      case 'variable_declaration':
        for (const d of unit.namedChildren) if (d.type === 'identifier') define(scopes, scope, d, d.startIndex, 0);
        break;
    }
  };
  // The identifiers a binder introduces.
  const intros = (node) => {
    const ids = [];
    const take = (n) => {
      if (n.type === 'identifier') ids.push(n);
      else if (n.type === 'tuple_of_identifiers') ids.push(...n.namedChildren.filter((c) => c.type === 'identifier'));
    };
    for (const c of node.namedChildren) {
      if (c.type === 'quantifier_bound') c.childrenForFieldName('intro').forEach(take);
      else if (node.type !== 'function_definition') take(c); // its name is not bound in it
    }
    return ids;
  };
  const isFieldName = (node) => {
    const p = node.parent;
    if (!p) return false;
    if (p.type === 'except_update_record_field') return true;
    return p.type === 'record_value' && p.lastNamedChild?.startIndex === node.startIndex;
  };

  const visit = (node, scopes) => {
    const t = node.type;
    if (STD_NODE[t] && !extended.has(STD_NODE[t])) {
      report(node.parent?.type?.startsWith('bound_') ? node.parent : node, `NEEDS ${STD_NODE[t]}`);
    }
    if (UNSUPPORTED.has(t)) {
      report(node, `UNSUPPORTED ${t}`);
      return;
    }
    switch (t) {
      case 'extends':
        return;
      case 'operator_definition': {
        const scope = new Map();
        const inner = [...scopes, scope];
        for (const p of node.childrenForFieldName('parameter')) {
          if (p.type === 'identifier') define(inner, scope, p, p.startIndex, 0);
          else if (p.type === 'operator_declaration') define(inner, scope, p.childForFieldName('name'), p.startIndex, paramArity(p));
        }
        const body = node.childForFieldName('definition');
        if (body) visit(body, inner);
        return;
      }
      case 'function_definition': {
        const scope = new Map();
        const inner = [...scopes, scope];
        for (const id of intros(node)) define(inner, scope, id, node.startIndex, 0);
        for (const c of node.namedChildren) if (c.startIndex !== node.childForFieldName('name').startIndex) visit(c, inner);
        return;
      }
      case 'let_in': {
        const scope = new Map();
        const inner = [...scopes, scope];
        for (const d of node.childrenForFieldName('definitions')) defineUnit(inner, scope, d);
        for (const c of node.namedChildren) visit(c, inner);
        return;
      }
      case 'identifier_ref': {
        if (isFieldName(node)) return;
        const d = lookup(scopes, node.text, node.startIndex);
        if (!d) {
          report(node, 'UNDEFINED');
          return;
        }
        const p = node.parent;
        const isOpName = p?.type === 'bound_op' && p.childForFieldName('name')?.startIndex === node.startIndex;
        const isArgument = p?.type === 'bound_op' && !isOpName;
        if (!isOpName && !isArgument && d.arity > 0) report(node, 'ARITY', `${node.text} takes ${d.arity} argument(s), used with none`);
        return;
      }
      case 'bound_op': {
        const name = node.childForFieldName('name');
        const args = node.childrenForFieldName('parameter').filter((c) => c.isNamed);
        const d = lookup(scopes, name.text, name.startIndex);
        if (!d) report(name, 'UNDEFINED');
        else if (d.arity !== args.length) report(node, 'ARITY', `${name.text} takes ${d.arity} argument(s), given ${args.length}`);
        for (const a of args) visit(a, scopes);
        return;
      }
    }
    if (BINDERS.has(t)) {
      const scope = new Map();
      const inner = [...scopes, scope];
      // Visible in the whole binder: {e : x \in S} names x before binding it.
      for (const id of intros(node)) define(inner, scope, id, node.startIndex, 0);
      for (const c of node.namedChildren) visit(c, inner);
      return;
    }
    for (const c of node.namedChildren) visit(c, scopes);
  };

  const top = new Map();
  const scopes = [stdScope, top];
  const constants = [];
  const definitions = {};
  for (const unit of mod.namedChildren) {
    defineUnit(scopes, top, unit);
    if (unit.type === 'constant_declaration') {
      for (const d of unit.namedChildren) {
        if (d.type === 'identifier') constants.push(d.text);
        else if (d.type === 'operator_declaration') constants.push(d.childForFieldName('name').text);
      }
    }
    if (unit.type === 'operator_definition' || unit.type === 'function_definition') {
      const name = unit.childForFieldName('name');
      if (name?.type === 'identifier' && top.has(name.text)) definitions[name.text] = top.get(name.text).arity;
    }
    if (unit.type === 'header_line' || unit.type === 'identifier' || unit.type === 'double_line') continue;
    visit(unit, scopes);
  }
  return { problems, constants, definitions };
}

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
  // Names are resolved only on a clean parse: on a broken tree they would
  // add noise to the syntax errors.
  let names = { problems: [], constants: [], definitions: {} };
  if (errors.length === 0) names = checkNames(tree.rootNode);
  errors.push(...names.problems);
  process.stdout.write(JSON.stringify({
    file, ok: errors.length === 0, errors, constants: names.constants, definitions: names.definitions,
  }) + '\n');
  tree.delete();
}
