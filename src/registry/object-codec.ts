// Objects to stored bytes and back. Stored bytes never hold resourceVersion: it is the key's
// modRevision, stamped on read.

import { setResourceVersion } from '../apimachinery/field-order.js';
import { deepEqual } from '../apimachinery/json-value.js';
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
  setResourceVersion(obj, String(kv.modRevision));
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

/** JSON-equal ignoring resourceVersion and key order: an update that would store this again is a no-op. */
export function sameStoredForm(a: KubeObject, b: KubeObject): boolean {
  return deepEqual(storedForm(a), storedForm(b));
}

/** The object as JSON would store it: no resourceVersion, undefined members gone. */
function storedForm(obj: KubeObject): unknown {
  const { resourceVersion: _rv, ...metadata } = obj.metadata;
  return JSON.parse(JSON.stringify({ ...obj, metadata }));
}
