// Evaluation of a checked expression, with cel-go's runtime cost model: each identifier, field
// selection and index costs 1, a list literal 10 and a map literal 30, each call what its
// overload declares (1 by default), constants and the logical operators nothing. Passing the
// limit stops the evaluation at once (cel-go's "operation cancelled: actual cost limit
// exceeded"), whatever the expression was doing; errors inside CEL are values (CelError) that
// `&&`, `||` and the comprehension macros absorb as the language requires.

import type { Expr } from './ast.js';
import type { CheckedExpr } from './checker.js';
import { valueFits, type CallContext, type Overload } from './functions.js';
import { LIST_CREATE_BASE_COST, MAP_CREATE_BASE_COST, SELECT_AND_IDENT_COST } from './lib/cost.js';
import { CelError, CelMap, LazyMap, Optional, TypeValue, Uint, display, isError, isList, isMapKey, noSuchOverload, type CelResult, type CelValue } from './values.js';

/** Thrown (not returned) when an evaluation passes its cost limit; nothing in CEL can catch it. */
export class CostLimitExceeded extends Error {
  override name = 'CostLimitExceeded';
  constructor() {
    super('operation cancelled: actual cost limit exceeded');
  }
}

/** The values of an expression's variables; undefined when the name is not bound. */
export interface Activation {
  resolve(name: string): CelValue | undefined;
}

interface Frame {
  readonly name: string;
  value: CelResult;
  readonly parent?: Frame;
}

const find = (f: Frame | undefined, name: string): Frame | undefined => {
  for (let x = f; x; x = x.parent) if (x.name === name) return x;
  return undefined;
};

export class Evaluation {
  /** The cost of the evaluation so far. */
  cost = 0;

  constructor(
    private readonly checked: CheckedExpr,
    private readonly activation: Activation,
    private readonly limit: number,
    private readonly ctx: CallContext,
  ) {}

  private charge(n: number): void {
    this.cost += n;
    if (this.cost > this.limit) throw new CostLimitExceeded();
  }

  run(): CelResult {
    return this.eval(this.checked.parsed.root, undefined);
  }

  private eval(e: Expr, frame: Frame | undefined): CelResult {
    switch (e.kind) {
      case 'const':
        return e.value;
      case 'ident': {
        this.charge(SELECT_AND_IDENT_COST);
        const local = find(frame, e.name);
        if (local) return local.value;
        return this.reference(e);
      }
      case 'select':
        return this.select(e, frame);
      case 'call':
        return this.call(e, frame);
      case 'list':
        return this.list(e, frame);
      case 'map':
        return this.map(e, frame);
      case 'comprehension':
        return this.comprehension(e, frame);
      case 'bind': {
        const init = this.eval(e.init, frame);
        return this.eval(e.body, { name: e.name, value: init, parent: frame });
      }
    }
  }

  private reference(e: Expr): CelResult {
    const ref = this.checked.refs.get(e.id);
    if (ref?.kind === 'type') return new TypeValue(ref.name);
    const name = ref?.name ?? (e.kind === 'ident' ? e.name : '');
    const v = this.activation.resolve(name);
    return v === undefined ? new CelError(`no such attribute: ${name}`) : v;
  }

  private select(e: Extract<Expr, { kind: 'select' }>, frame: Frame | undefined): CelResult {
    if (this.checked.refs.has(e.id)) {
      this.charge(SELECT_AND_IDENT_COST);
      return this.reference(e);
    }
    let operand = this.eval(e.operand, frame);
    this.charge(SELECT_AND_IDENT_COST);
    if (isError(operand)) return operand;
    if (e.optional || operand instanceof Optional) {
      if (operand instanceof Optional) {
        if (!operand.hasValue) return Optional.NONE;
        operand = operand.value!;
      }
      const v = fieldOf(operand, e.field);
      if (v === undefined) return Optional.NONE;
      return isError(v) ? v : Optional.of(v);
    }
    const v = fieldOf(operand, e.field);
    if (e.test) {
      if (operand instanceof CelMap || operand instanceof LazyMap) return v !== undefined;
      return new CelError('invalid type for field selection.');
    }
    if (v === undefined) return operand instanceof CelMap || operand instanceof LazyMap ? new CelError(`no such key: ${e.field}`) : noSuchOverload();
    return v;
  }

  private call(e: Extract<Expr, { kind: 'call' }>, frame: Frame | undefined): CelResult {
    switch (e.fn) {
      case '_&&_':
      case '_||_':
        return this.logic(e.fn === '_&&_', e.args, frame);
      case '_?_:_': {
        const c = this.eval(e.args[0]!, frame);
        if (isError(c)) return c;
        if (typeof c !== 'boolean') return noSuchOverload();
        return this.eval(e.args[c ? 1 : 2]!, frame);
      }
      case '@not_strictly_false': {
        const v = this.eval(e.args[0]!, frame);
        this.charge(1);
        return v !== false;
      }
      case '_[_]':
      case '_[?_]':
        return this.index(e, frame);
    }
    const args: CelValue[] = [];
    if (e.target && !this.checked.globals.has(e.id)) {
      const t = this.eval(e.target, frame);
      if (isError(t)) return t;
      args.push(t);
    }
    for (const a of e.args) {
      const v = this.eval(a, frame);
      if (isError(v)) return v;
      args.push(v);
    }
    const overload = dispatch(this.checked.calls.get(e.id) ?? [], args);
    if (!overload) return noSuchOverload();
    const result = overload.impl(args, this.ctx);
    this.charge(overload.cost ? overload.cost(args, result) : 1);
    return result;
  }

