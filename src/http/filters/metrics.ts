// Filter: metrics. When the response is over, reports the request to the injected
// RequestObserver with kube's label values (verb, group, version, resource, subresource, scope,
// component, code), its duration and response size. Labels for paths this server does not
// serve are blanked, so user input never becomes a label value.

import type { RequestInfo } from '../../apimachinery/request-context.js';
import type { Filter, RequestState } from './filter.js';
import type { ObservedRequest, RequestObserver } from './request-observer.js';

const METHOD_VERBS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'CONNECT']);
const RESOURCE_VERBS: Record<string, string> = {
  get: 'GET',
  list: 'LIST',
  watch: 'WATCH',
  create: 'POST',
  update: 'PUT',
  patch: 'PATCH',
  delete: 'DELETE',
  deletecollection: 'DELETECOLLECTION',
};

export function metricVerb(info: RequestInfo, method: string, contentType: string | undefined): string {
  if (!info.isResourceRequest) return METHOD_VERBS.has(method) ? method : 'other';
  if (info.verb === 'patch' && (contentType ?? '').split(';')[0]!.trim() === 'application/apply-patch+yaml') return 'APPLY';
  return RESOURCE_VERBS[info.verb] ?? 'other';
}

export function metricScope(info: RequestInfo): ObservedRequest['scope'] {
  if (!info.isResourceRequest) return '';
  if (info.name || info.verb === 'create') return 'resource';
  return info.namespace ? 'namespace' : 'cluster';
}

/** `served(group, version, resource)`: whether labels may name it (bounded label values). */
export function describe(s: RequestState, served: (group: string, version: string, resource: string) => boolean, code: number, durationSeconds: number, responseBytes: number): ObservedRequest {
  const i = s.info;
  const known = i.isResourceRequest && served(i.apiGroup, i.apiVersion, i.resource);
  const contentType = s.req.headers['content-type'];
  return {
    verb: metricVerb(i, s.req.method, Array.isArray(contentType) ? contentType[0] : contentType),
    group: known ? i.apiGroup : '',
    version: known ? i.apiVersion : '',
    resource: known ? i.resource : '',
    subresource: known && (i.subresource === '' || i.subresource === 'status') ? i.subresource : '',
    scope: metricScope(i),
    component: 'apiserver',
    code,
    durationSeconds,
    responseBytes,
  };
}

export function metricsFilter(observer: RequestObserver, served: (group: string, version: string, resource: string) => boolean): Filter {
  return async (s, next) => {
    const res = s.reply.raw;
    res.once('close', () => {
      // Fastify's own header map (it hands headers to writeHead, where the response does not keep them).
      const bytes = Number(s.reply.getHeader('content-length') ?? res.getHeader('content-length') ?? 0);
      observer.observe(describe(s, served, res.statusCode, (performance.now() - s.receivedAt) / 1000, Number.isFinite(bytes) ? bytes : 0));
    });
    return next();
  };
}
