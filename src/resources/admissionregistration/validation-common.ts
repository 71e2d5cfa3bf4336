// Validation shared by the admissionregistration kinds (pkg/apis/admissionregistration/validation
// and the apimachinery helpers it calls), with kube's messages: rules, match resources, label
// selectors, webhook client configs, name formats.

import { FieldPath, fieldErrors, type FieldError } from '../../apimachinery/field-error.js';
import { isDNS1123Subdomain, isQualifiedName, isValidLabelValue } from '../../apimachinery/validation/names.js';
import { validateLabels } from '../../apimachinery/validation/object-meta-validation.js';
import { isDNS1035Label } from '../../cel/lib/format.js';
import { goParse } from '../../cel/lib/go-url.js';
import type { LabelSelector, MatchResources, NamedRuleWithOperations, Rule, RuleWithOperations, ServiceReference } from './types.js';

export { isDNS1035Label };

export const supportedFailurePolicies = ['Fail', 'Ignore'];
export const supportedMatchPolicies = ['Equivalent', 'Exact'];
const supportedOperations = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const validScopes = ['*', 'Cluster', 'Namespaced'];

const hasWildcard = (items: readonly string[]): boolean => items.includes('*');

export function validateLabelSelector(sel: LabelSelector | undefined, path: FieldPath, allowInvalidLabelValue = false): FieldError[] {
  if (!sel) return [];
  const errs = validateLabels(sel.matchLabels, path.child('matchLabels'));
  (sel.matchExpressions ?? []).forEach((r, i) => {
    const p = path.child('matchExpressions').index(i);
    const values = r.values ?? [];
    switch (r.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) errs.push(fieldErrors.required(p.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) errs.push(fieldErrors.forbidden(p.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errs.push(fieldErrors.invalid(p.child('operator'), r.operator ?? '', 'not a valid selector operator'));
    }
    for (const msg of isQualifiedName(r.key ?? '')) errs.push(fieldErrors.invalid(p.child('key'), r.key ?? '', msg));
    if (!allowInvalidLabelValue) {
      values.forEach((v, j) => {
        for (const msg of isValidLabelValue(v)) errs.push(fieldErrors.invalid(p.child('values').index(j), v, msg));
      });
    }
  });
  return errs;
}

/** Whether a selector would fail strict validation (kube keeps accepting such stored selectors on update). */
export function hasInvalidLabelValue(sel: LabelSelector | undefined): boolean {
  return validateLabelSelector(sel, FieldPath.root('x')).length > 0;
}

function validateResources(resources: readonly string[], path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(fieldErrors.required(path, ''));
  const resWithWildcardSub = new Set<string>();
  const subWithWildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let withoutSub = false;
  resources.forEach((resSub, i) => {
    if (resSub === '') return void errs.push(fieldErrors.required(path.index(i), ''));
    if (resSub === '*/*') doubleWildcard = true;
    if (resSub === '*') singleWildcard = true;
    const slash = resSub.indexOf('/');
    if (slash < 0) {
      withoutSub = resSub !== '*';
      return;
    }
    const res = resSub.slice(0, slash);
    const sub = resSub.slice(slash + 1);
    if (resWithWildcardSub.has(res)) errs.push(fieldErrors.invalid(path.index(i), resSub, `if '${res}/*' is present, must not specify ${resSub}`));
    if (subWithWildcardRes.has(sub)) errs.push(fieldErrors.invalid(path.index(i), resSub, `if '*/${sub}' is present, must not specify ${resSub}`));
    if (sub === '*') resWithWildcardSub.add(res);
    if (res === '*') subWithWildcardRes.add(sub);
  });
  if (resources.length > 1 && doubleWildcard) errs.push(fieldErrors.invalid(path, resources, "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && withoutSub) errs.push(fieldErrors.invalid(path, resources, "if '*' is present, must not specify other resources without subresources"));
  return errs;
}

function validateRule(rule: Rule, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const groups = rule.apiGroups ?? [];
  const versions = rule.apiVersions ?? [];
  if (groups.length === 0) errs.push(fieldErrors.required(path.child('apiGroups'), ''));
  if (groups.length > 1 && hasWildcard(groups)) errs.push(fieldErrors.invalid(path.child('apiGroups'), groups, "if '*' is present, must not specify other API groups"));
  if (versions.length === 0) errs.push(fieldErrors.required(path.child('apiVersions'), ''));
  if (versions.length > 1 && hasWildcard(versions)) errs.push(fieldErrors.invalid(path.child('apiVersions'), versions, "if '*' is present, must not specify other API versions"));
  versions.forEach((v, i) => {
    if (v === '') errs.push(fieldErrors.required(path.child('apiVersions').index(i), ''));
  });
  errs.push(...validateResources(rule.resources ?? [], path.child('resources')));
  if (rule.scope !== undefined && !validScopes.includes(rule.scope)) errs.push(fieldErrors.notSupported(path.child('scope'), rule.scope, validScopes));
  return errs;
}

export function validateRuleWithOperations(rule: RuleWithOperations, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const ops = rule.operations ?? [];
  if (ops.length === 0) errs.push(fieldErrors.required(path.child('operations'), ''));
  if (ops.length > 1 && hasWildcard(ops)) errs.push(fieldErrors.invalid(path.child('operations'), ops, "if '*' is present, must not specify other operations"));
  ops.forEach((op, i) => {
    if (!supportedOperations.includes(op)) errs.push(fieldErrors.notSupported(path.child('operations').index(i), op, supportedOperations));
  });
  return [...errs, ...validateRule(rule, path)];
}

/** apimachinery's path.ValidatePathSegmentName (not a prefix). */
export function pathSegmentProblems(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  const errs: string[] = [];
  if (name.includes('/')) errs.push("may not contain '/'");
  if (name.includes('%')) errs.push("may not contain '%'");
  return errs;
}

function validateNamedRule(rule: NamedRuleWithOperations, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  (rule.resourceNames ?? []).forEach((name, i) => {
    for (const msg of pathSegmentProblems(name)) errs.push(fieldErrors.invalid(path.child('resourceNames').index(i), name, msg));
    if (seen.has(name)) errs.push(fieldErrors.duplicate(path.child('resourceNames').index(i), name));
    else seen.add(name);
  });
  return [...errs, ...validateRuleWithOperations(rule, path)];
}

export function validateMatchResources(m: MatchResources | undefined, path: FieldPath): FieldError[] {
  if (!m) return [];
  const errs: FieldError[] = [];
  if (m.matchPolicy === undefined) errs.push(fieldErrors.required(path.child('matchPolicy'), ''));
  else if (!supportedMatchPolicies.includes(m.matchPolicy)) errs.push(fieldErrors.notSupported(path.child('matchPolicy'), m.matchPolicy, supportedMatchPolicies));
  if (m.namespaceSelector === undefined) errs.push(fieldErrors.required(path.child('namespaceSelector'), ''));
  else errs.push(...validateLabelSelector(m.namespaceSelector, path.child('namespaceSelector')));
  if (m.objectSelector === undefined) errs.push(fieldErrors.required(path.child('objectSelector'), ''));
  else errs.push(...validateLabelSelector(m.objectSelector, path.child('objectSelector')));
  (m.resourceRules ?? []).forEach((r, i) => errs.push(...validateNamedRule(r, path.child('resourceRules').index(i))));
  (m.excludeResourceRules ?? []).forEach((r, i) => errs.push(...validateNamedRule(r, path.child('excludeResourceRules').index(i))));
  return errs;
}

/** utilvalidation.IsFullyQualifiedName. */
export function validateFullyQualifiedName(name: string | undefined, path: FieldPath): FieldError[] {
  if (!name) return [fieldErrors.required(path, '')];
  const errs = isDNS1123Subdomain(name);
  if (errs.length) return [fieldErrors.invalid(path, name, errs.join(','))];
  if (name.split('.').length < 3) return [fieldErrors.invalid(path, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

/** apivalidation.ValidateQualifiedName. */
export function validateQualifiedName(value: string, path: FieldPath): FieldError[] {
  return isQualifiedName(value).map((msg) => fieldErrors.invalid(path, value, msg));
}

const URL_FORM = '; desired format: https://host[/path]';

/** webhook.ValidateWebhookURL (https only). */
export function validateWebhookURL(url: string, path: FieldPath): FieldError[] {
  let u;
  try {
    u = goParse(url);
  } catch (err) {
    return [fieldErrors.required(path, `url must be a valid URL: ${(err as Error).message}${URL_FORM}`)];
  }
  const errs: FieldError[] = [];
  if (u.scheme !== 'https') errs.push(fieldErrors.invalid(path, u.scheme, `'https' is the only allowed URL scheme${URL_FORM}`));
  if (u.host === '') errs.push(fieldErrors.invalid(path, u.host, `host must be specified${URL_FORM}`));
  if (u.user !== undefined) errs.push(fieldErrors.invalid(path, u.user, 'user information is not permitted in the URL'));
  if (u.fragment) errs.push(fieldErrors.invalid(path, u.fragment, 'fragments are not permitted in the URL'));
  if (u.rawQuery) errs.push(fieldErrors.invalid(path, u.rawQuery, 'query parameters are not permitted in the URL'));
  return errs;
}

/** webhook.ValidateWebhookService. */
export function validateWebhookService(s: ServiceReference, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (!s.name) errs.push(fieldErrors.required(path.child('name'), ''));
  if (!s.namespace) errs.push(fieldErrors.required(path.child('namespace'), ''));
  const port = s.port ?? 443;
  if (!(port >= 1 && port <= 65535)) errs.push(fieldErrors.invalid(path.child('port'), port, 'port is not valid: must be between 1 and 65535, inclusive'));
  const p = s.path;
  if (p === undefined || p === '/' || p === '') return errs;
  if (p === '//') return [...errs, fieldErrors.invalid(path.child('path'), p, 'segment[0] may not be empty')];
  if (!p.startsWith('/')) errs.push(fieldErrors.invalid(path.child('path'), p, "must start with a '/'"));
  let check = p.slice(1);
  if (check.endsWith('/')) check = check.slice(0, -1);
  check.split('/').forEach((step, i) => {
    if (step === '') return void errs.push(fieldErrors.invalid(path.child('path'), p, `segment[${i}] may not be empty`));
    for (const failure of isDNS1123Subdomain(step)) errs.push(fieldErrors.invalid(path.child('path'), p, `segment[${i}]: ${failure}`));
  });
  return errs;
}
