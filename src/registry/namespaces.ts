// Namespaces as the generic store sees them. There is no Namespace kind here: the namespaces that
// exist are the four kube-apiserver creates itself and never lets go (its system namespaces), so
// writes into any other one are refused as kube's NamespaceLifecycle admission refuses writes
// into a namespace that does not exist (404 `namespaces "x" not found`). Reads of any namespace
// are answered (empty, as kube answers them).

import type { ObjectMeta } from '../apimachinery/object-meta.js';
import type { RequestContext } from '../apimachinery/request-context.js';
import { badRequest, notFound } from '../apimachinery/status-error.js';

/** kube's `default`, `kube-node-lease`, `kube-public` and `kube-system`. */
export const SYSTEM_NAMESPACES: ReadonlySet<string> = new Set(['default', 'kube-node-lease', 'kube-public', 'kube-system']);

/** The request's namespace (request info carries the path's; in-process callers set it the same way). */
export const requestNamespace = (ctx: RequestContext): string => ctx.requestInfo.namespace ?? '';

/** NamespaceLifecycle for creates and updates: the namespace must exist. */
export function requireExistingNamespace(namespace: string): void {
  if (!SYSTEM_NAMESPACES.has(namespace)) throw notFound({ group: '', resource: 'namespaces' }, namespace);
}

/**
 * kube's EnsureObjectNamespaceMatchesRequestNamespace: an object without a namespace takes the
 * request's, a cluster-scoped kind's object loses any, and a different one is a 400.
 */
export function ensureObjectNamespace(meta: ObjectMeta, namespaced: boolean, requestNs: string): void {
  const expected = namespaced ? requestNs : '';
  const own = meta.namespace ?? '';
  if (expected === '') delete meta.namespace;
  else if (own === '') meta.namespace = expected;
  else if (own !== expected) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
}

/** The patch and apply form of the check (kube's checkName): a different namespace is a 400 in these words. */
export function checkPatchedNamespace(meta: ObjectMeta | undefined, requestNs: string): void {
  const own = meta?.namespace ?? '';
  if (requestNs && own && own !== requestNs) {
    throw badRequest(`the namespace of the object (${own}) does not match the namespace on the request (${requestNs})`);
  }
}
