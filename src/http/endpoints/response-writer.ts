// The one place responses are written: objects and Status errors in the negotiated format,
// with warnings as `Warning: 299 - "..."` headers (made header-safe by warning-headers.ts).

import type { HttpReply } from '../transport/exchange.js';
import type { OutgoingHttpHeaders } from 'node:http';
import { stringify as toYaml } from 'yaml';
import type { Status } from '../../apimachinery/status-error.js';
import type { ResponseFormat } from './negotiation.js';
import { warningHeaderValues } from './warning-headers.js';
import { bufferBody, PACED_BODY_BYTES, writePaced, type SlicedBody } from '../transport/paced-body.js';

export interface WriteOptions {
  format: ResponseFormat | { kind: 'json' };
  pretty: boolean;
  warnings?: readonly string[];
}

export function serialize(body: unknown, format: WriteOptions['format'], pretty: boolean): { contentType: string; payload: string } {
  if (format.kind === 'yaml') return { contentType: 'application/yaml', payload: toYaml(body, { lineWidth: 0 }) };
  return { contentType: 'application/json', payload: `${JSON.stringify(body, null, pretty ? 2 : undefined)}\n` };
}

export function writeBody(reply: HttpReply, code: number, body: unknown, opts: WriteOptions): void | Promise<void> {
  const { contentType, payload } = serialize(body, opts.format, opts.pretty);
  return writeSerialized(reply, code, contentType, Buffer.from(payload), opts.warnings);
}

/**
 * Writes a body already in its wire form: exactly what writeBody writes for a body that
 * serializes to `payload` (the cached JSON of a stored version, a list joined from such). A
 * large body is written a slice at a time (paced-body.ts), and the promise returned then settles
 * once it is out: the caller waits for it, so the request lasts as long as its writing.
 */
export function writeSerialized(reply: HttpReply, code: number, contentType: string, payload: Buffer | SlicedBody, warnings?: readonly string[]): void | Promise<void> {
  if (warnings?.length) {
    const values = warningHeaderValues(warnings);
    if (values.length) reply.header('Warning', values);
  }
  if (payload.length >= PACED_BODY_BYTES && reply.request.method !== 'HEAD') {
    const body = Buffer.isBuffer(payload) ? bufferBody(payload) : payload;
    bodyObservers.get(reply)?.(body.whole());
    const headers: OutgoingHttpHeaders = { ...(reply.getHeaders() as OutgoingHttpHeaders), 'content-type': contentType, 'content-length': body.length };
    // The reply writes nothing more; the filters see its end on the raw response.
    reply.hijack();
    return writePaced(reply.raw, code, headers, body);
  }
  reply
    .code(code)
    .header('Content-Type', contentType)
    .send(Buffer.isBuffer(payload) ? payload : payload.whole());
}

/** Who wants to see a request's response body (the audit log at RequestResponse level). */
const bodyObservers = new WeakMap<HttpReply, (body: Buffer) => void>();

export function observeResponseBody(reply: HttpReply, observer: (body: Buffer) => void): void {
  bodyObservers.set(reply, observer);
}

/** Hands a body the reply is about to write to its observer, if it has one (HttpReply.send). */
export function observedBody(reply: HttpReply, body: unknown): void {
  if (Buffer.isBuffer(body)) bodyObservers.get(reply)?.(body);
}

export function writeStatus(reply: HttpReply, status: Status, opts: Omit<WriteOptions, 'format'> & { format?: WriteOptions['format'] }): void | Promise<void> {
  const format = opts.format?.kind === 'yaml' ? opts.format : { kind: 'json' as const };
  // Any Status that says when to retry (429, 504 from storage, ...), as kube-apiserver does.
  if (status.details?.retryAfterSeconds) reply.header('Retry-After', String(status.details.retryAfterSeconds));
  return writeBody(reply, status.code, status, { ...opts, format });
}
