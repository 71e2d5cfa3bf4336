// Filter 1, request info: what the request is about (kube's WithRequestInfo). Decodes the path,
// parses the query, resolves the RequestInfo and says whether the request is public (health,
// version) or long-running (a watch). Every answer carries the request's Audit-Id.

import { PUBLIC_PATHS } from '../routes/non-resource.js';
import { isPretty, parseGoQuery } from '../endpoints/query-values.js';
import { decodePath, resolveRequestInfo } from '../endpoints/request-info.js';
import { filter } from './filter.js';

export const requestInfoFilter = filter({
  enter(s) {
    s.reply.header('Audit-Id', s.requestId);
    // The path as sent, not as a WHATWG URL would normalize it: Go (and so kube) keeps `.` and
    // `..` segments, escaped or not, as the names they spell instead of resolving them.
    const url = s.req.url;
    const q = url.indexOf('?');
    s.path = decodePath(q < 0 ? url : url.slice(0, q));
    s.query = parseGoQuery(q < 0 ? '' : url.slice(q + 1));
    s.pretty = isPretty(s.query, s.req.headers['user-agent']);
    s.info = resolveRequestInfo(s.req.method, s.path, s.query);
    s.isPublic = PUBLIC_PATHS.has(s.path);
    s.longRunning = s.info.isResourceRequest && s.info.verb === 'watch';
    s.body = Buffer.isBuffer(s.req.body) ? s.req.body : undefined;
  },
});
