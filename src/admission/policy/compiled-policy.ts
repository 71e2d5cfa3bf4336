// A ValidatingAdmissionPolicy compiled as kube's compilePolicy compiles it: variables first
// (each seeing the earlier ones), then matchConditions, validations and audit annotations with
// `authorizer`, and messageExpressions without it; params declared when the policy has a
// paramKind. An expression that does not compile stays in place as its compile error.

import { admissionDeclarations } from '../../cel/admission-env.js';
import { CompileError, compileExpression } from '../../cel/program.js';
import { T, type CelType } from '../../cel/types.js';
import type { ValidatingAdmissionPolicy, Validation } from '../../resources/admissionregistration/types.js';
import type { Slot } from '../cel-runtime.js';
import { compileConditions, type CompiledConditions } from '../match-conditions.js';

export interface CompiledPolicy {
  readonly name: string;
  readonly failurePolicy: string;
  readonly hasParams: boolean;
  readonly variables: ReadonlyMap<string, Slot>;
  readonly matchConditions: CompiledConditions;
  readonly validations: readonly Validation[];
  readonly validationSlots: readonly Slot[];
  readonly messageSlots: readonly Slot[];
  readonly auditAnnotations: readonly { key: string; valueExpression: string }[];
  readonly auditSlots: readonly Slot[];
}

export function compilePolicy(p: ValidatingAdmissionPolicy): CompiledPolicy {
  const spec = p.spec ?? {};
  const hasParams = spec.paramKind !== undefined;
  const variableTypes = new Map<string, CelType>();
  const variables = new Map<string, Slot>();
  const decls = (authorizer: boolean) => admissionDeclarations({ params: hasParams, authorizer, variables: variableTypes });
  for (const v of spec.variables ?? []) {
    const c = compileExpression(v.expression ?? '', decls(true), 'any');
    variables.set(v.name ?? '', c);
    variableTypes.set(v.name ?? '', c instanceof CompileError ? T.dyn : c.outputType);
  }
  const validations = spec.validations ?? [];
  const annotations = (spec.auditAnnotations ?? []).map((a) => ({ key: a.key ?? '', valueExpression: a.valueExpression ?? '' }));
  return {
    name: p.metadata.name ?? '',
    failurePolicy: spec.failurePolicy ?? 'Fail',
    hasParams,
    variables,
    matchConditions: compileConditions(spec.matchConditions, decls(true)),
    validations,
    validationSlots: validations.map((v) => compileExpression(v.expression ?? '', decls(true), [T.bool])),
    messageSlots: validations.map((v) => (v.messageExpression ? compileExpression(v.messageExpression, decls(false), [T.string]) : undefined)),
    auditAnnotations: annotations,
    auditSlots: annotations.map((a) => compileExpression(a.valueExpression.trim(), decls(true), [T.string, T.null])),
  };
}
