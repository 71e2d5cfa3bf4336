// A snapshot's checksum, as etcd seals its snapshots: the SHA-256 of the whole file, appended to
// it as 32 bytes when the save is sealed. SQLite reads the database by the page count in its
// header and never looks past it, so the file stays a database. Checking it reads the file once:
// any byte edited, appended, cut off, or pages swapped gives another sum (etcdutl's
// `expected sha256 …, got …`). A SQLite file is a whole number of pages, so a file of whole
// pages has no checksum (a format-1 snapshot, or one cut exactly at its checksum).

import { createHash } from 'node:crypto';
import { closeSync, fstatSync, fsyncSync, openSync, readSync, writeSync } from 'node:fs';

export const CHECKSUM_BYTES = 32;
const CHUNK = 1024 * 1024;

export type ChecksumCheck =
  /** Whole pages: nothing appended to check against. */
  | { kind: 'none' }
  | { kind: 'ok'; sha256: string }
  | { kind: 'mismatch'; expected: string; actual: string };

/** SQLite's page size from the header (offset 16, big-endian; 1 means 65536). */
function pageSizeOf(fd: number): number {
  const b = Buffer.alloc(2);
  if (readSync(fd, b, 0, 2, 16) < 2) return 0;
  const v = b.readUInt16BE(0);
  return v === 1 ? 65536 : v;
}

/** SHA-256 of the file's first `length` bytes. */
function sha256Of(fd: number, length: number): string {
  const hash = createHash('sha256');
  const buf = Buffer.allocUnsafe(CHUNK);
  for (let at = 0; at < length; ) {
    const n = readSync(fd, buf, 0, Math.min(CHUNK, length - at), at);
    if (n <= 0) throw new Error(`the file ended at byte ${at} while it was read`);
    hash.update(buf.subarray(0, n));
    at += n;
  }
  return hash.digest('hex');
}

/** Checks the file's appended checksum against its contents. */
export function checkChecksum(file: string): ChecksumCheck {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const pageSize = pageSizeOf(fd);
    if (pageSize > 0 && size % pageSize === 0) return { kind: 'none' };
    if (size < CHECKSUM_BYTES) return { kind: 'mismatch', expected: '(none: the file is too short)', actual: sha256Of(fd, size) };
    const tail = Buffer.alloc(CHECKSUM_BYTES);
    readSync(fd, tail, 0, CHECKSUM_BYTES, size - CHECKSUM_BYTES);
    const expected = tail.toString('hex');
    const actual = sha256Of(fd, size - CHECKSUM_BYTES);
    return expected === actual ? { kind: 'ok', sha256: actual } : { kind: 'mismatch', expected, actual };
  } finally {
    closeSync(fd);
  }
}

/** Appends the SHA-256 of the file (a finished database) to it and syncs it; returns the sum. */
export function appendChecksum(file: string): string {
  const fd = openSync(file, 'r+');
  try {
    const size = fstatSync(fd).size;
    const sum = sha256Of(fd, size);
    writeSync(fd, Buffer.from(sum, 'hex'), 0, CHECKSUM_BYTES, size);
    fsyncSync(fd);
    return sum;
  } finally {
    closeSync(fd);
  }
}
