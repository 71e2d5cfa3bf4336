// Label selectors as admission matches with them (metav1.LabelSelectorAsSelector and kube's object
// and namespace matchers): an empty selector matches everything; an object selector matches the
// new or the old object's labels; a namespace selector never excludes a cluster-scoped object.

import type { AdmissionAttributes } from '../../apimachinery/admission.js';
import type { LabelSelector } from '../../resources/admissionregistration/types.js';

export type Labels = Readonly<Record<string, string>>;

/** A parsed selector: its test, or the error LabelSelectorAsSelector gives for it. */
export type CompiledSelector = { empty: boolean; matches(labels: Labels): boolean } | { error: string };

export function compileSelector(s: LabelSelector | undefined): CompiledSelector {
  if (!s) return { empty: false, matches: () => false };
  const labels = Object.entries(s.matchLabels ?? {});
  const exprs = s.matchExpressions ?? [];
  if (labels.length === 0 && exprs.length === 0) return { empty: true, matches: () => true };
  for (const r of exprs) {
    const values = r.values ?? [];
    switch (r.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0) return { error: 'for \'in\', \'notin\' operators, values set can\'t be empty' };
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0) return { error: 'values set must be empty for exists and does not exist' };
        break;
      default:
        return { error: `${JSON.stringify(r.operator ?? '')} is not a valid label selector operator` };
    }
  }
  return {
    empty: false,
    matches: (l) =>
      labels.every(([k, v]) => Object.hasOwn(l, k) && l[k] === v) &&
      exprs.every((r) => {
        const has = Object.hasOwn(l, r.key ?? '');
        const value = l[r.key ?? ''];
        switch (r.operator) {
          case 'In':
            return has && (r.values ?? []).includes(value!);
          case 'NotIn':
            return !has || !(r.values ?? []).includes(value!);
          case 'Exists':
            return has;
          default:
            return !has;
        }
      }),
  };
}

const labelsOf = (o: { metadata?: { labels?: Record<string, string> } } | undefined): Labels | undefined => (o ? (o.metadata?.labels ?? {}) : undefined);

/** The object selector: true when it is empty or the new or old object's labels match it. */
export function objectSelectorMatches(sel: CompiledSelector, a: AdmissionAttributes): boolean | { error: string } {
  if ('error' in sel) return sel;
  if (sel.empty) return true;
  const now = labelsOf(a.object);
  const before = labelsOf(a.oldObject);
  return (now !== undefined && sel.matches(now)) || (before !== undefined && sel.matches(before));
}

/**
 * The namespace selector. Cluster-scoped objects are never excluded (kube). This server stores no
 * Namespace objects: a namespaced request is judged by the label every namespace carries,
 * kubernetes.io/metadata.name.
 */
export function namespaceSelectorMatches(sel: CompiledSelector, a: AdmissionAttributes): boolean | { error: string } {
  if (a.namespace === '' && a.resource !== 'namespaces') return true;
  if ('error' in sel) return sel;
  if (sel.empty) return true;
  return sel.matches({ 'kubernetes.io/metadata.name': a.namespace || a.name });
}
