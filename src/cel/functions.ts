// Function overloads: what the checker resolves calls against and the evaluator dispatches to.
// Each overload carries cel-go's overload id (the cost model keys on some), its signature, its
// implementation over evaluated arguments, and its runtime cost when that is not cel-go's
// default of 1.

import { assignable, type CelType } from './types.js';
import { CelError, CelMap, Duration, Opaque, Optional, Timestamp, TypeValue, Uint, isList, type CelResult, type CelValue } from './values.js';

/** What a function may need beyond its arguments. */
export interface CallContext {
  /** Authorization checks (the authz library); absent where no authorizer is bound. */
  readonly authorize?: AuthorizeFn;
}

export interface AuthzAttributes {
  readonly user: AuthzUser;
  readonly verb: string;
  readonly isResourceRequest: boolean;
  readonly path: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  readonly fieldSelector?: string;
  readonly labelSelector?: string;
}

export interface AuthzUser {
  readonly username: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

export interface AuthzDecision {
  readonly decision: 'allow' | 'deny' | 'noOpinion';
  readonly reason: string;
  readonly error?: string;
}

/**
 * An authorization check made from an expression. Evaluation is synchronous: a check whose answer
 * is not known yet returns undefined, and the caller evaluates again once it is (authz.ts).
 */
export type AuthorizeFn = (attrs: AuthzAttributes) => AuthzDecision | undefined;

export interface Overload {
  /** cel-go's overload id. */
  readonly id: string;
  readonly name: string;
  /** Called as `receiver.name(args)`; the receiver is args[0] of the signature. */
  readonly member: boolean;
  readonly params: readonly CelType[];
  readonly result: CelType;
  readonly impl: (args: readonly CelValue[], ctx: CallContext) => CelResult;
  /** Runtime cost (cel-go's CostTracker or Kubernetes' CostEstimator); 1 when absent. */
  readonly cost?: (args: readonly CelValue[], result: CelResult) => number;
}

export class FunctionLibrary {
  private readonly byName = new Map<string, Overload[]>();

  constructor(overloads: Iterable<Overload> = []) {
    for (const o of overloads) this.add(o);
  }

  add(o: Overload): void {
    const list = this.byName.get(o.name) ?? [];
    list.push(o);
    this.byName.set(o.name, list);
  }

  overloads(name: string): readonly Overload[] {
    return this.byName.get(name) ?? [];
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  extend(more: Iterable<Overload>): FunctionLibrary {
    const lib = new FunctionLibrary();
    for (const list of this.byName.values()) for (const o of list) lib.add(o);
    for (const o of more) lib.add(o);
    return lib;
  }
}

/** Declares an overload; the implementation gets the arguments as declared. */
export function fn(id: string, name: string, params: readonly CelType[], result: CelType, impl: (...args: any[]) => CelResult, cost?: Overload['cost']): Overload {
  return { id, name, member: false, params, result, impl: (args) => impl(...args), cost };
}

export function method(id: string, name: string, params: readonly CelType[], result: CelType, impl: (...args: any[]) => CelResult, cost?: Overload['cost']): Overload {
  return { id, name, member: true, params, result, impl: (args) => impl(...args), cost };
}

/** Whether a runtime value fits a declared parameter type (dispatch among candidate overloads). */
export function valueFits(t: CelType, v: CelValue): boolean {
  switch (t.kind) {
    case 'dyn':
    case 'param':
    case 'error':
      return true;
    case 'int':
      return typeof v === 'bigint';
    case 'uint':
      return v instanceof Uint;
    case 'double':
      return typeof v === 'number';
    case 'bool':
      return typeof v === 'boolean';
    case 'string':
      return typeof v === 'string';
    case 'bytes':
      return v instanceof Uint8Array;
    case 'null_type':
      return v === null;
    case 'list':
      return isList(v);
    case 'map':
    case 'object':
      return v instanceof CelMap;
    case 'timestamp':
      return v instanceof Timestamp;
    case 'duration':
      return v instanceof Duration;
    case 'type':
      return v instanceof TypeValue;
    case 'optional':
      return v instanceof Optional;
    case 'opaque':
      return v instanceof Opaque && v.typeName === t.name;
  }
}

/** The overloads of `name` a call may resolve to, given static argument types (the checker's rule). */
export function candidates(lib: FunctionLibrary, name: string, member: boolean, argTypes: readonly CelType[]): { overload: Overload; bindings: Map<string, CelType> }[] {
  const out: { overload: Overload; bindings: Map<string, CelType> }[] = [];
  for (const o of lib.overloads(name)) {
    if (o.member !== member || o.params.length !== argTypes.length) continue;
    const b = new Map<string, CelType>();
    if (o.params.every((p, i) => assignable(p, argTypes[i]!, b))) out.push({ overload: o, bindings: b });
  }
  return out;
}

export const celErr = (message: string): CelError => new CelError(message);
