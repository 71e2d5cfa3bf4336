// The messages between the SQLite store (main thread) and its writer thread. A batch travels as
// ONE transferred ArrayBuffer each way (the writes with their keys and new values to the writer;
// each write's outcome with the previous or current value it found, back): one copy per value,
// no structured clone of objects (which cost more than the rest of the hand-off), and never a
// clone of the larger buffer a value may be a view on (Buffer's shared pool).
//
// Batch: id f64 | count u32 | per write: op u8 (0 put, 1 delete) | expected f64 | key length u32 |
//   value length u32 | key (UTF-8) | value.
// Report: id f64 | revision f64 | count u32 | per write: outcome u8 (0 ok, 1 KeyExists,
//   2 KeyNotFound, 3 Conflict) | [ok: revision f64 | createRevision f64] | row u8 (0 none) |
//   [row: revision f64 | createRevision f64 | value length u32 | value].

import type { AppliedBatch, AppliedWrite, FoundRow, WriteRequest } from './sqlite-batch.js';

export interface WriterData {
  path: string;
  durability: 'full' | 'normal';
}

/** Main thread → writer: a batch is an ArrayBuffer (packBatch); the rest are objects. */
export type WriterRequest = ArrayBuffer | { type: 'compact'; id: number; from: number; target: number } | { type: 'pragma'; id: number; pragma: string } | { type: 'close'; id: number };

/** Writer → main thread: a batch's report is an ArrayBuffer (packReport); the rest are objects. */
export type WriterReply = ArrayBuffer | { id: number; error: string } | { id: number; error?: undefined; result?: unknown };

const CODES = ['ok', 'KeyExists', 'KeyNotFound', 'Conflict'] as const;

export function packBatch(id: number, batch: readonly WriteRequest[]): ArrayBuffer {
  let size = 12;
  for (const w of batch) size += 17 + Buffer.byteLength(w.key) + (w.value?.byteLength ?? 0);
  const buf = Buffer.allocUnsafeSlow(size);
  buf.writeDoubleLE(id, 0);
  buf.writeUInt32LE(batch.length, 8);
  let at = 12;
  for (const w of batch) {
    const len = w.value?.byteLength ?? 0;
    buf[at] = w.op === 'put' ? 0 : 1;
    buf.writeDoubleLE(w.expected, at + 1);
    const keyLen = buf.write(w.key, at + 17, 'utf8');
    buf.writeUInt32LE(keyLen, at + 9);
    buf.writeUInt32LE(len, at + 13);
    at += 17 + keyLen;
    if (w.value) buf.set(w.value, at);
    at += len;
  }
  return buf.buffer as ArrayBuffer;
}

export function unpackBatch(message: ArrayBuffer): { id: number; writes: WriteRequest[] } {
  const buf = Buffer.from(message);
  const count = buf.readUInt32LE(8);
  const writes: WriteRequest[] = new Array(count);
  let at = 12;
  for (let i = 0; i < count; i++) {
    const expected = buf.readDoubleLE(at + 1);
    const keyLen = buf.readUInt32LE(at + 9);
    const len = buf.readUInt32LE(at + 13);
    const key = buf.toString('utf8', at + 17, at + 17 + keyLen);
    at += 17 + keyLen;
    writes[i] = buf[at - 17 - keyLen] === 0 ? { op: 'put', key, expected, value: buf.subarray(at, at + len) } : { op: 'delete', key, expected };
    at += len;
  }
  return { id: buf.readDoubleLE(0), writes };
}

export function packReport(id: number, applied: AppliedBatch): ArrayBuffer {
  let size = 20;
  for (const w of applied.writes) {
    const row = w.ok ? w.prev : w.current;
    size += 2 + (w.ok ? 16 : 0) + (row ? 20 + row.value.byteLength : 0);
  }
  const buf = Buffer.allocUnsafeSlow(size);
  buf.writeDoubleLE(id, 0);
  buf.writeDoubleLE(applied.revision, 8);
  buf.writeUInt32LE(applied.writes.length, 16);
  let at = 20;
  for (const w of applied.writes) {
    buf[at++] = CODES.indexOf(w.ok ? 'ok' : w.code);
    if (w.ok) {
      buf.writeDoubleLE(w.revision, at);
      buf.writeDoubleLE(w.createRevision, at + 8);
      at += 16;
    }
    const row = w.ok ? w.prev : w.current;
    buf[at++] = row ? 1 : 0;
    if (row) {
      buf.writeDoubleLE(row.revision, at);
      buf.writeDoubleLE(row.createRevision, at + 8);
      buf.writeUInt32LE(row.value.byteLength, at + 16);
      buf.set(row.value, at + 20);
      at += 20 + row.value.byteLength;
    }
  }
  return buf.buffer as ArrayBuffer;
}

/** The id a report answers. */
export const reportId = (message: ArrayBuffer): number => new DataView(message).getFloat64(0, true);

export function unpackReport(message: ArrayBuffer): AppliedBatch {
  const buf = Buffer.from(message);
  const count = buf.readUInt32LE(16);
  const writes: AppliedWrite[] = new Array(count);
  let at = 20;
  for (let i = 0; i < count; i++) {
    const code = CODES[buf[at++]!]!;
    let revision = 0;
    let createRevision = 0;
    if (code === 'ok') {
      revision = buf.readDoubleLE(at);
      createRevision = buf.readDoubleLE(at + 8);
      at += 16;
    }
    let row: FoundRow | undefined;
    if (buf[at++] === 1) {
      const len = buf.readUInt32LE(at + 16);
      row = { revision: buf.readDoubleLE(at), createRevision: buf.readDoubleLE(at + 8), value: buf.subarray(at + 20, at + 20 + len) };
      at += 20 + len;
    }
    if (code === 'ok') writes[i] = row ? { ok: true, revision, createRevision, prev: row } : { ok: true, revision, createRevision };
    else writes[i] = row ? { ok: false, code, current: row } : { ok: false, code };
  }
  return { writes, revision: buf.readDoubleLE(8) };
}
