// Parsing through @bufbuild/cel's parser, which knows CEL's grammar and standard macros but not
// the optional syntax (`a.?f`, `a[?i]`, `[?x]`, `{?k: v}`) that Kubernetes' environment enables.
// The source is first rewritten, outside string literals and comments, into forms that parser
// accepts (`a.__opt__f`, `a[__opt__(i)]`, `[__opt__(x)]`, `{__opt__(k): v}`), with every
// character of the rewrite traced back to its place in the original (so messages point where
// the user wrote). The parsed tree is then converted into our own (ast.ts), where those forms
// and the two-variable macros of cel-go's TwoVarComprehensions and optional library become nodes.

import { parse } from '@bufbuild/cel';
import type { Expr, MapEntry, ParsedExpr } from './ast.js';
import { CelIssues, type Issue } from './issues.js';
import { Uint } from './values.js';

const OPT = '__opt__';

type PbExpr = ReturnType<typeof parse>['expr'];

interface Rewritten {
  text: string;
  /** For each character of `text`, its offset in the original source. */
  origin: number[];
}

/** Where string literals, comments and the tokens around `?` are, for the rewrite. */
function rewriteOptionalSyntax(src: string): Rewritten {
  const out: string[] = [];
  const origin: number[] = [];
  const emit = (s: string, at: number): void => {
    for (const ch of s) {
      out.push(ch);
      for (let k = 0; k < ch.length; k++) origin.push(at);
    }
  };
  const copy = (from: number, to: number): void => {
    for (let k = from; k < to; k++) {
      out.push(src[k]!);
      origin.push(k);
    }
  };
  // Brackets open at this point, and for an optional element the depth at which it closes.
  const stack: { open: string; closeOptionalAt?: boolean }[] = [];
  let lastSignificant = '';
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    // Comments run to the end of the line.
    if (c === '/' && src[i + 1] === '/') {
      const end = src.indexOf('\n', i);
      const stop = end < 0 ? src.length : end;
      copy(i, stop);
      i = stop;
      continue;
    }
    const str = stringLiteralAt(src, i);
    if (str) {
      copy(i, str.end);
      i = str.end;
      lastSignificant = 'lit';
      continue;
    }
    if (/\s/.test(c)) {
      copy(i, i + 1);
      i++;
      continue;
    }
    if (c === '.' && src[i + 1] === '?') {
      let j = i + 2;
      while (j < src.length && /\s/.test(src[j]!)) j++;
      const id = /^[_a-zA-Z][_a-zA-Z0-9]*/.exec(src.slice(j));
      if (id) {
        emit('.', i);
        emit(OPT, i + 1);
        copy(j, j + id[0].length);
        i = j + id[0].length;
        lastSignificant = 'id';
        continue;
      }
    }
    if (c === '?' && (lastSignificant === '[' || lastSignificant === '{' || lastSignificant === ',') && stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (top.open === '[' || top.open === '{') {
        emit(`${OPT}(`, i);
        top.closeOptionalAt = true;
        i++;
        lastSignificant = '(';
        continue;
      }
    }
    if (c === '[' || c === '{' || c === '(') {
      stack.push({ open: c });
    } else if (c === ']' || c === '}' || c === ')' || c === ',' || c === ':') {
      const top = stack[stack.length - 1];
      // An optional element ends at the next ',' or ']' (lists), or ':' (map keys).
      if (top?.closeOptionalAt && ((top.open === '[' && (c === ',' || c === ']')) || (top.open === '{' && c === ':'))) {
        emit(')', i);
        top.closeOptionalAt = false;
      }
      if (c === ']' || c === '}' || c === ')') stack.pop();
    }
    copy(i, i + 1);
    lastSignificant = c;
    i++;
  }
  return { text: out.join(''), origin };
}

