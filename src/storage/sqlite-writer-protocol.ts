// The messages between the SQLite store (main thread) and its writer thread, and their packing:
// the values of a batch travel in ONE transferred ArrayBuffer each way (a write's new value to the
// writer; the previous or current value each write found, back), so a batch costs one copy per
// value and no structured clone of the buffers a value may be a view on (Buffer's shared pool).

import type { AppliedBatch, AppliedWrite, FoundRow, WriteRequest } from './sqlite-batch.js';

export interface WriterData {
  path: string;
  durability: 'full' | 'normal';
}

interface WireWrite {
  op: 'put' | 'delete';
  key: string;
  expected: number;
  /** Where the value lies in the batch's buffer (puts only). */
  at: number;
  len: number;
}

interface WireRow {
  revision: number;
  createRevision: number;
  at: number;
  len: number;
}

type WireApplied =
  | { ok: true; revision: number; createRevision: number; prev?: WireRow }
  | { ok: false; code: 'KeyExists' | 'KeyNotFound' | 'Conflict'; current?: WireRow };

export interface WireBatch {
  writes: WireWrite[];
  values: ArrayBuffer;
}

export interface WireReport {
  writes: WireApplied[];
  values: ArrayBuffer;
  revision: number;
}

/** Main thread → writer. */
export type WriterRequest =
  | { type: 'batch'; id: number; batch: WireBatch }
  | { type: 'compact'; id: number; from: number; target: number }
  | { type: 'pragma'; id: number; pragma: string }
  | { type: 'close'; id: number };

/** Writer → main thread: the answer to request `id` (or why it failed). */
export type WriterReply = { id: number; error: string } | { id: number; error?: undefined; result?: unknown };

export function packBatch(batch: readonly WriteRequest[]): WireBatch {
  let total = 0;
  for (const w of batch) total += w.value?.byteLength ?? 0;
  const bytes = new Uint8Array(total);
  let at = 0;
  const writes = batch.map((w): WireWrite => {
    const len = w.value?.byteLength ?? 0;
    if (w.value) bytes.set(w.value, at);
    const wire = { op: w.op, key: w.key, expected: w.expected, at, len };
    at += len;
    return wire;
  });
  return { writes, values: bytes.buffer };
}

export function unpackBatch(wire: WireBatch): WriteRequest[] {
  return wire.writes.map((w) =>
    w.op === 'put' ? { op: 'put', key: w.key, expected: w.expected, value: Buffer.from(wire.values, w.at, w.len) } : { op: 'delete', key: w.key, expected: w.expected },
  );
}

export function packReport(applied: AppliedBatch): WireReport {
  let total = 0;
  for (const w of applied.writes) total += (w.ok ? w.prev : w.current)?.value.byteLength ?? 0;
  const bytes = new Uint8Array(total);
  let at = 0;
  const row = (r: FoundRow | undefined): WireRow | undefined => {
    if (!r) return undefined;
    bytes.set(r.value, at);
    const wire = { revision: r.revision, createRevision: r.createRevision, at, len: r.value.byteLength };
    at += r.value.byteLength;
    return wire;
  };
  const writes = applied.writes.map((w): WireApplied => {
    if (w.ok) return w.prev ? { ok: true, revision: w.revision, createRevision: w.createRevision, prev: row(w.prev) } : { ok: true, revision: w.revision, createRevision: w.createRevision };
    return w.current ? { ok: false, code: w.code, current: row(w.current) } : { ok: false, code: w.code };
  });
  return { writes, values: bytes.buffer, revision: applied.revision };
}

export function unpackReport(wire: WireReport): AppliedBatch {
  const row = (r: WireRow): FoundRow => ({ revision: r.revision, createRevision: r.createRevision, value: Buffer.from(wire.values, r.at, r.len) });
  const writes = wire.writes.map((w): AppliedWrite => {
    if (w.ok) return w.prev ? { ok: true, revision: w.revision, createRevision: w.createRevision, prev: row(w.prev) } : { ok: true, revision: w.revision, createRevision: w.createRevision };
    return w.current ? { ok: false, code: w.code, current: row(w.current) } : { ok: false, code: w.code };
  });
  return { writes, revision: wire.revision };
}
