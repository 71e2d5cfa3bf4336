// Verifying a copy: the source and the target, both read in key order a page at a time, walked
// side by side; every key must be in both with the same bytes, and nothing else may be in
// either. Memory is two pages. The first difference ends the walk with a sentence naming the key.
// Each side's content digest (content-digest.ts: the one a snapshot records) is computed from
// what that side returned, and the two must be equal: the command prints it.

import { ContentDigest } from '../../storage/sqlite/content-digest.js';

export interface KeyBytes {
  key: string;
  value: Uint8Array;
}

export interface Verified {
  count: number;
  /** The content digest of the source, and of the target, each from what it returned. */
  sourceSha256: string;
  targetSha256: string;
}

/** Byte order of the keys' UTF-8 forms (etcd's and SQLite's BINARY order). */
const compareKeys = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

async function* keysOf(pages: AsyncIterable<readonly KeyBytes[]> | Iterable<readonly KeyBytes[]>): AsyncGenerator<KeyBytes> {
  for await (const page of pages) yield* page;
}

const equalBytes = (a: Uint8Array, b: Uint8Array): boolean => Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));

/** Undefined when the two are the same, else what differs (the first difference in key order). */
export async function compareStores(
  source: AsyncIterable<readonly KeyBytes[]> | Iterable<readonly KeyBytes[]>,
  target: AsyncIterable<readonly KeyBytes[]> | Iterable<readonly KeyBytes[]>,
  expectedCount: number,
): Promise<Verified | { mismatch: string }> {
  const s = keysOf(source);
  const t = keysOf(target);
  let a = await s.next();
  let b = await t.next();
  let count = 0;
  const sourceDigest = new ContentDigest();
  const targetDigest = new ContentDigest();
  while (!a.done || !b.done) {
    const order = a.done ? 1 : b.done ? -1 : compareKeys(a.value.key, b.value.key);
    if (order < 0) return { mismatch: `${a.value!.key} is missing from the target` };
    if (order > 0) return { mismatch: `${b.value!.key} is in the target but not in the source` };
    if (!equalBytes(a.value!.value, b.value!.value)) return { mismatch: `${a.value!.key} differs between the source and the target` };
    sourceDigest.add(a.value!.key, a.value!.value);
    targetDigest.add(b.value!.key, b.value!.value);
    count++;
    a = await s.next();
    b = await t.next();
  }
  if (count !== expectedCount) return { mismatch: `the source held ${expectedCount} keys at its revision but ${count} were read back` };
  const sourceSha256 = sourceDigest.hex();
  const targetSha256 = targetDigest.hex();
  if (sourceSha256 !== targetSha256) return { mismatch: `the content digests differ (source sha256 ${sourceSha256}, target sha256 ${targetSha256})` };
  return { count, sourceSha256, targetSha256 };
}