/** A string or bytes literal starting at `i` (optional r/b prefixes, single or triple quotes). */
function stringLiteralAt(src: string, i: number): { end: number } | undefined {
  const prefix = /^(?:[rR][bB]?|[bB][rR]?)?(?="|')/.exec(src.slice(i, i + 3));
  if (!prefix) return undefined;
  // A prefix letter is only a prefix when it does not end an identifier.
  if (prefix[0].length > 0 && i > 0 && /[_a-zA-Z0-9]/.test(src[i - 1]!)) return undefined;
  const raw = /r/i.test(prefix[0]);
  let j = i + prefix[0].length;
  const q = src[j]!;
  const triple = src.startsWith(q.repeat(3), j);
  const close = triple ? q.repeat(3) : q;
  j += close.length;
  while (j < src.length) {
    if (!raw && src[j] === '\\') {
      j += 2;
      continue;
    }
    if (src.startsWith(close, j)) return { end: j + close.length };
    if (!triple && (src[j] === '\n' || src[j] === '\r')) return { end: j };
    j++;
  }
  return { end: src.length };
}

class Converter {
  readonly offsets = new Map<number, number>();
  readonly issues: Issue[] = [];
  private nextId: number;

  constructor(
    private readonly rewritten: Rewritten,
    private readonly positions: Record<string, number>,
    maxId: number,
  ) {
    this.nextId = maxId + 1;
  }

  /** The original offset of a parsed node, skipping whitespace the parser counts in front of operators. */
  private place(id: number): number {
    let at = this.positions[String(id)] ?? 0;
    const t = this.rewritten.text;
    while (at < t.length && /\s/.test(t[at]!)) at++;
    return this.rewritten.origin[at] ?? this.rewritten.origin[this.rewritten.origin.length - 1] ?? 0;
  }

  private fresh(at: number): number {
    const id = this.nextId++;
    this.offsets.set(id, at);
    return id;
  }

  convert(e: PbExpr | undefined): Expr {
    if (!e) return { id: this.fresh(0), kind: 'const', value: null };
    const id = Number(e.id);
    const at = this.place(id);
    this.offsets.set(id, at);
    const k = e.exprKind;
    switch (k.case) {
      case 'constExpr':
        return { id, kind: 'const', value: constant(k.value.constantKind) };
      case 'identExpr':
        return { id, kind: 'ident', name: k.value.name };
      case 'selectExpr': {
        const operand = this.convert(k.value.operand);
        const field = k.value.field;
        if (field.startsWith(OPT)) return { id, kind: 'select', operand, field: field.slice(OPT.length), test: false, optional: true };
        return { id, kind: 'select', operand, field, test: k.value.testOnly, optional: false };
      }
      case 'callExpr':
        return this.call(id, at, k.value.function, k.value.target, k.value.args);
      case 'listExpr': {
        const elems: Expr[] = [];
        const optional: boolean[] = [];
        for (const el of k.value.elements) {
          const opt = optionalMarker(el);
          elems.push(this.convert(opt ?? el));
          optional.push(Boolean(opt));
        }
        return { id, kind: 'list', elems, optional };
      }
      case 'structExpr': {
        if (k.value.messageName) {
          this.issues.push({ offset: at, message: `undeclared reference to '${k.value.messageName}' (in container '')` });
          return { id, kind: 'const', value: null };
        }
        const entries: MapEntry[] = k.value.entries.map((en) => {
          const key = en.keyKind.case === 'mapKey' ? en.keyKind.value : undefined;
          const opt = key ? optionalMarker(key) : undefined;
          return { key: this.convert(opt ?? key), value: this.convert(en.value), optional: Boolean(opt) || en.optionalEntry };
        });
        return { id, kind: 'map', entries };
      }
      case 'comprehensionExpr': {
        const c = k.value;
        return {
          id,
          kind: 'comprehension',
          iterVar: c.iterVar,
          iterVar2: c.iterVar2 || undefined,
          range: this.convert(c.iterRange),
          accuVar: c.accuVar,
          init: this.convert(c.accuInit),
          cond: this.convert(c.loopCondition),
          step: this.convert(c.loopStep),
          result: this.convert(c.result),
        };
      }
      default:
        this.issues.push({ offset: at, message: 'unsupported expression' });
        return { id, kind: 'const', value: null };
    }
  }

  private call(id: number, at: number, fn: string, target: PbExpr | undefined, pbArgs: readonly PbExpr[]): Expr {
    if (fn === '_[_]' && pbArgs.length === 2) {
      const opt = optionalMarker(pbArgs[1]!);
      if (opt) return { id, kind: 'call', fn: '_[?_]', args: [this.convert(pbArgs[0]), this.convert(opt)] };
    }
    if (fn === OPT) {
      this.issues.push({ offset: at, message: "unsupported syntax '?'" });
      return { id, kind: 'const', value: null };
    }
    if (fn === 'has' && !target) {
      this.issues.push({ offset: at, message: 'invalid argument to has() macro' });
      return { id, kind: 'const', value: false };
    }
    if (target && MACROS.has(fn)) {
      const macro = this.macro(id, at, fn, target, pbArgs);
      if (macro) return macro;
    }
    const args = pbArgs.map((a) => this.convert(a));
    return target ? { id, kind: 'call', fn, target: this.convert(target), args } : { id, kind: 'call', fn, args };
  }

  private simpleName(e: PbExpr): string | undefined {
    if (e.exprKind.case === 'identExpr') return e.exprKind.value.name;
    this.issues.push({ offset: this.place(Number(e.id)), message: 'argument must be a simple name' });
    return undefined;
  }

  /** Macros @bufbuild/cel leaves as calls: cel-go's two-variable comprehensions and optMap/optFlatMap. */
  private macro(id: number, at: number, fn: string, pbTarget: PbExpr, pbArgs: readonly PbExpr[]): Expr | undefined {
    const n = pbArgs.length;
    const wanted = MACROS.get(fn)!;
    if (!wanted.includes(n)) return undefined;
    const names = (fn === 'optMap' || fn === 'optFlatMap' ? pbArgs.slice(0, 1) : pbArgs.slice(0, 2)).map((a) => this.simpleName(a));
    if (names.some((x) => x === undefined)) return { id, kind: 'const', value: null };
    const target = this.convert(pbTarget);
    const rest = pbArgs.slice(names.length).map((a) => this.convert(a));
    const ident = (name: string): Expr => ({ id: this.fresh(at), kind: 'ident', name });
    const call = (f: string, args: Expr[], t?: Expr): Expr => (t ? { id: this.fresh(at), kind: 'call', fn: f, target: t, args } : { id: this.fresh(at), kind: 'call', fn: f, args });
    const lit = (value: Expr['kind'] extends never ? never : boolean | bigint): Expr => ({ id: this.fresh(at), kind: 'const', value });
    const list = (elems: Expr[]): Expr => ({ id: this.fresh(at), kind: 'list', elems, optional: elems.map(() => false) });
    const accu = '@result';
    if (fn === 'optMap' || fn === 'optFlatMap') {
      const v = names[0]!;
      const body = rest[0]!;
      const mapped = fn === 'optMap' ? call('of', [{ id: this.fresh(at), kind: 'bind', name: v, init: call('value', [], target), body }], ident('optional')) : ({ id: this.fresh(at), kind: 'bind', name: v, init: call('value', [], target), body } as Expr);
      return call('_?_:_', [call('hasValue', [], target), mapped, call('none', [], ident('optional'))]);
    }
    const [k, v] = names as [string, string];
    const comp = (init: Expr, cond: Expr, step: Expr, result: Expr): Expr => ({ id, kind: 'comprehension', iterVar: k, iterVar2: v, range: target, accuVar: accu, init, cond, step, result });
    switch (fn) {
      case 'all':
        return comp(lit(true), call('@not_strictly_false', [ident(accu)]), call('_&&_', [ident(accu), rest[0]!]), ident(accu));
      case 'exists':
        return comp(lit(false), call('@not_strictly_false', [call('!_', [ident(accu)])]), call('_||_', [ident(accu), rest[0]!]), ident(accu));
      case 'existsOne':
      case 'exists_one':
        return comp(lit(0n), lit(true), call('_?_:_', [rest[0]!, call('_+_', [ident(accu), lit(1n)]), ident(accu)]), call('_==_', [ident(accu), lit(1n)]));
      case 'transformList': {
        const [filter, expr] = n === 4 ? [rest[0]!, rest[1]!] : [undefined, rest[0]!];
        const add = call('_+_', [ident(accu), list([expr])]);
        return comp(list([]), lit(true), filter ? call('_?_:_', [filter, add, ident(accu)]) : add, ident(accu));
      }
      case 'transformMap':
      case 'transformMapEntry': {
        const [filter, expr] = n === 4 ? [rest[0]!, rest[1]!] : [undefined, rest[0]!];
        // cel-go inserts into the accumulating map (cel.@mapInsert); ours is the same function.
        const insert = fn === 'transformMap' ? call('@mapInsert', [ident(accu), ident(k), expr]) : call('@mapInsert', [ident(accu), expr]);
        const empty: Expr = { id: this.fresh(at), kind: 'map', entries: [] };
        return comp(empty, lit(true), filter ? call('_?_:_', [filter, insert, ident(accu)]) : insert, ident(accu));
      }
      default:
        return undefined;
    }
  }
}

/** Receiver macros by argument count (bufbuild expands the one-variable forms itself). */
const MACROS = new Map<string, number[]>([
  ['all', [3]],
  ['exists', [3]],
  ['existsOne', [3]],
  ['exists_one', [3]],
  ['transformList', [3, 4]],
  ['transformMap', [3, 4]],
  ['transformMapEntry', [3, 4]],
  ['optMap', [2]],
  ['optFlatMap', [2]],
]);

function optionalMarker(e: PbExpr): PbExpr | undefined {
  const k = e.exprKind;
  if (k.case === 'callExpr' && k.value.function === OPT && !k.value.target && k.value.args.length === 1) return k.value.args[0];
  return undefined;
}

function constant(c: NonNullable<PbExpr['exprKind']> extends never ? never : any): import('./values.js').CelValue {
  switch (c.case) {
    case 'boolValue':
    case 'stringValue':
    case 'doubleValue':
      return c.value;
    case 'int64Value':
      return BigInt(c.value);
    case 'uint64Value':
      return new Uint(BigInt(c.value));
    case 'bytesValue':
      return Uint8Array.from(c.value as Uint8Array);
    case 'nullValue':
      return null;
    default:
      return null;
  }
}

function maxId(e: PbExpr | undefined): number {
  if (!e) return 0;
  let m = Number(e.id);
  const k = e.exprKind;
  const visit = (x: PbExpr | undefined): void => {
    m = Math.max(m, maxId(x));
  };
  switch (k.case) {
    case 'selectExpr':
      visit(k.value.operand);
      break;
    case 'callExpr':
      visit(k.value.target);
      k.value.args.forEach(visit);
      break;
    case 'listExpr':
      k.value.elements.forEach(visit);
      break;
    case 'structExpr':
      for (const en of k.value.entries) {
        m = Math.max(m, Number(en.id));
        if (en.keyKind.case === 'mapKey') visit(en.keyKind.value);
        visit(en.value);
      }
      break;
    case 'comprehensionExpr':
      [k.value.iterRange, k.value.accuInit, k.value.loopCondition, k.value.loopStep, k.value.result].forEach(visit);
      break;
  }
  return m;
}

/** Parses `source`; throws CelIssues (cel-go's format) for a syntax error or a misused macro. */
export function parseCel(source: string): ParsedExpr {
  const rewritten = rewriteOptionalSyntax(source);
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(rewritten.text);
  } catch (err) {
    const e = err as { rawMessage?: string; message: string; location?: { start?: { offset?: number } } };
    const at = e.location?.start?.offset ?? 0;
    const offset = rewritten.origin[at] ?? source.length;
    throw new CelIssues([{ offset, message: `Syntax error: ${e.rawMessage ?? e.message}` }], source);
  }
  const conv = new Converter(rewritten, (parsed.sourceInfo?.positions ?? {}) as Record<string, number>, maxId(parsed.expr));
  const root = conv.convert(parsed.expr);
  if (conv.issues.length) throw new CelIssues(conv.issues, source);
  return { source, root, offsets: conv.offsets };
}
