// Filter: metrics. Reports each request to the injected RequestObserver with kube's label values
// (verb, dry_run, group, version, resource, subresource, scope, component, code), its duration
// and response size once the response is over; a watch also counts as long-running while open.
// Labels for paths this server does not serve are blanked, so user input never becomes a label
// value. (In-flight counts come from the in-flight filter, which holds the slots.) The labels are
// made once per request, as it enters this filter (nothing they read changes after), and kept
// with what `ended` reads: a watch's response outlives its request state (filter.ts).

import { requestLabels, type RequestLabels, type RequestObservation, type RequestObserver } from '../../apimachinery/request-observer.js';
import { filter, type Filter, type RequestState } from './filter.js';

const METHOD_VERBS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'CONNECT']);

/** kube's labels for the request, with anything not served blanked. */
export function labelsOf(s: RequestState, served: (group: string, version: string, resource: string) => boolean): RequestLabels {
  const i = s.info;
  const contentType = s.req.headers['content-type'];
  // A fresh object: bounded in place.
  const labels = requestLabels(i, s.req.method, s.query, Array.isArray(contentType) ? contentType[0] : contentType);
  if (!i.isResourceRequest) {
    if (!METHOD_VERBS.has(labels.verb)) labels.verb = 'other';
    return labels;
  }
  const known = served(i.apiGroup, i.apiVersion, i.resource);
  if (!(/^[A-Z]+$/.test(labels.verb) && labels.verb.length <= 16)) labels.verb = 'other';
  if (!known) labels.group = labels.version = labels.resource = '';
  if (!(known && (i.subresource === '' || i.subresource === 'status'))) labels.subresource = '';
  return labels;
}

/**
 * Long-running requests' labels, one object per distinct set: an idle watch keeps a shared one
 * for its life instead of its own. Bounded: labelsOf blanks what is not served, and sets with a
 * dryRun (user input) or past the cap are not shared.
 */
const sharedLabels = new Map<string, RequestLabels>();
const MAX_SHARED_LABELS = 1000;

function shared(l: RequestLabels): RequestLabels {
  if (l.dryRun !== '') return l;
  const key = `${l.verb}\0${l.group}\0${l.version}\0${l.resource}\0${l.subresource}\0${l.scope}\0${l.component}`;
  const known = sharedLabels.get(key);
  if (known) return known;
  if (sharedLabels.size < MAX_SHARED_LABELS) sharedLabels.set(key, l);
  return l;
}

/** One finished request as the observer sees it. */
function observation(l: RequestLabels, code: number, durationSeconds: number, responseBytes: number): RequestObservation {
  return { verb: l.verb, dryRun: l.dryRun, group: l.group, version: l.version, resource: l.resource, subresource: l.subresource, scope: l.scope, component: l.component, code, durationSeconds, responseBytes };
}

export function metricsFilter(observer: RequestObserver, served: (group: string, version: string, resource: string) => boolean): Filter {
  return filter({
    enter(s) {
      const labels = s.longRunning ? shared(labelsOf(s, served)) : labelsOf(s, served);
      s.metricLabels = labels;
      if (s.longRunning) observer.longRunning(labels, 1);
    },
    // Once the response is over (the chain's one 'close' listener); only for requests that entered.
    ended(s) {
      const res = s.reply.raw;
      const labels = s.metricLabels!;
      if (s.longRunning) observer.longRunning(labels, -1);
      // the reply's own header map (it hands headers to writeHead, where the response does not keep them).
      const bytes = Number(s.reply.getHeader('content-length') ?? res.getHeader('content-length') ?? 0);
      observer.observe(observation(labels, res.statusCode, (performance.now() - s.receivedAt) / 1000, Number.isFinite(bytes) ? bytes : 0));
    },
  });
}
