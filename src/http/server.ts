// The HTTPS server: Node's HTTP/2 secure server (HTTP/1.1 allowed on the same port) carries
// connections; each request becomes an HttpRequest and an HttpReply (exchange.ts), its body is
// read into one Buffer (request-body.ts), and the filter chain (filters/chain.ts: request info,
// authentication, impersonation, audit, in-flight limit, authorization, metrics, timeout) and
// the dispatcher do the rest. Every failure is rendered once, by render-error.ts, as a Status.

import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createSecureServer, type Http2SecureServer, type Http2ServerRequest, type Http2Session, type ServerHttp2Session } from 'node:http2';
import type { SecureContextOptions, SecureVersion, TLSSocket } from 'node:tls';
import { emptyRequestInfo, type Logger, type RequestInfo } from '../apimachinery/request-context.js';
import { isStatusError, requestHeaderFieldsTooLarge, serviceUnavailable } from '../apimachinery/status-error.js';
import type { Authenticator } from '../auth/authenticator.js';
import type { Authorizer } from '../auth/authorizer.js';
import type { AuditLog } from './filters/audit-log.js';
import { guardConnections, HEADERS_TIMEOUT_MS } from './transport/connection-guard.js';
import { dispatcher } from './endpoints/dispatch.js';
import type { ResourceEndpoints } from './endpoints/endpoint.js';
import { buildChain } from './filters/chain.js';
import { Cancellation, type RequestState } from './filters/filter.js';
import type { InflightLimits } from './filters/max-in-flight.js';
import { noopRequestObserver, type RequestObserver } from '../apimachinery/request-observer.js';
import type { HealthChecks } from './routes/health.js';
import { NonResourceRoutes, type VersionInfo } from './routes/non-resource.js';
import { selfReviewDiscovery } from './endpoints/self-review.js';
import { observedBody, writeStatus } from './endpoints/response-writer.js';
import { renderError } from './endpoints/render-error.js';
import { responseClosed } from './transport/response-closed.js';
import { RequestLogger } from './filters/request-logger.js';
import { EventLoopLag } from './transport/event-loop-lag.js';
import { HttpReply, HttpRequest } from './transport/exchange.js';
import { HandlerLimit, START_NEXT_TURN, START_NOW } from './transport/handler-limit.js';
import { closeLingering } from './transport/lingering-close.js';
import { answerMalformedRequests } from './transport/malformed-requests.js';
import { hasBody, readBody } from './transport/request-body.js';

export const DEFAULT_MAX_BODY_BYTES = 3 * 1024 * 1024;
/** Socket write buffer threshold: above the largest object the server writes. */
const SOCKET_HIGH_WATER_MARK = 8 * 1024 * 1024;
/** How long a stopping server waits for its watches' last bytes to leave. */
const STREAM_END_GRACE_MS = 5000;
const HTTP2_MAX_STREAMS = 1000;
/**
 * Requests one HTTP/2 connection may have in the request path at once (handler-limit.ts): its
 * open streams, and as many again whose client reset them while they were being served.
 */
const HTTP2_MAX_HANDLERS = 2 * HTTP2_MAX_STREAMS;
/** Requests one HTTP/2 connection starts at once per turn of the event loop; the rest wait a turn (handler-limit.ts). */
const HTTP2_STARTS_PER_TURN = 100;
/** Open connections at most; past it new ones are closed at once (file descriptors are finite). */
const MAX_CONNECTIONS = 10_000;
/** Request headers at most: kube-apiserver's MaxHeaderBytes (Go's DefaultMaxHeaderBytes, 1 MiB). */
export const MAX_HEADER_BYTES = 1 << 20;
/** Go reads the request head up to MaxHeaderBytes + 4096 before answering 431 (HTTP/1.1). */
const HTTP1_MAX_HEAD_BYTES = MAX_HEADER_BYTES + 4096;
/**
 * HTTP/2: Go advertises (and enforces) MaxHeaderBytes plus 32 bytes of overhead for ten typical
 * fields, counting each field as name + value + 32 (RFC 7541's size), and answers a longer list
 * with a 431 on its stream. Node refuses a list past its own limit with a stream reset instead, so
 * Node's limit is set higher and the 431 is answered here (`headerListTooLarge`) between the two.
 */
