// What a client can hold at the connection level, bounded as Go's server (kube-apiserver's)
// bounds it, for the connections Node's HTTP/2-with-HTTP/1.1 server does not police itself:
// - plain HTTP sent to the HTTPS port gets Go's 400 "Client sent an HTTP request to an HTTPS
//   server." instead of a silent close (the first bytes are looked at before TLS starts);
// - request headers must be complete within HEADERS_TIMEOUT_MS of the connection (TLS handshake
//   included) and, on a kept-alive connection, within IDLE_TIMEOUT_MS + HEADERS_TIMEOUT_MS of
//   the previous response (Go: IdleTimeout then ReadHeaderTimeout); an HTTP/2 connection must
//   open its first stream within HEADERS_TIMEOUT_MS and is closed once it has had no open stream
//   for IDLE_TIMEOUT_MS (Go's HTTP/2 IdleTimeout);
// - new connections' TLS handshakes go through a gate (handshake-gate.ts) so that a storm of
//   them cannot starve the connections already open, once their whole ClientHello is in
//   (client-hello.ts): a socket that sent a byte, or trickles its hello, never holds a place in
//   it; a handshake that fails or is not done by the header deadline is closed, as Go closes it;
// - a stopping server closes the connections still before or in their handshake, and HTTP/1.1
//   ones once idle, with keep-alive ended, giving a new connection 5 s for its first request,
//   as Go does (shutdown());
// - a body must be in within the request timeout, or the request gets the 504 Timeout Status
//   the request timeout gives (the request path only starts once the body is in) and its
//   connection (HTTP/2: its stream) ends: a client sending a byte a second is cut off;
// - timers: one per connection for its header or idle deadline (HTTP/1.1: Http1Connection; HTTP/2:
//   the session's), moved by requests without a new timer each; one per request only while a
//   body is still to come;
// - an HTTP/1.1 CONNECT (which Node hands over as a raw socket) gets a 405 Status.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse, ServerHttp2Session, ServerHttp2Stream } from 'node:http2';
import type { Server, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { ClientHelloReader } from './client-hello.js';
import { HandshakeGate } from './handshake-gate.js';
import { currentTurn, enhanceYourCalm } from './handler-limit.js';
import { Http1Connection, NEW_CONNECTION_GRACE_MS } from './http1-connection.js';
import { hasBody } from './request-body.js';
import { SessionSweep } from './session-sweep.js';

/** kube-apiserver's ReadHeaderTimeout. */
export const HEADERS_TIMEOUT_MS = 32_000;
/**
 * Streams an HTTP/2 client may reset before their answer in one turn of the event loop (a client
 * cancelling its watches as it stops may reset many; a flood resets thousands).
 */
export const RESETS_PER_TURN = 100;
/** kube-apiserver's IdleTimeout. */
export const IDLE_TIMEOUT_MS = 90_000;

export interface GuardOptions {
  headersTimeoutMs?: number;
  idleTimeoutMs?: number;
  /** How long a request body may take to arrive (0: no limit). */
  bodyTimeoutMs: number;
  /** TLS handshakes started per event-loop turn (handshake-gate.ts). */
  handshakesPerTurn?: number;
}

/** The TCP socket a server-side TLS socket wraps (Node keeps it as `_parent`). */
const rawSocketOf = (socket: TLSSocket): Socket => ((socket as unknown as { _parent?: Socket })._parent ?? socket);

const HTTP_PLAINTEXT = 'HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n';
/** Go's test: the first five bytes of a TLS record header that are really an HTTP request. */
const HTTP_STARTS = new Set(['GET /', 'HEAD ', 'POST ', 'PUT /', 'OPTIO']);
const TLS_HANDSHAKE = 0x16;

const statusBody = (code: number, reason: string, message: string): string =>
  JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });

export interface ConnectionGuard {
  /**
   * Runs `then` once the HTTP/1.1 connection's responses under way are over (at once if there
   * are none, or it is no such connection): what to write after them (a malformed request's 400).
   */
  afterResponses(socket: Socket, then: () => void): void;
  /**
   * The server is stopping (after its listener closed): as Go's Shutdown, connections still
   * before or in their TLS handshake are closed once NEW_CONNECTION_GRACE_MS old (at once if they
   * are), HTTP/1.1 connections stop being kept alive and are closed once idle (a new one, that
   * has served no request, once it is that old: http1-connection.ts), and HTTP/2 connections
   * whose handshake ends from now on get GOAWAY at once (server.ts sends it to the others).
   */
  shutdown(): void;
}

