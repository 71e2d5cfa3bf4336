// Filter: metrics. Reports each request to the injected RequestObserver with kube's label values
// (verb, dry_run, group, version, resource, subresource, scope, component, code), its duration
// and response size once the response is over; a watch also counts as long-running while open.
// Labels for paths this server does not serve are blanked, so user input never becomes a label
// value. (In-flight counts come from the in-flight filter, which holds the slots.)

import { requestLabels, type RequestLabels, type RequestObservation, type RequestObserver } from '../../apimachinery/request-observer.js';
import type { Filter, RequestState } from './filter.js';

const METHOD_VERBS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'CONNECT']);

/** kube's labels for the request, with anything not served blanked. */
export function labelsOf(s: RequestState, served: (group: string, version: string, resource: string) => boolean): RequestLabels {
  const i = s.info;
  const contentType = s.req.headers['content-type'];
  const labels = requestLabels(i, s.req.method, s.query, Array.isArray(contentType) ? contentType[0] : contentType);
  if (!i.isResourceRequest) return { ...labels, verb: METHOD_VERBS.has(labels.verb) ? labels.verb : 'other' };
  const known = served(i.apiGroup, i.apiVersion, i.resource);
  return {
    ...labels,
    verb: /^[A-Z]+$/.test(labels.verb) && labels.verb.length <= 16 ? labels.verb : 'other',
    group: known ? i.apiGroup : '',
    version: known ? i.apiVersion : '',
    resource: known ? i.resource : '',
    subresource: known && (i.subresource === '' || i.subresource === 'status') ? i.subresource : '',
  };
}

/** One finished request as the observer sees it. */
export function describe(s: RequestState, served: (group: string, version: string, resource: string) => boolean, code: number, durationSeconds: number, responseBytes: number): RequestObservation {
  return { ...labelsOf(s, served), code, durationSeconds, responseBytes };
}

export function metricsFilter(observer: RequestObserver, served: (group: string, version: string, resource: string) => boolean): Filter {
  return async (s, next) => {
    const res = s.reply.raw;
    const labels = s.longRunning ? labelsOf(s, served) : undefined;
    if (labels) observer.longRunning(labels, 1);
    res.once('close', () => {
      if (labels) observer.longRunning(labels, -1);
      // Fastify's own header map (it hands headers to writeHead, where the response does not keep them).
      const bytes = Number(s.reply.getHeader('content-length') ?? res.getHeader('content-length') ?? 0);
      observer.observe(describe(s, served, res.statusCode, (performance.now() - s.receivedAt) / 1000, Number.isFinite(bytes) ? bytes : 0));
    });
    return next();
  };
}
