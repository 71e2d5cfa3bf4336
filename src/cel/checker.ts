// Type checking, as cel-go's checker does it for the declarations of an environment: every
// identifier resolved, every field selected from a typed object declared, every call matched to
// overloads by the static types of its arguments, list and map literals homogeneous. Problems are
// reported with cel-go's messages at the node they concern; the result's output type is what
// Kubernetes compares against an expression's required return type.

import type { Expr, ParsedExpr } from './ast.js';
import { candidates, type FunctionLibrary, type Overload } from './functions.js';
import { CelIssues, type Issue } from './issues.js';
import { literalIssues } from './literal-validators.js';
import { T, isDyn, join, sameType, substitute, typeName, type CelType } from './types.js';
import { CelMap, Duration, Optional, Timestamp, TypeValue, Uint, isList, type CelValue } from './values.js';

export interface Declarations {
  /** Variables by (possibly qualified) name: `object`, `authorizer.requestResource`. */
  readonly variables: ReadonlyMap<string, CelType>;
  readonly functions: FunctionLibrary;
  /** Identifiers that denote types as values (`int`, `net.IP`), by the type's name. */
  readonly typeNames: ReadonlySet<string>;
}

export type Reference = { readonly kind: 'var'; readonly name: string } | { readonly kind: 'type'; readonly name: string };

export interface CheckedExpr {
  readonly parsed: ParsedExpr;
  readonly outputType: CelType;
  /** Call nodes → the overloads they may dispatch to at run time. */
  readonly calls: ReadonlyMap<number, readonly Overload[]>;
  /** Identifier or select nodes that name a declared variable or a type. */
  readonly refs: ReadonlyMap<number, Reference>;
  /** Calls spelled with a qualified target that are global functions (`ip.isCanonical(s)`). */
  readonly globals: ReadonlyMap<number, string>;
}

interface Scope {
  readonly name: string;
  readonly type: CelType;
  readonly parent?: Scope;
}

const lookup = (s: Scope | undefined, name: string): CelType | undefined => {
  for (let x = s; x; x = x.parent) if (x.name === name) return x.type;
  return undefined;
};

function constType(v: CelValue): CelType {
  if (v === null) return T.null;
  switch (typeof v) {
    case 'bigint':
      return T.int;
    case 'number':
      return T.double;
    case 'boolean':
      return T.bool;
    case 'string':
      return T.string;
  }
  if (v instanceof Uint) return T.uint;
  if (v instanceof Uint8Array) return T.bytes;
  if (v instanceof Timestamp) return T.timestamp;
  if (v instanceof Duration) return T.duration;
  if (v instanceof TypeValue) return T.type();
  if (v instanceof Optional) return T.optional(T.dyn);
  if (isList(v)) return T.list(T.dyn);
  if (v instanceof CelMap) return T.map(T.dyn, T.dyn);
  return T.dyn;
}

class Checker {
  readonly issues: Issue[] = [];
  readonly calls = new Map<number, readonly Overload[]>();
  readonly refs = new Map<number, Reference>();
  readonly globals = new Map<number, string>();

  constructor(
    private readonly decls: Declarations,
    private readonly parsed: ParsedExpr,
  ) {}

  private error(e: Expr, message: string): CelType {
    this.issues.push({ offset: this.parsed.offsets.get(e.id) ?? 0, message });
    return T.error;
  }

  /** `a.b.c` as one name, when it is built of identifiers not bound locally. */
  private qualifiedName(e: Expr, scope: Scope | undefined): string | undefined {
    if (e.kind === 'ident') return lookup(scope, e.name) ? undefined : e.name;
    if (e.kind === 'select' && !e.test && !e.optional) {
      const base = this.qualifiedName(e.operand, scope);
      return base === undefined ? undefined : `${base}.${e.field}`;
    }
    return undefined;
  }

  check(e: Expr, scope: Scope | undefined): CelType {
    switch (e.kind) {
      case 'const':
        return constType(e.value);
      case 'ident': {
        const local = lookup(scope, e.name);
        if (local) return local;
        return this.resolveName(e, e.name);
      }
      case 'select':
        return this.select(e, scope);
      case 'call':
        return this.call(e, scope);
      case 'list':
        return this.list(e, scope);
      case 'map':
        return this.map(e, scope);
      case 'comprehension':
        return this.comprehension(e, scope);
      case 'bind': {
        const init = this.check(e.init, scope);
        return this.check(e.body, { name: e.name, type: init, parent: scope });
      }
    }
  }

  private resolveName(e: Expr, name: string): CelType {
    const v = this.decls.variables.get(name);
    if (v) {
      this.refs.set(e.id, { kind: 'var', name });
      return v;
    }
    if (this.decls.typeNames.has(name)) {
      this.refs.set(e.id, { kind: 'type', name });
      return T.type(T.opaque(name));
    }
    return this.error(e, `undeclared reference to '${name}' (in container '')`);
  }

