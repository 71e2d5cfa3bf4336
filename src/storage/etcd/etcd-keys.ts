// Where the store's keys live in etcd. The registry's keys begin with its root (`/registry`,
// kube's layout `/registry/<group>/<plural>/<name>`); in etcd that root is replaced by
// --etcd-prefix, so the default layout is exactly kube's and another prefix moves the whole
// tree (several installations on one etcd). The mapping is a bijection on keys under the root.

import { StorageError } from '../revisioned-store.js';

export class EtcdKeySpace {
  /**
   * @param root the store-side root every key starts with ('' for none)
   * @param prefix the etcd-side replacement for the root (no trailing '/')
   */
  constructor(
    readonly root: string,
    readonly prefix: string,
  ) {}

  toEtcd(key: string): Buffer {
    if (!key.startsWith(this.root)) throw new StorageError('KeyNotFound', `key ${key} is outside the store's root ${this.root}`, key);
    return Buffer.from(this.prefix + key.slice(this.root.length));
  }

  fromEtcd(key: Buffer | Uint8Array): string {
    const text = Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('utf8');
    return this.root + text.slice(this.prefix.length);
  }

  /** The [start, end) byte range of every key beginning with `prefix` (store-side). */
  range(prefix: string): { key: Buffer; rangeEnd: Buffer } {
    const key = this.toEtcd(prefix);
    return { key, rangeEnd: prefixEnd(key) };
  }
}

/** The smallest key greater than every key that starts with `prefix` (etcd's GetPrefixRangeEnd). */
export function prefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i] = end[i]! + 1;
      return end.subarray(0, i + 1);
    }
  }
  // All 0xff: everything from prefix on.
  return Buffer.from([0]);
}
