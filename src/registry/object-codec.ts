// Objects to stored bytes and back. Stored bytes never hold resourceVersion: it is the key's
// modRevision, stamped on read.

import type { KubeObject } from '../apimachinery/object-meta.js';
import type { KeyValue } from '../storage/revisioned-store.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeObject(obj: KubeObject): Uint8Array {
  const { resourceVersion: _rv, ...metadata } = obj.metadata;
  return encoder.encode(JSON.stringify({ ...obj, metadata }));
}

export function decodeObject<T extends KubeObject>(kv: KeyValue): T {
  const obj = JSON.parse(decoder.decode(kv.value)) as T;
  obj.metadata.resourceVersion = String(kv.modRevision);
  return obj;
}

const shared = new WeakMap<KeyValue, KubeObject>();

/**
 * decodeObject, once per stored value: every watcher of an event gets the same object, so it
 * is decoded (and, in http/, serialized) once however many watchers there are. Callers must
 * treat the result as read-only.
 */
export function decodeShared<T extends KubeObject>(kv: KeyValue): T {
  let obj = shared.get(kv);
  if (!obj) {
    obj = decodeObject<T>(kv);
    shared.set(kv, obj);
  }
  return obj as T;
}

/** JSON-equal ignoring resourceVersion: an update that would store these bytes again is a no-op. */
export function sameStoredForm(a: KubeObject, b: KubeObject): boolean {
  return Buffer.from(encodeObject(normalize(a))).equals(Buffer.from(encodeObject(normalize(b))));
}

/** Key order does not matter to equality; undefined members vanish. */
function normalize<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (_k, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? sortKeys(v as Record<string, unknown>) : v))) as T;
}

function sortKeys(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));
}