  private select(e: Extract<Expr, { kind: 'select' }>, scope: Scope | undefined): CelType {
    if (!e.test && !e.optional) {
      const q = this.qualifiedName(e, scope);
      if (q !== undefined && (this.decls.variables.has(q) || this.decls.typeNames.has(q))) return this.resolveName(e, q);
    }
    let operand = this.check(e.operand, scope);
    let wrapped = false;
    if (e.optional && operand.kind === 'optional') {
      operand = operand.elem;
      wrapped = true;
    }
    const field = this.fieldType(e, operand, e.field);
    if (e.test) return T.bool;
    return e.optional || wrapped ? T.optional(field) : field;
  }

  private fieldType(e: Expr, t: CelType, field: string): CelType {
    if (isDyn(t)) return T.dyn;
    if (t.kind === 'object') {
      const f = t.fields().get(field);
      return f ?? this.error(e, `undefined field '${field}'`);
    }
    if (t.kind === 'map') {
      if (isDyn(t.key) || t.key.kind === 'string') return t.value;
      return this.error(e, `type '${typeName(t)}' does not support field selection`);
    }
    return this.error(e, `type '${typeName(t)}' does not support field selection`);
  }

  private call(e: Extract<Expr, { kind: 'call' }>, scope: Scope | undefined): CelType {
    switch (e.fn) {
      case '_&&_':
      case '_||_': {
        const types = e.args.map((a) => this.check(a, scope));
        if (types.every((t) => isDyn(t) || t.kind === 'bool')) return T.bool;
        return this.error(e, `found no matching overload for '${e.fn}' applied to '(${types.map(typeName).join(', ')})'`);
      }
      case '_?_:_': {
        // cel-go declares it (bool, A, A) -> A: the branches must agree, dyn agreeing with anything.
        const [c, a, b] = e.args.map((x) => this.check(x, scope)) as [CelType, CelType, CelType];
        if ([c, a, b].some((t) => t.kind === 'error')) return T.error;
        if ((isDyn(c) || c.kind === 'bool') && (isDyn(a) || isDyn(b) || sameType(a, b))) return isDyn(a) ? b : a;
        return this.error(e, `found no matching overload for '_?_:_' applied to '(${[c, a, b].map(typeName).join(', ')})'`);
      }
      case '@not_strictly_false':
        e.args.forEach((a) => this.check(a, scope));
        return T.bool;
      case '_[_]':
      case '_[?_]':
        return this.index(e, scope);
    }
    // A qualified global function called with a dotted name (ip.isCanonical, optional.of).
    if (e.target) {
      const q = this.qualifiedName(e.target, scope);
      if (q !== undefined && !this.decls.variables.has(q) && this.decls.functions.has(`${q}.${e.fn}`)) {
        const name = `${q}.${e.fn}`;
        this.globals.set(e.id, name);
        return this.resolve(e, name, false, e.args.map((a) => this.check(a, scope)));
      }
    }
    const argTypes = e.args.map((a) => this.check(a, scope));
    if (e.target) return this.resolve(e, e.fn, true, [this.check(e.target, scope), ...argTypes]);
    return this.resolve(e, e.fn, false, argTypes);
  }

  private resolve(e: Expr, name: string, member: boolean, argTypes: CelType[]): CelType {
    if (!this.decls.functions.has(name)) return this.error(e, `undeclared reference to '${name}' (in container '')`);
    if (argTypes.some((t) => t.kind === 'error')) return T.error;
    const found = candidates(this.decls.functions, name, member, argTypes);
    if (found.length === 0) {
      const sig = member ? `${typeName(argTypes[0]!)}.(${argTypes.slice(1).map(typeName).join(', ')})` : `(${argTypes.map(typeName).join(', ')})`;
      return this.error(e, `found no matching overload for '${displayName(name)}' applied to '${sig}'`);
    }
    this.calls.set(e.id, found.map((f) => f.overload));
    const results = found.map((f) => substitute(f.overload.result, f.bindings));
    return results.reduce((a, b) => (sameType(a, b) ? a : T.dyn));
  }

  private index(e: Extract<Expr, { kind: 'call' }>, scope: Scope | undefined): CelType {
    let container = this.check(e.args[0]!, scope);
    const key = this.check(e.args[1]!, scope);
    const optional = e.fn === '_[?_]';
    let wrapped = false;
    if (optional && container.kind === 'optional') {
      container = container.elem;
      wrapped = true;
    }
    let elem: CelType;
    if (isDyn(container)) elem = T.dyn;
    else if (container.kind === 'list' && (isDyn(key) || key.kind === 'int' || key.kind === 'uint' || key.kind === 'double')) elem = container.elem;
    else if (container.kind === 'map' && (isDyn(key) || isDyn(container.key) || sameType(container.key, key) || isNumeric(container.key) && isNumeric(key))) elem = container.value;
    else return this.error(e, `found no matching overload for '${e.fn}' applied to '(${typeName(container)}, ${typeName(key)})'`);
    return optional || wrapped ? T.optional(elem) : elem;
  }