const HTTP2_HEADER_LIST_BYTES = MAX_HEADER_BYTES + 10 * 32;
const HTTP2_NODE_HEADER_LIST_BYTES = 2 * MAX_HEADER_BYTES;
/** Go's HTTP/2 server reads frames up to 1 MiB (MaxReadFrameSize): a client may send a large header block in few frames. */
const HTTP2_MAX_FRAME_BYTES = 1 << 20;

export interface ApiServerOptions {
  resources: readonly ResourceEndpoints[];
  authenticator: Authenticator;
  authorizer: Authorizer;
  /**
   * clientCAPem: verify client certificates against it (they are requested, never required).
   * minVersion and ciphers: --tls-min-version and --tls-cipher-suites (Node's defaults otherwise).
   */
  tls: ServingMaterial & { minVersion?: SecureVersion; ciphers?: string };
  logger: Logger;
  version: VersionInfo;
  maxBodyBytes?: number;
  /** The /healthz, /livez and /readyz checks. */
  health?: HealthChecks;
  onHealthFailure?: (name: string, reason: string) => void;
  /** The /metrics exposition; absent: /metrics is 404. */
  metrics?: () => Promise<{ contentType: string; body: string }>;
  /** Where audit events go, when auditing is on. */
  audit?: AuditLog;
  /** --max-requests-inflight / --max-mutating-requests-inflight (0: no limit). Default 400 / 200. */
  limits?: InflightLimits;
  /** --max-event-loop-delay in ms: past it, heavy users' requests are shed with 429 (0: never). Default 100 ms. */
  maxEventLoopDelayMs?: number;
  /** --request-timeout in ms (0: none). Default 60 s. */
  requestTimeoutMs?: number;
  /** Where request metrics go (default: nowhere). */
  observer?: RequestObserver;
  /** Go's IdleTimeout (connection-guard.ts; default 90 s, as kube's); tests shorten it. */
  idleTimeoutMs?: number;
  /** Go's ReadHeaderTimeout, which bounds the TLS handshake too (connection-guard.ts; default 32 s, as kube's). */
  readHeaderTimeoutMs?: number;
}

export const DEFAULT_LIMITS: InflightLimits = { maxRequestsInflight: 400, maxMutatingRequestsInflight: 200 };
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_EVENT_LOOP_DELAY_MS = 100;

/** What the server presents and verifies with; replaced whole when its files change. */
export interface ServingMaterial {
  certPem: string;
  keyPem: string;
  clientCAPem?: string;
}

export interface ApiServer {
  listen(host: string, port: number): Promise<{ port: number }>;
  /**
   * New connections are served with this certificate and verified against this client CA from
   * now on; open connections (and their watches) keep theirs. Throws (changing nothing) when
   * Node cannot make a TLS context of it.
   */
  setServingMaterial(material: ServingMaterial): void;
  /** Stops accepting connections and waits for in-flight requests. */
  close(): Promise<void>;
}

/**
 * A request's query and request info until the request-info filter, the chain's first, sets its
 * own: shared placeholders (never written), not two objects made per request only to be replaced.
 */
const NO_QUERY = new URLSearchParams();
const NO_REQUEST_INFO: RequestInfo = Object.freeze(emptyRequestInfo());

