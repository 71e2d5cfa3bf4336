// What the request path reports about each request, for metrics (kube-apiserver's
// apiserver_request_* family). The HTTP layer calls a RequestObserver; the metrics module
// implements it. Nothing here depends on a metrics library, and the no-op default costs nothing.
// The observer implementation bounds label values itself (it knows the served resources), so a
// caller may pass whatever the request named.

import type { RequestInfo } from './request-context.js';

/** kube's request_kind for the max-in-flight limits. */
export type RequestKind = 'readOnly' | 'mutating';

/** The labels kube-apiserver puts on a request (apiserver_request_total and friends). */
export interface RequestLabels {
  /** kube's reported verb: GET, LIST, WATCH, POST, PUT, PATCH, APPLY, DELETE, DELETECOLLECTION (non-resource: the HTTP method). */
  verb: string;
  /** '' or the sorted, de-duplicated dryRun values joined by ',' ('All'). */
  dryRun: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  /** 'resource' (one named object, or a create), 'namespace', 'cluster', or '' for non-resource requests. */
  scope: string;
  /** Always 'apiserver' here (kube also has 'aggregator' and 'apiextensions-apiserver'). */
  component: string;
}

export interface RequestObservation extends RequestLabels {
  /** The HTTP status code sent. */
  code: number;
  durationSeconds: number;
  /** Bytes of the response body (0 when unknown, e.g. a watch stream). */
  responseBytes: number;
}

export interface RequestObserver {
  /** One finished request (watches too, when they end). */
  observe(o: RequestObservation): void;
  /** A request started (+1) or finished (-1) counting against the in-flight limits (long-running requests do not). */
  inflight(kind: RequestKind, delta: 1 | -1): void;
  /** A long-running request (a watch) started (+1) or ended (-1). */
  longRunning(labels: RequestLabels, delta: 1 | -1): void;
  /** A request turned away before its handler ran: 'too-many-requests' (429) or 'time-out' (504). */
  rejected(kind: RequestKind, reason: 'too-many-requests' | 'time-out'): void;
}

export const noopRequestObserver: RequestObserver = {
  observe() {},
  inflight() {},
  longRunning() {},
  rejected() {},
};

/**
 * kube's nonMutatingRequestVerbs (the max-in-flight and priority-and-fairness filters): every
 * other verb is mutating, a non-resource request's `head` or `options` included (its verb is its
 * lower-cased method; the health paths that a HEAD usually probes are never limited anyway).
 */
const READ_ONLY_VERBS = new Set(['get', 'list', 'watch']);

/** kube's request_kind, which picks the in-flight pool a request counts against. */
export function requestKind(info: RequestInfo): RequestKind {
  return READ_ONLY_VERBS.has(info.verb) ? 'readOnly' : 'mutating';
}

/** Long-running requests (kube: watch, proxy, attach, exec, log streams); here only watches. */
export const isLongRunning = (info: RequestInfo): boolean => info.isResourceRequest && info.verb === 'watch';

/** '' or the sorted, de-duplicated dryRun values joined by ',' ('All'), else 'invalid'. */
function dryRunLabel(values: string[]): string {
  if (values.length === 0) return '';
  const distinct = [...new Set(values)].sort();
  return distinct.every((v) => v === 'All') ? distinct.join(',') : 'invalid';
}

const REPORTED_VERB: Record<string, string> = {
  get: 'GET',
  list: 'LIST',
  watch: 'WATCH',
  create: 'POST',
  update: 'PUT',
  patch: 'PATCH',
  delete: 'DELETE',
  deletecollection: 'DELETECOLLECTION',
};

/**
 * kube's labels for a request, from its RequestInfo, method, query and Content-Type: the verb as
 * kube reports it (APPLY for server-side apply), the scope, and the dryRun values.
 */
export function requestLabels(info: RequestInfo, method: string, query: URLSearchParams, contentType: string | undefined): RequestLabels {
  const dryRun = dryRunLabel(query.getAll('dryRun'));
  if (!info.isResourceRequest) {
    return { verb: method.toUpperCase(), dryRun, group: '', version: '', resource: '', subresource: '', scope: '', component: 'apiserver' };
  }
  let verb = REPORTED_VERB[info.verb] ?? info.verb.toUpperCase();
  if (verb === 'PATCH' && (contentType ?? '').split(';')[0]!.trim().toLowerCase() === 'application/apply-patch+yaml') verb = 'APPLY';
  const scope = info.name || info.verb === 'create' ? 'resource' : info.namespace ? 'namespace' : 'cluster';
  return { verb, dryRun, group: info.apiGroup, version: info.apiVersion, resource: info.resource, subresource: info.subresource, scope, component: 'apiserver' };
}
