// The one place responses are written: objects and Status errors in the negotiated format,
// with warnings as `Warning: 299 - "..."` headers (made header-safe by warning-headers.ts).

import type { FastifyReply } from 'fastify';
import { stringify as toYaml } from 'yaml';
import type { Status } from '../apimachinery/status-error.js';
import type { ResponseFormat } from './negotiation.js';
import { warningHeaderValues } from './warning-headers.js';

export interface WriteOptions {
  format: ResponseFormat | { kind: 'json' };
  pretty: boolean;
  warnings?: readonly string[];
}

export function serialize(body: unknown, format: WriteOptions['format'], pretty: boolean): { contentType: string; payload: string } {
  if (format.kind === 'yaml') return { contentType: 'application/yaml', payload: toYaml(body, { lineWidth: 0 }) };
  return { contentType: 'application/json', payload: `${JSON.stringify(body, null, pretty ? 2 : undefined)}\n` };
}

export function writeBody(reply: FastifyReply, code: number, body: unknown, opts: WriteOptions): void {
  const { contentType, payload } = serialize(body, opts.format, opts.pretty);
  writeSerialized(reply, code, contentType, Buffer.from(payload), opts.warnings);
}

/**
 * Writes a body already in its wire form: exactly what writeBody writes for a body that
 * serializes to `payload` (the cached JSON of a stored version, a list built from such).
 */
export function writeSerialized(reply: FastifyReply, code: number, contentType: string, payload: Buffer, warnings?: readonly string[]): void {
  if (warnings?.length) {
    const values = warningHeaderValues(warnings);
    if (values.length) reply.header('Warning', values);
  }
  // A Buffer keeps Fastify from rewriting the content type (it must stay byte-exact).
  reply.code(code).header('Content-Type', contentType).send(payload);
}

export function writeStatus(reply: FastifyReply, status: Status, opts: Omit<WriteOptions, 'format'> & { format?: WriteOptions['format'] }): void {
  const format = opts.format?.kind === 'yaml' ? opts.format : { kind: 'json' as const };
  // Any Status that says when to retry (429, 504 from storage, ...), as kube-apiserver does.
  if (status.details?.retryAfterSeconds) reply.header('Retry-After', String(status.details.retryAfterSeconds));
  writeBody(reply, status.code, status, { ...opts, format });
}
