// Validation of the CEL expressions in policies and webhooks, as kube-apiserver validates them on
// write: each compiled against the declarations it will run with, a compile problem reported as
// `Invalid value: "<expression>": compilation failed: ERROR: <input>:...`.

import { fieldErrors, type FieldError, type FieldPath } from '../../apimachinery/field-error.js';
import { admissionDeclarations } from '../../cel/admission-env.js';
import { CompileError, compileExpression } from '../../cel/program.js';
import { T, type CelType } from '../../cel/types.js';
import type { AuditAnnotation, MatchCondition, Validation, Variable } from './types.js';
import { validateQualifiedName } from './validation-common.js';

const MAX_MATCH_CONDITIONS = 64;
const MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH = 5 * 1024;
const supportedReasons = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'];

function compileProblem(expression: string, fieldValue: string, path: FieldPath, decls: ReturnType<typeof admissionDeclarations>, returnTypes: readonly CelType[] | 'any'): FieldError[] {
  const r = compileExpression(expression, decls, returnTypes);
  return r instanceof CompileError ? [fieldErrors.invalid(path, fieldValue, r.detail)] : [];
}

/** matchConditions of a webhook or policy; `params` when the policy has a paramKind. */
export function validateMatchConditions(conditions: readonly MatchCondition[] | undefined, params: boolean, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const list = conditions ?? [];
  if (list.length > MAX_MATCH_CONDITIONS) errs.push(fieldErrors.tooMany(path, list.length, MAX_MATCH_CONDITIONS));
  const names = new Set<string>();
  const decls = admissionDeclarations({ params, authorizer: true });
  list.forEach((c, i) => {
    const p = path.index(i);
    const expr = (c.expression ?? '').trim();
    if (expr === '') errs.push(fieldErrors.required(p.child('expression'), ''));
    else errs.push(...compileProblem(expr, expr, p.child('expression'), decls, [T.bool]));
    if (!c.name) errs.push(fieldErrors.required(p.child('name'), ''));
    else errs.push(...validateQualifiedName(c.name, p.child('name')));
    if (c.name) {
      if (names.has(c.name)) errs.push(fieldErrors.duplicate(p.child('name'), c.name));
      else names.add(c.name);
    }
  });
  return errs;
}

const CEL_IDENT = /^[_a-zA-Z][_a-zA-Z0-9]*$/;
const CEL_RESERVED = new Set(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while']);

/** The policy's expressions, compiled as one policy: variables first, each seeing the earlier ones. */
export class PolicyExpressionValidator {
  private readonly variableTypes = new Map<string, CelType>();

  constructor(private readonly params: boolean) {}

  private decls(authorizer: boolean, params = this.params) {
    return admissionDeclarations({ params, authorizer, variables: this.variableTypes });
  }

  variable(v: Variable, path: FieldPath): FieldError[] {
    const errs: FieldError[] = [];
    const name = v.name ?? '';
    if (name.trim() === '') errs.push(fieldErrors.required(path.child('name'), 'name is not specified'));
    else if (!CEL_IDENT.test(name) || CEL_RESERVED.has(name)) errs.push(fieldErrors.invalid(path.child('name'), name, 'name is not a valid CEL identifier'));
    const expr = v.expression ?? '';
    if (expr.trim() === '') {
      errs.push(fieldErrors.required(path.child('expression'), 'expression is not specified'));
      return errs;
    }
    const r = compileExpression(expr, this.decls(true), 'any');
    if (r instanceof CompileError) errs.push(fieldErrors.invalid(path.child('expression'), expr, r.detail));
    // A variable that does not compile is still declared (as dyn), as kube stores its result.
    this.variableTypes.set(name, r instanceof CompileError ? T.dyn : r.outputType);
    return errs;
  }

  validation(v: Validation, path: FieldPath): FieldError[] {
    const errs: FieldError[] = [];
    const expr = v.expression ?? '';
    if (expr.trim() === '') errs.push(fieldErrors.required(path.child('expression'), 'expression is not specified'));
    else errs.push(...compileProblem(expr, expr, path.child('expression'), this.decls(true), [T.bool]));
    const msgExpr = v.messageExpression ?? '';
    if (msgExpr.length > 0 && msgExpr.trim() === '') errs.push(fieldErrors.invalid(path.child('messageExpression'), msgExpr, 'must be non-empty if specified'));
    else if (msgExpr.trim() !== '') errs.push(...compileProblem(msgExpr, msgExpr, path.child('messageExpression'), this.decls(false), [T.string]));
    const msg = v.message ?? '';
    if (msg.length > 0 && msg.trim() === '') errs.push(fieldErrors.invalid(path.child('message'), msg, 'message must be non-empty if specified'));
    else if (/[\n\r]/.test(msg.trim())) errs.push(fieldErrors.invalid(path.child('message'), msg, 'message must not contain line breaks'));
    if (v.reason !== undefined && !supportedReasons.includes(v.reason)) errs.push(fieldErrors.notSupported(path.child('reason'), v.reason, supportedReasons));
    return errs;
  }

  auditAnnotation(a: AuditAnnotation, policyName: string, path: FieldPath): FieldError[] {
    const errs: FieldError[] = [];
    if (policyName) errs.push(...validateQualifiedName(`${policyName}/${a.key ?? ''}`, path.child('key')));
    else errs.push(fieldErrors.invalid(path.child('key'), a.key ?? '', 'requires metadata.name be non-empty'));
    const value = a.valueExpression ?? '';
    const trimmed = value.trim();
    if (trimmed === '') errs.push(fieldErrors.required(path.child('valueExpression'), 'valueExpression is not specified'));
    else if (trimmed.length > MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH) errs.push(fieldErrors.required(path.child('valueExpression'), `must not exceed ${MAX_AUDIT_ANNOTATION_VALUE_EXPRESSION_LENGTH} bytes in length`));
    else errs.push(...compileProblem(trimmed, value, path.child('valueExpression'), this.decls(true), [T.string, T.null]));
    return errs;
  }
}