  private list(e: Extract<Expr, { kind: 'list' }>, scope: Scope | undefined): CelType {
    let elem: CelType | undefined;
    e.elems.forEach((el, i) => {
      let t = this.check(el, scope);
      if (e.optional[i]) {
        if (t.kind === 'optional') t = t.elem;
        else if (!isDyn(t)) t = this.error(el, `expected type 'optional_type(${typeName(t)})' but found '${typeName(t)}'`);
      }
      elem = this.homogeneous(el, elem, t);
    });
    return T.list(elem ?? T.dyn);
  }

  private map(e: Extract<Expr, { kind: 'map' }>, scope: Scope | undefined): CelType {
    let key: CelType | undefined;
    let value: CelType | undefined;
    for (const en of e.entries) {
      const k = this.check(en.key, scope);
      if (!isDyn(k) && !['int', 'uint', 'bool', 'string'].includes(k.kind)) this.error(en.key, `unsupported map key type: ${typeName(k)}`);
      key = this.homogeneous(en.key, key, k);
      let v = this.check(en.value, scope);
      if (en.optional && v.kind === 'optional') v = v.elem;
      value = this.homogeneous(en.value, value, v);
    }
    return T.map(key ?? T.dyn, value ?? T.dyn);
  }

  /** cel-go's homogeneous aggregate literal rule: every element of the first one's type. */
  private homogeneous(e: Expr, first: CelType | undefined, t: CelType): CelType {
    if (first === undefined || t.kind === 'error') return first ?? t;
    if (isDyn(first) || isDyn(t) || sameType(first, t)) return join(first, t);
    this.error(e, `expected type '${typeName(first)}' but found '${typeName(t)}'`);
    return first;
  }

  private comprehension(e: Extract<Expr, { kind: 'comprehension' }>, scope: Scope | undefined): CelType {
    const range = this.check(e.range, scope);
    let v1: CelType = T.dyn;
    let v2: CelType = T.dyn;
    if (range.kind === 'list') [v1, v2] = e.iterVar2 ? [T.int, range.elem] : [range.elem, T.dyn];
    else if (range.kind === 'map') [v1, v2] = [range.key, range.value];
    else if (!isDyn(range)) return this.error(e.range, `expression of type '${typeName(range)}' cannot be range of a comprehension (must be list, map, or dynamic)`);
    let accu = this.check(e.init, scope);
    const inner = (a: CelType): Scope => {
      let s: Scope = { name: e.accuVar, type: a, parent: scope };
      s = { name: e.iterVar, type: v1, parent: s };
      if (e.iterVar2) s = { name: e.iterVar2, type: v2, parent: s };
      return s;
    };
    const mark = this.issues.length;
    this.check(e.cond, inner(accu));
    const step = this.check(e.step, inner(accu));
    // An empty literal accumulator (map, filter) takes the element type the step builds.
    if (isLooser(accu, step)) {
      this.issues.length = mark;
      accu = step;
      this.check(e.cond, inner(accu));
      this.check(e.step, inner(accu));
    }
    return this.check(e.result, { name: e.accuVar, type: accu, parent: scope });
  }
}

const isNumeric = (t: CelType): boolean => t.kind === 'int' || t.kind === 'uint' || t.kind === 'double';

/** Whether `a` is a `list(dyn)` / `map(dyn, dyn)` that `b` refines. */
function isLooser(a: CelType, b: CelType): boolean {
  if (a.kind === 'list' && b.kind === 'list') return isDyn(a.elem) && !isDyn(b.elem);
  if (a.kind === 'map' && b.kind === 'map') return isDyn(a.value) && !isDyn(b.value);
  return false;
}

/** Operators are shown by their function names (`_+_`), as cel-go shows them. */
const displayName = (name: string): string => name;

/** Type checks `parsed` against `decls`; throws CelIssues listing every problem found. */
export function checkExpr(parsed: ParsedExpr, decls: Declarations): CheckedExpr {
  const c = new Checker(decls, parsed);
  const outputType = c.check(parsed.root, undefined);
  if (c.issues.length) throw new CelIssues(c.issues, parsed.source);
  const literals = literalIssues(parsed);
  if (literals.length) throw new CelIssues(literals, parsed.source);
  return { parsed, outputType, calls: c.calls, refs: c.refs, globals: c.globals };
}
