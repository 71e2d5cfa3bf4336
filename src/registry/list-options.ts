// List query rules of kube-apiserver: resourceVersion / resourceVersionMatch / continue
// combinations (ValidateListOptions and the storage layer's checks), and selector parsing
// against the kind's selectable fields.

import { FieldPath, fieldErrors, type FieldError } from '../apimachinery/field-error.js';
import { parseFieldSelector, type FieldSelector } from '../apimachinery/field-selector.js';
import { parseLabelSelector, type LabelSelector } from '../apimachinery/label-selector.js';
import type { LabelEquality } from '../storage/revisioned-store.js';
import type { KubeObject } from '../apimachinery/object-meta.js';
import { badRequest, invalid } from '../apimachinery/status-error.js';
import type { ResourceDefinition } from './resource-definition.js';
import { parseResourceVersion } from './resource-version.js';
import type { ListQuery } from './rest-storage.js';

export type ReadMode = { kind: 'latest' } | { kind: 'notOlderThan'; revision: number } | { kind: 'exact'; revision: number };

/** How to read for a list, or a 400/422 as kube-apiserver answers bad combinations. */
export function listReadMode(q: ListQuery): ReadMode {
  const rv = q.resourceVersion ?? '';
  const match = q.resourceVersionMatch ?? '';
  const errs: FieldError[] = [];
  const matchPath = FieldPath.root('resourceVersionMatch');
  if (match) {
    if (match !== 'Exact' && match !== 'NotOlderThan') errs.push(fieldErrors.notSupported(matchPath, match, ['Exact', 'NotOlderThan', ''], true));
    else if (q.continue) errs.push(fieldErrors.forbidden(matchPath, 'resourceVersionMatch is forbidden when continue is provided'));
    else if (!rv) errs.push(fieldErrors.forbidden(matchPath, 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    else if (match === 'Exact' && rv === '0') errs.push(fieldErrors.forbidden(matchPath, 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
  }
  if (q.sendInitialEvents !== undefined) errs.push(fieldErrors.forbidden(FieldPath.root('sendInitialEvents'), 'sendInitialEvents is forbidden for list'));
  if (errs.length) throw invalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', errs);
  if (q.continue && rv && rv !== '0') throw badRequest('specifying resource version is not allowed when using continue');
  if (!rv || rv === '0') return { kind: 'latest' };
  const revision = parseResourceVersion(rv);
  return match === 'Exact' ? { kind: 'exact', revision } : { kind: 'notOlderThan', revision };
}

export interface Selectors {
  labels: LabelSelector;
  fields: FieldSelector;
  /** Both selectors empty: every object matches. */
  everything: boolean;
  /** The selectors as given: equal text, equal results (results are shared by it). */
  text: string;
  /** The label requirements a store's label index can narrow a list by (`=`, `==`, `in`); empty when none. */
  labelHint: LabelEquality[];
}

/** Parsed selectors by kind and text: a thousand watches with one selector share one (parsed selectors are never mutated). */
const parsedSelectors = new Map<string, Selectors>();
const PARSED_SELECTORS_KEPT = 256;

/** Parses both selectors; a field label the kind does not support is a 400 in the kind's words. */
export function parseSelectors<T extends KubeObject>(def: ResourceDefinition<T>, q: Pick<ListQuery, 'labelSelector' | 'fieldSelector'>): Selectors {
  const text = `${q.labelSelector ?? ''}\u0000${q.fieldSelector ?? ''}`;
  const key = `${def.group}/${def.plural}\u0000${text}`;
  const known = parsedSelectors.get(key);
  if (known) return known;
  const labels = parseLabelSelector(q.labelSelector);
  const fields = parseFieldSelector(q.fieldSelector);
  const supported = Object.keys(def.selectableFields({ apiVersion: '', kind: '', metadata: {} } as T));
  for (const r of fields.requirements) {
    if (!supported.includes(r.field)) throw badRequest(def.unknownFieldLabelMessage(r.field));
  }
  const labelHint = labels.requirements.filter((r) => r.operator === '=' || r.operator === '==' || r.operator === 'in').map((r) => ({ key: r.key, values: r.values }));
  const parsed: Selectors = { labels, fields, everything: labels.empty && fields.empty, text, labelHint };
  // Oldest first out: a bounded cache, however many distinct selectors clients send.
  if (parsedSelectors.size >= PARSED_SELECTORS_KEPT) parsedSelectors.delete(parsedSelectors.keys().next().value!);
  parsedSelectors.set(key, parsed);
  return parsed;
}

export function matchesSelectors<T extends KubeObject>(def: ResourceDefinition<T>, s: Selectors, obj: T): boolean {
  return s.labels.matches(obj.metadata.labels) && (s.fields.empty || s.fields.matches(def.selectableFields(obj)));
}