  /** CEL's commutative `&&` / `||`: false (true) wins over errors, which win over true (false). */
  private logic(and: boolean, operands: readonly Expr[], frame: Frame | undefined): CelResult {
    let err: CelError | undefined;
    for (const o of operands) {
      const v = this.eval(o, frame);
      if (v === !and) return v;
      if (v === and) continue;
      err ??= isError(v) ? v : noSuchOverload();
    }
    return err ?? and;
  }

  private index(e: Extract<Expr, { kind: 'call' }>, frame: Frame | undefined): CelResult {
    let container = this.eval(e.args[0]!, frame);
    if (isError(container)) return container;
    const key = this.eval(e.args[1]!, frame);
    this.charge(SELECT_AND_IDENT_COST);
    if (isError(key)) return key;
    const optional = e.fn === '_[?_]';
    if (container instanceof Optional) {
      if (!container.hasValue) return Optional.NONE;
      container = container.value!;
    }
    let v: CelResult | undefined;
    if (isList(container)) {
      const i = listIndex(key);
      if (i === undefined) return noSuchOverload();
      if (i < 0n || i >= BigInt(container.length)) {
        if (optional) return Optional.NONE;
        return new CelError(`index '${i}' out of range in list size '${container.length}'`);
      }
      v = container[Number(i)]!;
    } else if (container instanceof CelMap) {
      v = container.get(key);
      if (v === undefined) return optional ? Optional.NONE : new CelError(`no such key: ${display(key)}`);
    } else if (container instanceof LazyMap && typeof key === 'string') {
      v = container.field(key);
      if (v === undefined) return optional ? Optional.NONE : new CelError(`no such key: ${key}`);
    } else {
      return noSuchOverload();
    }
    return optional && !isError(v) ? Optional.of(v) : v;
  }

  private list(e: Extract<Expr, { kind: 'list' }>, frame: Frame | undefined): CelResult {
    const out: CelValue[] = [];
    for (let i = 0; i < e.elems.length; i++) {
      const v = this.eval(e.elems[i]!, frame);
      if (isError(v)) return v;
      if (e.optional[i]) {
        if (!(v instanceof Optional)) return noSuchOverload();
        if (v.hasValue) out.push(v.value!);
      } else out.push(v);
    }
    this.charge(LIST_CREATE_BASE_COST);
    return out;
  }

  private map(e: Extract<Expr, { kind: 'map' }>, frame: Frame | undefined): CelResult {
    const entries: [CelValue, CelValue][] = [];
    for (const en of e.entries) {
      const k = this.eval(en.key, frame);
      if (isError(k)) return k;
      const v = this.eval(en.value, frame);
      if (isError(v)) return v;
      if (!isMapKey(k)) return new CelError('unsupported key type');
      if (entries.some(([x]) => mapKeyEquals(x, k))) return new CelError(`Failed with repeated key: ${display(k)}`);
      if (en.optional) {
        if (!(v instanceof Optional)) return noSuchOverload();
        if (v.hasValue) entries.push([k, v.value!]);
      } else entries.push([k, v]);
    }
    this.charge(MAP_CREATE_BASE_COST);
    return CelMap.fromEntries(entries as [string, CelValue][]);
  }

  private comprehension(e: Extract<Expr, { kind: 'comprehension' }>, frame: Frame | undefined): CelResult {
    const range = this.eval(e.range, frame);
    if (isError(range)) return range;
    let items: [CelValue, CelValue][];
    if (isList(range)) items = range.map((v, i) => (e.iterVar2 ? [BigInt(i), v] : [v, null]));
    else if (range instanceof CelMap) items = [...range].map(([k, v]) => [k, v]);
    else return new CelError('cannot iterate over non-list/non-map value');
    const accu: Frame = { name: e.accuVar, value: this.eval(e.init, frame), parent: frame };
    for (const [a, b] of items) {
      let inner: Frame = { name: e.iterVar, value: a, parent: accu };
      if (e.iterVar2) inner = { name: e.iterVar2, value: b, parent: inner };
      if (this.eval(e.cond, inner) !== true) break;
      accu.value = this.eval(e.step, inner);
    }
    return this.eval(e.result, accu);
  }
}

function fieldOf(v: CelValue, field: string): CelResult | undefined {
  if (v instanceof CelMap) return v.get(field);
  if (v instanceof LazyMap) return v.field(field);
  return undefined;
}

function listIndex(k: CelValue): bigint | undefined {
  if (typeof k === 'bigint') return k;
  if (k instanceof Uint) return k.value;
  if (typeof k === 'number' && Number.isInteger(k)) return BigInt(k);
  return undefined;
}

const mapKeyEquals = (a: CelValue, b: CelValue): boolean => CelMap.fromEntries([[a as string, null]]).has(b);

/** The first candidate overload whose parameters the argument values fit. */
function dispatch(overloads: readonly Overload[], args: readonly CelValue[]): Overload | undefined {
  for (const o of overloads) if (o.params.every((p, i) => valueFits(p, args[i]!))) return o;
  return undefined;
}
