// The HTTPS server: Fastify carries connections and bodies; our pipeline does the rest, in
// DESIGN.md's order: request id · authentication (401) · impersonation · authorization (403)
// · body limit (413) · the verb's handler. Every failure is rendered once, as a Status.

import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { ServerHttp2Session } from 'node:http2';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Logger, RequestContext, RequestInfo, UserInfo } from '../apimachinery/request-context.js';
import { internal, isStatusError, pathNotFound, requestEntityTooLarge, unauthorized, type Status, type StatusError } from '../apimachinery/status-error.js';
import type { Authenticator } from '../auth/authenticator.js';
import type { AuthorizationAttributes, Authorizer } from '../auth/authorizer.js';
import { forbiddenError } from '../auth/forbidden-error.js';
import { resolveImpersonation, wantsImpersonation } from '../auth/impersonation.js';
import type { ResourceEndpoints } from './endpoint.js';
import { NonResourceRoutes, PUBLIC_PATHS, type VersionInfo } from './non-resource.js';
import type { HealthChecks } from './health.js';
import { observeRequest } from './observe-request.js';
import type { RequestObserver } from '../apimachinery/request-observer.js';
import { isPretty } from './query-options.js';
import { resolveRequestInfo } from './request-info.js';
import { AuditLog, RequestAudit } from './audit-log.js';
import { routeResource } from './resource-router.js';
import { handleSelfReview, isSelfReview, selfReviewDiscovery } from './self-review.js';
import { writeStatus } from './response-writer.js';

export const DEFAULT_MAX_BODY_BYTES = 3 * 1024 * 1024;
/** Socket write buffer threshold: above the largest object the server writes. */
const SOCKET_HIGH_WATER_MARK = 8 * 1024 * 1024;
/** An HTTP/2 connection with no stream for this long is closed (Fastify's default, as for HTTP/1.1 keep-alive). */
const HTTP2_SESSION_IDLE_MS = 72_000;
const HTTP2_MAX_STREAMS = 1000;

export interface ApiServerOptions {
  resources: readonly ResourceEndpoints[];
  authenticator: Authenticator;
  authorizer: Authorizer;
  /** clientCAPem: verify client certificates against it (they are requested, never required). */
  tls: { certPem: string; keyPem: string; clientCAPem?: string };
  logger: Logger;
  version: VersionInfo;
  maxBodyBytes?: number;
  /** The /healthz, /livez and /readyz checks (ops). */
  health?: HealthChecks;
  onHealthFailure?: (name: string, reason: string) => void;
  /** The /metrics exposition (ops); absent: /metrics is 404. */
  metrics?: () => Promise<{ contentType: string; body: string }>;
  /** Hears every request (ops: metrics); the metrics filter's recorder. */
  requestObserver?: RequestObserver;
  /** Where audit events go, when auditing is on. */
  audit?: AuditLog;
}

export interface ApiServer {
  listen(host: string, port: number): Promise<{ port: number }>;
  /** Stops accepting connections and waits for in-flight requests. */
  close(): Promise<void>;
}

