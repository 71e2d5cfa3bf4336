// Objects to stored bytes and back. Stored bytes never hold resourceVersion: it is the key's
// modRevision, stamped on read. A stored version read by many (the watch cache keeps its values)
// is decoded once and serialized once while anyone holds it: the same object and the same JSON
// bytes for every GET, list item and watch event of that version. The decoded form is not kept
// beside the stored bytes for the version's life (that held every object twice: 100,000
// ServiceCIDRs at 2× their JSON again once listed); only values read again, up to RECENT_BYTES
// of stored bytes, are kept strongly, the rest as long as a reader holds them.

import { setResourceVersion } from '../apimachinery/field-order.js';
import type { KubeObject } from '../apimachinery/object-meta.js';
import type { KeyValue } from '../storage/revisioned-store.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeObject(obj: KubeObject): Uint8Array {
  // A create's object has no resourceVersion yet: nothing to leave out, no copies.
  if (obj.metadata.resourceVersion === undefined) return encoder.encode(JSON.stringify(obj));
  const { resourceVersion: _rv, ...metadata } = obj.metadata;
  return encoder.encode(JSON.stringify({ ...obj, metadata }));
}

export function decodeObject<T extends KubeObject>(kv: KeyValue): T {
  const obj = JSON.parse(decoder.decode(kv.value)) as T;
  setResourceVersion(obj, String(kv.modRevision));
  return obj;
}

/** Each stored value's decoded object, while anyone holds it. */
const shared = new WeakMap<KeyValue, WeakRef<KubeObject>>();

/**
 * Stored bytes of values read again kept decoded (GETs and repeated lists, selector lists, which
 * read every object's fields). Large enough that a store of tens of thousands of objects read
 * over and over stays decoded, as kube's watch cache keeps it (with 16 MB, the label list bench's
 * unindexed list decoded every object each time: 0.7 against 9.2 lists/s); bounded, so a larger
 * store costs decodes, not memory. Objects read once (the controllers' first pass) are not kept.
 */
export const RECENT_BYTES = 128 * 1024 * 1024;

/** The recently read values' objects, least recent first (a Map keeps insertion order): O(1) touch and eviction. */
const recent = new Map<KeyValue, KubeObject>();
let recentBytes = 0;

function touch(kv: KeyValue, obj: KubeObject): void {
  if (recent.delete(kv)) recentBytes -= kv.value.byteLength;
  recent.set(kv, obj);
  recentBytes += kv.value.byteLength;
  for (const [old] of recent) {
    if (recentBytes <= RECENT_BYTES || old === kv) break;
    recent.delete(old);
    recentBytes -= old.value.byteLength;
  }
}

/**
 * Objects being written, by the memory of the bytes they are written as (putShared), from the
 * encode until the write settles. A store that hands its watchers the written bytes themselves
 * (SQLite and memory: the same ArrayBuffer) lets the version's first reader (the watch cache's
 * watchers, at the commit) take the written object as the version's decoded form instead of
 * parsing the bytes again: the bytes are that object's JSON, so both are the same value.
 */
const writing = new Map<ArrayBufferLike, KubeObject>();

/**
 * Encodes `obj` and writes it with `put`; the stored version's shared form (decodeShared) is then
 * `obj` itself, stamped with its resourceVersion: the caller must not change `obj` afterwards
 * (it answers with it, as every reader of the version does).
 */
export async function putShared<R>(obj: KubeObject, put: (bytes: Uint8Array) => Promise<R>): Promise<R> {
  const bytes = encodeObject(obj);
  writing.set(bytes.buffer, obj);
  try {
    return await put(bytes);
  } finally {
    writing.delete(bytes.buffer);
  }
}

/** The object being written as exactly these bytes (putShared), if any. */
function writtenAs(value: Uint8Array): KubeObject | undefined {
  if (writing.size === 0 || value.byteOffset !== 0 || value.byteLength !== value.buffer.byteLength) return undefined;
  const obj = writing.get(value.buffer);
  if (obj) writing.delete(value.buffer);
  return obj;
}

/** Each shared object's served JSON (with its newline), made on first use; null until then. */
const served = new WeakMap<object, Buffer | null>();

/**
 * decodeObject, once per stored value: every reader of a version gets the same object, so it
 * is decoded (and serialized, servedJsonOf) once however many readers there are. Callers must
 * treat the result as read-only.
 */
export function decodeShared<T extends KubeObject>(kv: KeyValue): T {
  const ref = shared.get(kv);
  let obj = ref?.deref();
  if (!obj) {
    const written = writtenAs(kv.value);
    if (written) setResourceVersion(written, String(kv.modRevision));
    obj = written ?? decodeObject<T>(kv);
    shared.set(kv, new WeakRef(obj));
    served.set(obj, null);
  }
  // Kept strongly from its second read on: one pass over every object (an informer's list, a
  // label index's fill) churns nothing through the recent set (nor the old generation's GC).
  if (ref) touch(kv, obj);
  return obj as T;
}

/**
 * The JSON a read answers with for a shared object (decodeShared): `JSON.stringify(obj)` and a
 * newline, UTF-8, made once per stored version and then the same bytes for every reader (a list
 * item is these bytes without the newline). Undefined for an object that is not shared.
 */
export function servedJsonOf(obj: KubeObject): Buffer | undefined {
  const bytes = served.get(obj);
  if (bytes !== null) return bytes;
  const json = `${JSON.stringify(obj)}\n`;
  // Its own memory, not a slice of Node's shared pool (a kept slice would keep the whole slab).
  const made = Buffer.allocUnsafeSlow(Buffer.byteLength(json));
  made.write(json);
  served.set(obj, made);
  return made;
}

/**
 * Another shape of a shared object (a kind stored as another kind, StoredAs): made once per
 * stored version, shared by every reader like the decoded object itself (read-only, its JSON
 * made once by servedJsonOf).
 */
const shapesBy = new WeakMap<(stored: KubeObject) => KubeObject, WeakMap<object, KubeObject>>();

export function sharedShape<T extends KubeObject>(stored: KubeObject, convert: (stored: KubeObject) => T): T {
  let shapes = shapesBy.get(convert);
  if (!shapes) shapesBy.set(convert, (shapes = new WeakMap()));
  let obj = shapes.get(stored);
  if (!obj) {
    obj = convert(stored);
    shapes.set(stored, obj);
    served.set(obj, null);
  }
  return obj as T;
}

/**
 * Restamps a shared object's resourceVersion (a deleted object carries its deletion's revision)
 * and forgets the JSON made for the old one.
 */
export function restampShared(obj: KubeObject, resourceVersion: string): void {
  if (obj.metadata.resourceVersion === resourceVersion) return;
  obj.metadata.resourceVersion = resourceVersion;
  if (served.has(obj)) served.set(obj, null);
}