export function createApiServer(opts: ApiServerOptions): ApiServer {
  const maxBody = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  /** The secure-context options: Node's setSecureContext replaces every one of them, so all are given each time. */
  const contextOptions = (m: ServingMaterial): SecureContextOptions => ({
    cert: m.certPem,
    key: m.keyPem,
    ...(m.clientCAPem ? { ca: m.clientCAPem } : {}),
    ...(opts.tls.minVersion ? { minVersion: opts.tls.minVersion } : {}),
    ...(opts.tls.ciphers ? { ciphers: opts.tls.ciphers } : {}),
  });

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
  /** Set once the server stops accepting: requests still arriving on open connections get 503. */
  let stopping = false;
  const served = new Set(opts.resources.map((r) => `${r.definition.group}/${r.definition.version}/${r.definition.plural}`));

  const maxEventLoopDelayMs = opts.maxEventLoopDelayMs ?? DEFAULT_MAX_EVENT_LOOP_DELAY_MS;
  const lag = maxEventLoopDelayMs > 0 ? new EventLoopLag() : undefined;
  const chain = buildChain(
    {
      authenticator: opts.authenticator,
      authorizer: opts.authorizer,
      clientCertificates: Boolean(opts.tls.clientCAPem),
      audit: opts.audit,
      limits: opts.limits ?? DEFAULT_LIMITS,
      maxEventLoopDelayMs,
      eventLoopLag: () => lag?.current() ?? 0,
      requestTimeoutMs: opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      observer: opts.observer ?? noopRequestObserver,
      served: (group, version, resource) => served.has(`${group}/${version}/${resource}`),
      logger: opts.logger,
    },
    dispatcher({ resources: opts.resources, nonResource, authorizer: opts.authorizer, serverClosing: closing.signal }),
  );

  /** Open watch responses (see close()). */
  const streams = new Set<ServerResponse>();
  const forgetStream = function (this: ServerResponse): void {
    streams.delete(this);
  };

  /** HTTP/2 requests in the request path per connection (handler-limit.ts). */
  const handlers = new HandlerLimit(HTTP2_MAX_HANDLERS, HTTP2_STARTS_PER_TURN);

  /**
   * One request down the request path, its body (if any) already read. Never rejects. `session`:
   * the HTTP/2 connection it counts against (handler-limit.ts) until it is over.
   */
  async function handle(req: HttpRequest, reply: HttpReply, session: Http2Session | undefined): Promise<void> {
    const raw = req.raw;
    const res = reply.raw;
    try {
      // Go's HTTP/2 server answers a header list past its limit before any handler sees it (so it
      // is neither audited nor counted, as an HTTP/1.1 head too large is not).
      if (raw.httpVersionMajor === 2 && headerListBytes(raw.rawHeaders) > HTTP2_HEADER_LIST_BYTES) {
        return void writeStatus(reply, requestHeaderFieldsTooLarge().status, { pretty: false });
      }
      const requestId = randomUUID();
      const state: RequestState = {
        req,
        reply,
        requestId,
        // Counted from the request's arrival, body upload included.
        receivedAt: reply.receivedAt,
        path: '',
        query: NO_QUERY,
        pretty: false,
        info: NO_REQUEST_INFO,
        logger: new RequestLogger(opts.logger, requestId),
        body: undefined,
        isPublic: false,
        longRunning: false,
        cancellation: new Cancellation(res),
      };
      try {
        await chain(state);
      } catch (err) {
        renderError(req, reply, err, state.logger);
      }
      // A watch outlives its handler: remembered so that a graceful stop lets its last bytes out.
      if (state.longRunning && !responseClosed(res)) {
        streams.add(res);
        // 'on': a response closes once, and a 'once' wrapper would be kept for the watch's life.
        res.on('close', forgetStream);
      }
      // A path that ended without answering (its client gone, or nothing to say) still ends the
      // response, with an empty 200, while anyone is there to read it.
      if (!reply.sent && !res.headersSent && !raw.aborted && !raw.socket?.destroyed) reply.send();
    } catch (err) {
      failed(reply, err);
    } finally {
      if (session) handlers.over(session);
    }
  }

  /**
   * The request path's last resort: an error escaped the renderer (a header Node refuses, ...).
   * A response whose client has gone is no server error (a write to it fails): quiet, as in Go.
   */
  const failed = (reply: HttpReply, err: unknown): void => {
    if (responseClosed(reply.raw)) return void opts.logger.debug({ err }, 'the client went away while its request was answered');
    opts.logger.error({ err }, 'internal error while answering a request');
    if (!reply.raw.headersSent) reply.raw.destroy();
  };

  const onRequest = (raw: IncomingMessage, res: ServerResponse): void => {
    const req = new HttpRequest(raw);
    const reply = new HttpReply(res, req, performance.now(), observedBody);
    if (stopping) return answerStopping(req, reply);
    if (raw.httpVersionMajor !== 2) return serve(req, reply, undefined);
    const session = (raw as unknown as Http2ServerRequest).stream.session;
    // Its connection already ended (a flood the connection guard cut): nothing to serve.
    if (!session) return;
    const start = handlers.start(session);
    if (start === START_NOW) return serve(req, reply, session);
    // Past the connection's share of this turn: in the next, unless its client reset it meanwhile.
    if (start === START_NEXT_TURN) setImmediate(serveLater, req, reply, session);
    // REFUSED: the connection is ended (GOAWAY), this stream with it.
  };

  const serveLater = (req: HttpRequest, reply: HttpReply, session: Http2Session): void => {
    if (responseClosed(reply.raw)) handlers.over(session);
    else serve(req, reply, session);
  };

  /** A request's body is read (if it has one), then it goes down the request path. */
  const serve = (req: HttpRequest, reply: HttpReply, session: Http2Session | undefined): void => {
    const raw = req.raw;
    // kube authenticates and authorizes first and has the handler refuse a media type it cannot
    // parse (415 in its words); the handlers read only the part before `;`, so a malformed header
    // (`;;;`, `json`) is swapped for a well-formed one no handler takes, and fails the same way.
    const ct = raw.headers['content-type'];
    if (ct !== undefined && ct !== '' && !wellFormedMediaType(ct)) raw.headers['content-type'] = UNPARSEABLE_MEDIA_TYPE;
    if (!hasBody(raw)) return void handle(req, reply, session);
    readBody(raw, maxBody, (err, body) => {
      // A body refused (too large, short, its client gone) is answered before the request path
      // runs: neither authenticated nor audited, as Go's server refuses it before kube's handlers.
      if (!err) {
        req.body = body;
        return void handle(req, reply, session);
      }
      try {
        // A body refused as too large may still be arriving: the HTTP/1.1 connection closes
        // only once its client has read the 413 (lingering-close.ts).
        if (raw.httpVersionMajor === 1 && isStatusError(err) && err.status.code === 413) closeLingering(raw.socket);
        renderError(req, reply, err, opts.logger);
      } catch (e) {
        failed(reply, e);
      } finally {
        if (session) handlers.over(session);
      }
    });
  };

  // HTTP/2 (what kubectl and client-go negotiate: many watches share one connection) and
  // HTTP/1.1 on the same port. Handlers see Node's compatibility request/response objects, which
  // share the HTTP/1.1 API, so the rest of http/ is typed against it.
  const server: Http2SecureServer = createSecureServer(
    {
      allowHTTP1: true,
      // Streams one HTTP/2 connection may carry at once: room for an informer-heavy client. Header
      // lists and frames as large as Go's server takes (see MAX_HEADER_BYTES); Node's count of
      // header fields (128 by default) is no limit of Go's: the size alone bounds them.
      settings: { maxConcurrentStreams: HTTP2_MAX_STREAMS, maxHeaderListSize: HTTP2_NODE_HEADER_LIST_BYTES, maxFrameSize: HTTP2_MAX_FRAME_BYTES },
      maxHeaderListPairs: Math.ceil(HTTP2_NODE_HEADER_LIST_BYTES / 32),
      // A TLS handshake not done by then is dropped (the first headers are due as soon).
      handshakeTimeout: opts.readHeaderTimeoutMs ?? HEADERS_TIMEOUT_MS,
      ...contextOptions(opts.tls),
      ...(opts.tls.clientCAPem ? { requestCert: true, rejectUnauthorized: false } : {}),
    },
    onRequest as never,
  );
  // No socket inactivity timeout, nor an HTTP/2 session timeout: a session timeout counts any
  // silence, so it would end a connection whose only stream is a quiet watch. Go's HTTP/2
  // IdleTimeout counts only time without an open stream; connection-guard.ts applies that rule.
  server.setTimeout(0);
  const guard = guardConnections(server, { bodyTimeoutMs: opts.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, idleTimeoutMs: opts.idleTimeoutMs, headersTimeoutMs: opts.readHeaderTimeoutMs });
  // Malformed HTTP/1.1 is answered with a Status, after the requests before it (malformed-requests.ts).
  answerMalformedRequests(server, guard);
  // Node 20 pauses a keep-alive connection's HTTP parser when the next request arrives while
  // the previous response is still draining, and a TLS socket may then hand the parser more
  // bytes: the request fails with HPE_PAUSED and the client sees a reset. A response smaller
  // than the socket's high-water mark never leaves it draining, so raise the mark well above
  // object-sized responses (a threshold, not an allocation).
  server.on('secureConnection', (socket: TLSSocket) => {
    // The HTTP/2 server does not turn Nagle's algorithm off as Node's HTTP/1.1 server does;
    // without this, small writes (watch events) wait for the peer's delayed ACK (~40 ms).
    socket.setNoDelay(true);
    const state = (socket as unknown as { _writableState?: { highWaterMark: number } })._writableState;
    if (state && state.highWaterMark < SOCKET_HIGH_WATER_MARK) state.highWaterMark = SOCKET_HIGH_WATER_MARK;
  });
  // HTTP/1.1 connections read the server's own limit (Node's default is 16 KiB; no constructor
  // option reaches the HTTP/1.1 side of an HTTP/2 server). The header deadline still applies.
  (server as unknown as { maxHeaderSize: number }).maxHeaderSize = HTTP1_MAX_HEAD_BYTES;
  server.maxConnections = MAX_CONNECTIONS;
  const sessions = new Set<ServerHttp2Session>();
  server.on('session', (session: ServerHttp2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });

  return {
    listen(host, port) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          const address = server.address();
          resolve({ port: typeof address === 'object' && address ? address.port : port });
        });
      });
    },
    setServingMaterial(material) {
      server.setSecureContext(contextOptions(material));
    },
    async close() {
      closing.abort();
      lag?.stop();
      // Every watch ends its response on the abort; wait (briefly) for the ends to reach the
      // clients before closing connections, or Node's close would cut a stream mid-chunk.
      await Promise.race([
        Promise.all([...streams].map((r) => (responseClosed(r) ? undefined : new Promise<void>((resolve) => r.once('close', resolve))))),
        new Promise<void>((resolve) => setTimeout(resolve, STREAM_END_GRACE_MS).unref()),
      ]);
      // HTTP/2 connections stay open between streams: ask each to finish its streams and go.
      for (const session of sessions) session.close();
      stopping = true;
      // No new connections; idle HTTP/1.1 ones are closed now, the others once their requests
      // are answered (a request arriving on one meanwhile gets 503 and Connection: close), and
      // those still in their TLS handshake at once.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      guard.shutdown();
      await closed;
    },
  };
}

/** A request that arrives while the server stops: 503, and an HTTP/1.1 connection is not kept. */
function answerStopping(req: HttpRequest, reply: HttpReply): void {
  if (req.raw.httpVersionMajor === 1) reply.header('Connection', 'close');
  writeStatus(reply, serviceUnavailable('the server is shutting down').status, { pretty: false });
}

/** A header list's size as HTTP/2 counts it (RFC 7541 4.1): name + value + 32 per field. */
function headerListBytes(raw: readonly string[]): number {
  let n = 0;
  for (const field of raw) n += field.length;
  return n + (raw.length / 2) * 32;
}

const UNPARSEABLE_MEDIA_TYPE = 'application/x-unparseable-media-type';
const MEDIA_TOKEN = /^[\w!#$%&'*+.^`|~-]+$/;

/** `type/subtype` with token characters (RFC 9110's media type; parameters are the handlers' concern). */
function wellFormedMediaType(value: string): boolean {
  const semi = value.indexOf(';');
  const media = (semi < 0 ? value : value.slice(0, semi)).trim();
  const slash = media.indexOf('/');
  return slash > 0 && MEDIA_TOKEN.test(media.slice(0, slash)) && MEDIA_TOKEN.test(media.slice(slash + 1));
}