export function createApiServer(opts: ApiServerOptions): ApiServer {
  const maxBody = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  // HTTP/2 (what kubectl and client-go negotiate: many watches share one connection) and
  // HTTP/1.1 on the same port. Handlers see Node's compatibility request/response objects, which
  // share the HTTP/1.1 API, so the rest of http/ is typed against it.
  const app = Fastify({
    http2: true,
    https: {
      allowHTTP1: true,
      // Streams one HTTP/2 connection may carry at once: room for an informer-heavy client.
      settings: { maxConcurrentStreams: HTTP2_MAX_STREAMS },
      cert: opts.tls.certPem,
      key: opts.tls.keyPem,
      ...(opts.tls.clientCAPem ? { ca: opts.tls.clientCAPem, requestCert: true, rejectUnauthorized: false } : {}),
    },
    http2SessionTimeout: HTTP2_SESSION_IDLE_MS,
    logger: false,
    bodyLimit: maxBody,
    routerOptions: { maxParamLength: 4096 },
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // Malformed HTTP never reaches a route; answer it as a Status too, and drop the connection.
    clientErrorHandler: (_err: Error, socket: Socket) => {
      const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'malformed HTTP request', reason: 'BadRequest', code: 400 });
      if (socket.writable) socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
      else socket.destroy();
    },
  }) as unknown as FastifyInstance;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  const nonResource = new NonResourceRoutes({
    definitions: opts.resources.map((r) => r.definition),
    extraDiscovery: selfReviewDiscovery,
    version: opts.version,
    health: opts.health,
    onHealthFailure: opts.onHealthFailure,
    metrics: opts.metrics,
  });
  const closing = new AbortController();
  // Every open watch listens for shutdown; thousands of watches are normal, not a leak.
  setMaxListeners(0, closing.signal);
  const clusterScopedGroups = new Set(opts.resources.map((r) => r.definition.group));
  const endpoints = new Map(opts.resources.map((r) => [`${r.definition.group}/${r.definition.version}/${r.definition.plural}`, r]));

  const render = (req: FastifyRequest, reply: FastifyReply, err: unknown, logger: Logger): void => {
    const status = toStatus(err, logger, maxBody);
    // The rest of a refused body may still be in flight: do not reuse this connection.
    if (status.code === 413 && req.raw.httpVersionMajor === 1) reply.header('Connection', 'close');
    writeStatus(reply, status, { pretty: false });
  };

  const audits = new WeakMap<FastifyRequest, RequestAudit>();
  const handler = async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const requestId = randomUUID();
    reply.header('Audit-Id', requestId);
    const url = new URL(req.url, 'https://localhost');
    const path = url.pathname;
    const query = url.searchParams;
    const pretty = isPretty(query);
    const logger = opts.logger.child({ requestId });
    const info = resolveRequestInfo(req.method, path, query);
    if (opts.requestObserver) observeRequest(opts.requestObserver, req, reply, info, query);
    const body = Buffer.isBuffer(req.body) ? req.body : undefined;
    const audit = opts.audit ? new RequestAudit(opts.audit, requestId, req, new Date()) : undefined;
    if (audit) {
      audits.set(req, audit);
      reply.raw.once('finish', () => audit.complete(reply.raw.statusCode));
    }
    try {
      if (PUBLIC_PATHS.has(path)) {
        audit?.identify(undefined, undefined, info, undefined);
        return nonResource.serve(req, reply, path, query, pretty);
      }
      const user = await authenticateAndImpersonate(opts, req, info, audit);
      await authorize(opts.authorizer, user, info, audit);
      if (!info.isResourceRequest) return nonResource.serve(req, reply, path, query, pretty);
      const ctx = requestContext(requestId, user, info, reply, logger);
      if (isSelfReview(info.apiGroup, info.apiVersion, info.resource) && info.verb === 'create' && !info.name) {
        return await handleSelfReview({ review: info.resource, ctx, reply, body, contentType: req.headers['content-type'] ?? '', authorizer: opts.authorizer, clusterScopedGroups });
      }
      const endpoint = endpoints.get(`${info.apiGroup}/${info.apiVersion}/${info.resource}`);
      if (!endpoint || info.namespace) throw pathNotFound();
      if (info.verb === 'watch') audit?.responseStarted(200);
      await routeResource({ req, reply, ctx, endpoint, info, query, pretty, body, serverClosing: closing.signal });
    } catch (err) {
      render(req, reply, err, logger);
    }
  };

  app.route({ method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], url: '/*', handler });
  app.route({ method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], url: '/', handler });
  app.addHook('onSend', async (req, _reply, payload) => {
    const audit = audits.get(req);
    if (audit?.wantsResponseBody && Buffer.isBuffer(payload)) audit.responseBodyWas(payload);
    return payload;
  });
  // Node 20 pauses a keep-alive connection's HTTP parser when the next request arrives while
  // the previous response is still draining, and a TLS socket may then hand the parser more
  // bytes: the request fails with HPE_PAUSED and the client sees a reset. A response smaller
  // than the socket's high-water mark never leaves it draining, so raise the mark well above
  // object-sized responses (a threshold, not an allocation).
  app.server.on('secureConnection', (socket: TLSSocket) => {
    // The HTTP/2 server does not turn Nagle's algorithm off as Node's HTTP/1.1 server does;
    // without this, small writes (watch events) wait for the peer's delayed ACK (~40 ms).
    socket.setNoDelay(true);
    const state = (socket as unknown as { _writableState?: { highWaterMark: number } })._writableState;
    if (state && state.highWaterMark < SOCKET_HIGH_WATER_MARK) state.highWaterMark = SOCKET_HIGH_WATER_MARK;
  });
  const sessions = new Set<ServerHttp2Session>();
  app.server.on('session', (session: ServerHttp2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  app.setNotFoundHandler((req, reply) => render(req, reply, pathNotFound(), opts.logger));
  app.setErrorHandler((err, req, reply) => render(req, reply, err, opts.logger));

  return {
    async listen(host, port) {
      await app.listen({ host, port });
      const address = app.server.address();
      return { port: typeof address === 'object' && address ? address.port : port };
    },
    async close() {
      closing.abort();
      // HTTP/2 connections stay open between streams: ask each to finish its streams and go.
      for (const session of sessions) session.close();
      await app.close();
    },
  };
}

/** Authentication, then impersonation; the audit trail learns both identities either way. */
async function authenticateAndImpersonate(opts: ApiServerOptions, req: FastifyRequest, info: RequestInfo, audit: RequestAudit | undefined): Promise<UserInfo> {
  const body = Buffer.isBuffer(req.body) ? req.body : undefined;
  let user: UserInfo | undefined;
  let impersonated: UserInfo | undefined;
  try {
    user = await authenticate(opts, req);
    if (wantsImpersonation(req.headers)) impersonated = await resolveImpersonation(user, distinctHeaders(req), opts.authorizer);
    return impersonated ?? user;
  } finally {
    audit?.identify(user, impersonated, info, body);
  }
}

async function authenticate(opts: ApiServerOptions, req: FastifyRequest): Promise<UserInfo> {
  const socket = req.raw.socket as TLSSocket;
  const peer = opts.tls.clientCAPem && typeof socket.getPeerCertificate === 'function' ? socket.getPeerCertificate() : undefined;
  const clientCertificate = peer?.raw ? { der: peer.raw, verified: socket.authorized, error: socket.authorizationError?.message } : undefined;
  const result = await opts.authenticator.authenticate({ headers: req.headers, clientCertificate });
  // The credential never travels further than this point.
  delete req.headers.authorization;
  if (result.kind === 'error') opts.logger.debug({ reason: result.message }, 'authentication failed');
  if (result.kind !== 'user') throw unauthorized();
  return result.user;
}

export function authorizationAttributes(user: UserInfo, info: RequestInfo): AuthorizationAttributes {
  return {
    user,
    verb: info.verb,
    isResourceRequest: info.isResourceRequest,
    path: info.path,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    namespace: info.namespace,
    name: info.name,
  };
}

async function authorize(authorizer: Authorizer, user: UserInfo, info: RequestInfo, audit: RequestAudit | undefined): Promise<void> {
  const attrs = authorizationAttributes(user, info);
  const r = await authorizer.authorize(attrs);
  audit?.authorized(r);
  if (r.decision !== 'allow') throw forbiddenError(attrs, r.reason);
}

/**
 * The request's context. Its signal aborts when the response is finished or the connection goes
 * away (the request's own 'close' fires too early); it is made only when asked for, because most
 * requests never need it and an AbortController per request is measurable on the hot path.
 */
function requestContext(requestId: string, user: UserInfo, info: RequestInfo, reply: FastifyReply, logger: Logger): RequestContext {
  let signal: AbortSignal | undefined;
  return {
    requestId,
    user,
    requestInfo: info,
    get signal(): AbortSignal {
      if (!signal) {
        const controller = new AbortController();
        if (reply.raw.closed) controller.abort();
        else reply.raw.once('close', () => controller.abort());
        signal = controller.signal;
      }
      return signal;
    },
    logger,
    warnings: [],
    dryRun: false,
  };
}

interface FrameworkError {
  code?: string;
  statusCode?: number;
  message?: string;
}

/** Any error to a Status; unexpected ones are logged once, with their stack, and never sent. */
function toStatus(err: unknown, logger: Logger, maxBody: number): Status {
  if (isStatusError(err)) return (err as StatusError).status;
  const fe = err as FrameworkError;
  // The client went away mid-request: nothing to answer and nothing wrong with the server.
  if (fe?.code === 'ECONNRESET' || fe?.code === 'ECONNABORTED' || fe?.message === 'aborted') {
    logger.debug({ code: fe.code }, 'client aborted the request');
    return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the client aborted the request', reason: 'BadRequest', code: 400 };
  }
  if (fe?.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || fe?.statusCode === 413) return requestEntityTooLarge(`Request entity too large: limit is ${maxBody}`).status;
  if (fe?.statusCode && fe.statusCode >= 400 && fe.statusCode < 500 && typeof fe.code === 'string' && fe.code.startsWith('FST_')) {
    return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: fe.message ?? 'bad request', reason: 'BadRequest', code: 400 };
  }
  logger.error({ err }, 'internal error');
  return internal('an unexpected error occurred; see the server log').status;
}

/**
 * Request headers with every occurrence kept apart (each Impersonate-Group header is one group).
 * HTTP/1.1 requests have `headersDistinct`; HTTP/2 ones are rebuilt from their raw headers.
 */
function distinctHeaders(req: FastifyRequest): Record<string, string[]> {
  if (req.raw.headersDistinct) return req.raw.headersDistinct as Record<string, string[]>;
  const out: Record<string, string[]> = {};
  const raw = req.raw.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) (out[raw[i]!.toLowerCase()] ??= []).push(raw[i + 1]!);
  return out;
}
