// The SubjectAccessReview a webhook authorizer sends, field for field as kube-apiserver 1.33
// encodes it (authorization.k8s.io v1 or v1beta1; Go's field order and omitempty; v1beta1 names
// the groups `group`), and the status read back from the answer. Selectors are passed on as
// requirements, as kube does with AuthorizeWithSelectors (beta, on in 1.33): `=`/`==`/`in` become
// In, `!=`/`notin` NotIn, label existence Exists/DoesNotExist; anything else is dropped (the
// requirements are ANDed, so dropping one only widens what is asked).

import { parseFieldSelector } from '../../apimachinery/field-selector.js';
import { parseLabelSelector } from '../../apimachinery/label-selector.js';
import type { AuthorizationAttributes } from '../authorizer.js';

export type SarVersion = 'v1' | 'v1beta1';

interface Requirement {
  key: string;
  operator: string;
  values?: string[];
}

/** The v1 spec, keys in Go's order, empty fields left out. Also the cache key, as in kube. */
export function subjectAccessReviewSpec(attrs: AuthorizationAttributes): Record<string, unknown> {
  const spec: Record<string, unknown> = {};
  if (attrs.isResourceRequest) {
    const ra: Record<string, unknown> = {};
    const put = (k: string, v: string): void => {
      if (v) ra[k] = v;
    };
    put('namespace', attrs.namespace);
    put('verb', attrs.verb);
    put('group', attrs.apiGroup);
    put('version', attrs.apiVersion);
    put('resource', attrs.resource);
    put('subresource', attrs.subresource);
    put('name', attrs.name);
    const fields = fieldRequirements(attrs.fieldSelector);
    if (fields.length) ra.fieldSelector = { requirements: fields };
    const labels = labelRequirements(attrs.labelSelector);
    if (labels.length) ra.labelSelector = { requirements: labels };
    spec.resourceAttributes = ra;
  } else {
    const nra: Record<string, unknown> = {};
    if (attrs.path) nra.path = attrs.path;
    if (attrs.verb) nra.verb = attrs.verb;
    spec.nonResourceAttributes = nra;
  }
  const u = attrs.user;
  if (u.username) spec.user = u.username;
  if (u.groups.length) spec.groups = u.groups;
  if (u.extra && Object.keys(u.extra).length) spec.extra = u.extra;
  if (u.uid) spec.uid = u.uid;
  return spec;
}

/** The request body for `version`. */
export function subjectAccessReviewBody(spec: Record<string, unknown>, version: SarVersion): string {
  let wire = spec;
  if (version === 'v1beta1' && 'groups' in spec) {
    // Same order, `groups` renamed `group` where it stands.
    wire = Object.fromEntries(Object.entries(spec).map(([k, v]) => [k === 'groups' ? 'group' : k, v]));
  }
  return JSON.stringify({ kind: 'SubjectAccessReview', apiVersion: `authorization.k8s.io/${version}`, metadata: { creationTimestamp: null }, spec: wire, status: { allowed: false } });
}

export interface SarStatus {
  allowed: boolean;
  denied: boolean;
  reason: string;
  evaluationError: string;
}

/** The status of a webhook's answer; throws (a decoding error, as Go's) on anything else. */
export function parseSarResponse(text: string): SarStatus {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`the webhook's answer is not JSON: ${JSON.stringify(text.slice(0, 80))}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('the webhook\'s answer is not a SubjectAccessReview object');
  const status = (value as Record<string, unknown>).status ?? {};
  if (
    typeof status !== 'object' ||
    // Stryker disable next-line ConditionalExpression: equivalent, `?? {}` above made a null status {}
    status === null ||
    Array.isArray(status)
  ) {
    throw new Error('the webhook\'s answer has a status that is not an object');
  }
  const s = status as Record<string, unknown>;
  const bool = (k: string): boolean => {
    const v = s[k];
    if (v === undefined || v === null) return false;
    if (typeof v !== 'boolean') throw new Error(`the webhook's answer has a status.${k} that is not a boolean`);
    return v;
  };
  const str = (k: string): string => {
    const v = s[k];
    if (v === undefined || v === null) return '';
    if (typeof v !== 'string') throw new Error(`the webhook's answer has a status.${k} that is not a string`);
    return v;
  };
  return { allowed: bool('allowed'), denied: bool('denied'), reason: str('reason'), evaluationError: str('evaluationError') };
}

function fieldRequirements(selector: string | undefined): Requirement[] {
  // Stryker disable next-line ConditionalExpression: equivalent, a shortcut: an absent or empty selector parses to no requirements
  if (!selector) return [];
  try {
    return parseFieldSelector(selector).requirements.map((r) => ({ key: r.field, operator: r.operator === '!=' ? 'NotIn' : 'In', values: [r.value] }));
  } catch {
    return []; // a malformed selector narrows nothing: the broader question is asked
  }
}

const LABEL_OPERATORS: Record<string, string> = { in: 'In', '=': 'In', '==': 'In', notin: 'NotIn', '!=': 'NotIn', exists: 'Exists', '!': 'DoesNotExist' };

function labelRequirements(selector: string | undefined): Requirement[] {
  // Stryker disable next-line ConditionalExpression: equivalent, a shortcut: an absent or empty selector parses to no requirements
  if (!selector) return [];
  try {
    const out: Requirement[] = [];
    for (const r of parseLabelSelector(selector).requirements) {
      const operator = LABEL_OPERATORS[r.operator];
      if (!operator) continue;
      out.push(r.values.length ? { key: r.key, operator, values: r.values } : { key: r.key, operator });
    }
    return out;
  } catch {
    return [];
  }
}