export function guardConnections(server: Server, o: GuardOptions): ConnectionGuard {
  const headersMs = o.headersTimeoutMs ?? HEADERS_TIMEOUT_MS;
  const idleMs = o.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
  // Before TLS, a connection has one plain timer (its first bytes are due; one per connection).
  const deadlines = new WeakMap<object, NodeJS.Timeout>();
  const arm = (socket: Socket, ms: number): void => {
    clearTimeout(deadlines.get(socket));
    const t = setTimeout(() => socket.destroy(), ms);
    t.unref();
    deadlines.set(socket, t);
  };
  const disarm = (socket: Socket): void => {
    clearTimeout(deadlines.get(socket));
    deadlines.delete(socket);
  };
  /** HTTP/1.1 connections (their header deadlines, which each request and response moves), by TLS socket. */
  const http1 = new Map<Socket, Http1Connection>();

  // Look at the first bytes before TLS does, until the whole ClientHello is in (client-hello.ts):
  // TLS's own listeners run only then, through the handshake gate.
  const gate = new HandshakeGate(o.handshakesPerTurn);
  const tlsListeners = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  /** Connections accepted whose handshake is not done (raw sockets), with when they were accepted. */
  const handshaking = new Map<Socket, number>();
  /** When each connection was accepted, kept past its handshake for a stopping server (NEW_CONNECTION_GRACE_MS). */
  const acceptedAt = (socket: Socket): number => handshaking.get(socket) ?? 0;
  const handshakeOver = (socket: Socket): void => {
    disarm(socket);
    handshaking.delete(socket);
  };
  /** Set once the server stops (shutdown()). */
  let stopping = false;
  server.on('connection', (socket: Socket) => {
    handshaking.set(socket, performance.now());
    const hello = new ClientHelloReader();
    const noError = (): void => undefined;
    socket.on('error', noError);
    // The connection's deadline: its handshake must be done by then (its headers are due as soon).
    arm(socket, headersMs);
    const onData = (chunk: Buffer): void => {
      if (!hello.push(chunk)) return;
      socket.off('data', onData);
      socket.pause();
      const seen = hello.bytes();
      if (seen[0] !== TLS_HANDSHAKE && HTTP_STARTS.has(seen.subarray(0, 5).toString('latin1'))) {
        handshakeOver(socket);
        socket.end(HTTP_PLAINTEXT);
        return;
      }
      socket.unshift(seen);
      // TLS takes over the socket and reads what was put back (tls wraps buffered data) when the
      // gate gives it its turn; until then it stays paused. The deadline keeps running through
      // the handshake: a connection is closed if it is not secure in time.
      gate.admit(socket, () => {
        socket.off('error', noError);
        for (const listener of tlsListeners) listener.call(server, socket);
      });
    };
    socket.on('data', onData);
    socket.once('close', () => handshakeOver(socket));
  });
  // Go closes a connection whose handshake failed (or timed out). Node hands the failure to the
  // server's 'clientError' listener, which is for HTTP/1.1 parse errors: without this the socket
  // got an HTTP answer written into it and was never closed.
  server.prependListener('tlsClientError', (_err: Error, socket: TLSSocket) => socket.destroy());

  server.on('secureConnection', (socket: TLSSocket) => {
    const raw = rawSocketOf(socket);
    const accepted = acceptedAt(raw);
    handshakeOver(raw);
    // The handshake is done: the first request's headers are due.
    if (socket.alpnProtocol === 'h2') return; // HTTP/2: see 'session' below.
    const connection = new Http1Connection(socket, idleMs + headersMs, accepted);
    http1.set(socket, connection);
    connection.arm(headersMs);
    // Its handshake ended after the server began to stop: served once, not kept alive.
    if (stopping) connection.shutdown();
    socket.once('close', () => {
      connection.stop();
      http1.delete(socket);
    });
  });

  // HTTP/2: the first stream's headers are due as soon. Afterwards, as Go's HTTP/2 server applies
  // IdleTimeout: a connection with no open stream for idleMs is closed (GOAWAY), pings and
  // other frames notwithstanding. A new stream exists only once its header block is complete,
  // so a header block left unfinished on an otherwise idle connection is bounded by this too.
  // On a connection that has open streams (a watch), an unfinished header block is bounded as
  // Go bounds it, by size rather than time: one at a time per connection (HTTP/2 forbids
  // interleaving), at most the header list limit (server.ts) and nghttp2's 8 CONTINUATION frames,
  // on at most MAX_CONNECTIONS connections; Go's server has no per-stream header deadline either
  // (kube sets no ReadTimeout), and Node never shows a header block before it is complete.
  const sweep = new SessionSweep();
  server.on('session', (session: ServerHttp2Session) => {
    // Its handshake ended after the server began to stop (and sent the others GOAWAY): the same.
    if (stopping) session.close();
    // One timer per connection, not per stream: a stream's open and close move `dueAt`, and the
    // timer, when it fires, acts only if the deadline has passed with no stream open.
    let open = 0;
    let hadStream = false;
    let dueAt = performance.now() + headersMs;
    let timer: NodeJS.Timeout | undefined;
    let timerAt = 0;
    const schedule = (ms: number): void => {
      clearTimeout(timer);
      timerAt = performance.now() + ms;
      timer = setTimeout(fire, ms);
      timer.unref();
    };
    const fire = (): void => {
      timer = undefined;
      if (open > 0 || session.closed || session.destroyed) return;
      const left = dueAt - performance.now();
      if (left > 0) return schedule(left);
      // No first stream in time: dropped; idle after its streams: asked to go (GOAWAY).
      if (hadStream) session.close();
      else session.destroy();
    };
    /** Streams its client reset before they were answered, in the turn `resetTurn`. */
    let resets = 0;
    let resetTurn = -1;
    const streamClosed = function (this: ServerHttp2Stream): void {
      // A rapid-reset flood (handler-limit.ts): more than RESETS_PER_TURN streams reset by the
      // client before their answer in one turn ends the connection, before nghttp2 has parsed
      // (and Node made objects for) the thousands more the same reads may hold.
      if (this.rstCode && !this.headersSent) {
        const turn = currentTurn();
        if (turn !== resetTurn) (resetTurn = turn), (resets = 0);
        if (++resets > RESETS_PER_TURN) enhanceYourCalm(session);
      }
      if (--open > 0 || session.closed || session.destroyed) return;
      sweep.idle(session);
      dueAt = performance.now() + idleMs;
      if (!timer || dueAt < timerAt) schedule(idleMs);
    };
    schedule(headersMs);
    sweep.idle(session);
    session.on('stream', (stream: ServerHttp2Stream) => {
      if (open++ === 0) sweep.busy(session);
      hadStream = true;
      // 'on': a stream closes once, and a 'once' wrapper would be kept for the stream's life (a watch's hour).
      stream.on('close', streamClosed);
    });
    session.once('close', () => {
      clearTimeout(timer);
      sweep.busy(session);
    });
  });

  /**
   * An HTTP/1.1 request that declares no body (no Content-Length or a zero one, no
   * Transfer-Encoding) has it all once its head is in, though Node says `complete` only after
   * its 'end' (which comes at once).
   */
  const declaresNoBody = (req: IncomingMessage | Http2ServerRequest): boolean => {
    if (req.httpVersionMajor !== 1) return false;
    const h = req.headers;
    return h['transfer-encoding'] === undefined && (h['content-length'] === undefined || h['content-length'] === '0');
  };

  /**
   * Whether the request's body is all in. Node's `complete` stays false until the body has been
   * read; an HTTP/2 stream that the client ended in its HEADERS frame has none to read.
   */
  const bodyComplete = (req: IncomingMessage | Http2ServerRequest): boolean => {
    if (req.complete || req.httpVersionMajor === 1) return req.complete;
    const stream = (req as Http2ServerRequest).stream;
    return stream.endAfterHeaders || stream.readableEnded;
  };

  /** Answers 504 to a request whose body is late, then ends its connection (HTTP/2: its stream). */
  const bodyTooSlow = (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse): void => {
    if (bodyComplete(req)) return;
    const close = (): void => {
      if (req.httpVersionMajor === 1) (req.socket as Socket).destroy();
      else (req as Http2ServerRequest).stream.close();
    };
    if (res.headersSent) return close();
    const body = statusBody(504, 'Timeout', 'Timeout: request did not complete within the allotted timeout');
    res.writeHead(504, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...(req.httpVersionMajor === 1 ? { connection: 'close' } : {}) });
    (res as ServerResponse).end(body, close);
  };

  server.on('request', (req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse) => {
    // Only a body the server reads is waited for (request-body.ts): a GET's (a watch sent with
    // `{}`, say) is never read, as Go never reads it, and must not cut the request.
    if (o.bodyTimeoutMs > 0 && hasBody(req as IncomingMessage) && !declaresNoBody(req) && !bodyComplete(req)) {
      // One timer per request that has a body still to come, cleared once it is in.
      const t = setTimeout(() => bodyTooSlow(req, res), o.bodyTimeoutMs);
      t.unref();
      const clear = (): void => clearTimeout(t);
      req.once('end', clear);
      res.once('close', clear);
    }
    if (req.httpVersionMajor !== 1) return;
    const connection = http1.get(req.socket as Socket);
    if (!connection) return;
    connection.requestStarted(res as ServerResponse);
    // 'on', not 'once': a response closes once, and once() would wrap the listener per request.
    res.on('close', connection.responseOver);
  });

  server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    const body = statusBody(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
    socket.on('error', () => undefined);
    socket.end(`HTTP/1.1 405 Method Not Allowed\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });

  return {
    afterResponses(socket, then) {
      const connection = http1.get(socket);
      if (connection) connection.afterResponses(then);
      else then();
    },
    shutdown() {
      stopping = true;
      // As Go's Shutdown: a connection that has not sent its first request is closed once it
      // is NEW_CONNECTION_GRACE_MS old (at once if it is already); its request, if it comes
      // sooner, is served.
      const now = performance.now();
      for (const [socket, accepted] of handshaking) {
        const close = (): void => void (handshaking.has(socket) && socket.destroy());
        const left = accepted + NEW_CONNECTION_GRACE_MS - now;
        if (left <= 0) close();
        else setTimeout(close, left).unref();
      }
      for (const connection of http1.values()) connection.shutdown();
    },
  };
}
