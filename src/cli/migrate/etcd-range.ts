// The etcd side of a migration, for reading and tidying: one connection (etcd-client.ts, with its
// per-call deadline), the prefix's key space (kube's layout under --etcd-prefix, as the server
// maps it), paged reads of the whole prefix at ONE revision (never one unpaged range: a store can
// be larger than a gRPC message), counts, and compaction. Errors leave as MigrationError with
// etcd's reason on one line.

import type { Etcd3, IKeyValue } from 'etcd3';
import { connectEtcd, type EtcdConnectionOptions } from '../../storage/etcd/etcd-client.js';
import { toStorageError } from '../../storage/etcd/etcd-errors.js';
import { EtcdKeySpace, prefixEnd } from '../../storage/etcd/etcd-keys.js';
import { MigrationError, oneLine } from './migration-error.js';

/** Where the server keeps every object (the store-side root that --etcd-prefix replaces). */
export const STORE_ROOT = '/registry';
/** Keys per range page. */
export const PAGE_SIZE = 500;

export interface EtcdEndpoint extends EtcdConnectionOptions {
  /** --etcd-prefix, without a trailing '/'. */
  prefix: string;
}

/** One key under the prefix, by its store-side name, with etcd's revisions. */
export interface EtcdKey {
  key: string;
  value: Buffer;
  createRevision: number;
  modRevision: number;
}

export class EtcdPrefix {
  readonly client: Etcd3;
  readonly keys: EtcdKeySpace;
  /** The etcd range of every object: `<prefix>/…`. */
  readonly start: Buffer;
  readonly end: Buffer;

  constructor(readonly endpoint: EtcdEndpoint) {
    this.client = connectEtcd(endpoint);
    this.keys = new EtcdKeySpace(STORE_ROOT, endpoint.prefix);
    this.start = this.keys.toEtcd(`${STORE_ROOT}/`);
    this.end = prefixEnd(this.start);
  }

  /** How many keys the prefix holds now, and etcd's revision at that moment. */
  async count(): Promise<{ count: number; revision: number }> {
    const res = await this.call('count the keys under the prefix', () => this.client.kv.range({ key: this.start, range_end: this.end, count_only: true }));
    return { count: Number(res.count), revision: Number(res.header.revision) };
  }

  /**
   * Every key under the prefix, a page at a time, all pages at one revision: `revision` if given,
   * else etcd's at the first page (reported through `onRevision` before the first page).
   */
  async *pages(revision = 0, onRevision?: (revision: number) => void): AsyncGenerator<EtcdKey[]> {
    let from = this.start;
    let at = revision;
    for (;;) {
      const res = await this.call('read the prefix', () => this.client.kv.range({ key: from, range_end: this.end, limit: PAGE_SIZE, revision: at }));
      if (at === 0) {
        at = Number(res.header.revision);
        onRevision?.(at);
      }
      if (res.kvs.length) yield res.kvs.map((kv) => this.keyOf(kv));
      if (!res.more || res.kvs.length === 0) return;
      from = Buffer.concat([res.kvs[res.kvs.length - 1]!.key, Buffer.from([0])]);
    }
  }

  /** etcd's Compact at `revision` (already compacted further: nothing to do). */
  async compact(revision: number): Promise<void> {
    try {
      await this.client.kv.compact({ revision, physical: false });
    } catch (err) {
      const e = toStorageError(err);
      if (e.code !== 'Compacted') throw new MigrationError(`could not compact etcd at revision ${revision}: ${oneLine(e.message)}`);
    }
  }

  /** Runs one etcd call; a failure becomes a one-line MigrationError naming what was being done. */
  async call<T>(doing: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw new MigrationError(`etcd (${this.endpoint.servers.join(',')}): could not ${doing}: ${oneLine(toStorageError(err).message.replace(/^etcd: /, ''))}`);
    }
  }

  close(): void {
    this.client.close();
  }

  private keyOf(kv: IKeyValue): EtcdKey {
    return { key: this.keys.fromEtcd(kv.key), value: kv.value, createRevision: Number(kv.create_revision), modRevision: Number(kv.mod_revision) };
  }
}
