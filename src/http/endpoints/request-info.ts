// kube-apiserver's RequestInfo: what a request is about, from its method, path and query.

import { emptyRequestInfo, type RequestInfo } from '../../apimachinery/request-context.js';
import { badRequest } from '../../apimachinery/status-error.js';
import { queryBool } from './query-values.js';

/**
 * The path as kube-apiserver sees it: every %XX escape decoded (Go's server decodes the whole
 * path before routing, so `%3A` is a `:` in a name and `%2F` is a separator). A malformed
 * escape is a 400, as Go's URL parser refuses it. Bytes that are not UTF-8 decode to U+FFFD.
 */
export function decodePath(raw: string): string {
  if (!raw.includes('%')) return raw;
  const bad = /%(?![0-9a-fA-F]{2})(.{0,2})/s.exec(raw);
  if (bad) throw badRequest(`invalid URL escape ${JSON.stringify(`%${bad[1]}`)}`);
  // A run of escapes is one byte sequence (a multi-byte UTF-8 character spans several).
  return raw.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => Buffer.from(run.replace(/%/g, ''), 'hex').toString('utf8'));
}

const VERB_BY_METHOD: Record<string, string> = { POST: 'create', GET: 'get', HEAD: 'get', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

export function resolveRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const parts = path.split('/').filter((p) => p !== '');
  const info: RequestInfo = { ...emptyRequestInfo(path, method.toLowerCase()), parts };
  // Resource requests: /apis/<group>/<version>/<resource>[/<name>[/<subresource>]] (and /api/<version>/...).
  let rest: string[];
  if (parts[0] === 'apis' && parts.length >= 4) {
    info.apiPrefix = 'apis';
    info.apiGroup = parts[1]!;
    info.apiVersion = parts[2]!;
    rest = parts.slice(3);
  } else if (parts[0] === 'api' && parts.length >= 3) {
    info.apiPrefix = 'api';
    info.apiVersion = parts[1]!;
    rest = parts.slice(2);
  } else {
    return info;
  }
  // The deprecated `/watch/<resource>[/<name>]` form (kube still serves it; Ruby's kubeclient
  // watches with it): a watch whatever the query says.
  let watchPath = false;
  if (rest[0] === 'watch' && rest.length >= 2) {
    watchPath = true;
    rest = rest.slice(1);
  }
  // As kube: `/namespaces/<ns>` names the namespace (and is a request about the namespace
  // itself); a resource after it is that namespace's, unless it is one of a namespace's own
  // subresources (`status`, `finalize`).
  if (rest[0] === 'namespaces' && rest.length >= 2) {
    info.namespace = rest[1]!;
    if (rest.length >= 3 && rest[2] !== 'status' && rest[2] !== 'finalize') rest = rest.slice(2);
  }
  info.isResourceRequest = true;
  info.resource = rest[0]!;
  info.name = rest[1] ?? '';
  info.subresource = rest[2] ?? '';
  info.parts = rest;
  // Any other method (OPTIONS, TRACE, ...) has no verb on a resource path, as in kube: it is
  // authorized as the empty verb, then answered 405.
  let verb = VERB_BY_METHOD[method] ?? '';
  if (watchPath) {
    verb = 'watch';
  } else if (!info.name) {
    if (verb === 'get') verb = queryBool(query, 'watch') ? 'watch' : 'list';
    else if (verb === 'delete') verb = 'deletecollection';
  } else if (verb === 'get' && queryBool(query, 'watch')) {
    verb = 'watch';
  }
  // A list or watch narrowed to one name by field selector is authorized as that name (kube does the same).
  if ((verb === 'list' || verb === 'watch') && !info.name) {
    const m = /(?:^|,)metadata\.name(?:==|=)([^,]*)/.exec(query.get('fieldSelector') ?? '');
    if (m) info.name = m[1]!;
  }
  info.verb = verb;
  return info;
}
