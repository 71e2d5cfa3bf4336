// A request's body, read into one Buffer before the request path starts (the handlers decode
// whole objects), bounded by the server's body limit.
//
// Which requests have one: POST, PUT, PATCH, DELETE, OPTIONS and QUERY, unless they declare
// none (no Content-Type, no Transfer-Encoding, no or a zero Content-Length); every other method's
// body is left unread (kube's handlers read none for them). Past the limit the request is
// answered 413 (a Content-Length that says so is refused before any byte is read) and the rest
// of the body is read and dropped while the answer goes out (server.ts closes the HTTP/1.1
// connection with a lingering close, lingering-close.ts, so that the client reads it); a body that
// ends short of its Content-Length is a 400; a client that goes away mid-body fails the read
// with ECONNRESET, which the error renderer treats as the client's doing. How long a body may take
// is the connection guard's business (connection-guard.ts answers a late one 504).

import type { IncomingMessage } from 'node:http';
import { badRequest, requestEntityTooLarge } from '../../apimachinery/status-error.js';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'QUERY']);

/** Whether the request carries a body to read. */
export function hasBody(req: IncomingMessage): boolean {
  if (!BODY_METHODS.has(req.method!)) return false;
  const h = req.headers;
  if (h['content-type'] !== undefined || h['transfer-encoding'] !== undefined) return true;
  const length = h['content-length'];
  return length !== undefined && length !== '0';
}

const tooLarge = (limit: number): Error => requestEntityTooLarge(`Request entity too large: limit is ${limit}`);

const clientAborted = (): Error => Object.assign(new Error('aborted'), { code: 'ECONNRESET' });

/** Reads the body; calls `done` once, with the bytes or with why there are none. */
export function readBody(req: IncomingMessage, limit: number, done: (err: Error | undefined, body: Buffer | undefined) => void): void {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) {
    // Refused unread, at once; what the client still sends is dropped (on HTTP/1.1, until the
    // connection's lingering close: the client must be able to finish writing to read the 413).
    req.resume();
    return done(tooLarge(limit), undefined);
  }
  const chunks: Buffer[] = [];
  let received = 0;
  let over = false;
  const finish = (err: Error | undefined, body: Buffer | undefined): void => {
    if (over) return;
    over = true;
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', onError);
    req.off('aborted', onAborted);
    done(err, body);
  };
  const onData = (chunk: Buffer): void => {
    received += chunk.length;
    if (received > limit) {
      // The rest is not wanted: the 413 closes an HTTP/1.1 connection, and an HTTP/2 stream ends with its answer.
      finish(tooLarge(limit), undefined);
      req.resume();
      return;
    }
    chunks.push(chunk);
  };
  const onEnd = (): void => {
    // A connection lost mid-body ends an HTTP/2 compatibility request as if the body were complete
    // (after 'aborted', which has already finished this read): never take that for a body.
    if (req.aborted) return finish(clientAborted(), undefined);
    if (!Number.isNaN(declared) && received !== declared) return finish(badRequest('Request body size did not match Content-Length'), undefined);
    // Always a copy: the body outlives the socket reads its chunks are views of.
    finish(undefined, Buffer.concat(chunks, received));
  };
  const onError = (err: Error): void => finish(err, undefined);
  const onAborted = (): void => finish(clientAborted(), undefined);
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('error', onError);
  req.on('aborted', onAborted);
}
