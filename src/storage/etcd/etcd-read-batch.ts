// Consistent gets that arrive together go to etcd together. The gets started in one turn of the
// event loop are sent, when the turn's I/O is done, as one read-only Txn of ranges: one gRPC call
// and one linearizable read at one revision (etcd serves a read-only Txn through the same read
// index as a Range), instead of a call each, whose fixed cost (grpc-js, Node's HTTP/2 client,
// their garbage) is most of what a get costs the server. Every get is still read from etcd after
// it arrived, so its answer is what its own Range would have read, at that revision or a later
// one. A get alone in its turn is sent as the plain Range kube sends.

import type { IKeyValue } from 'etcd3';

/** Ranges per Txn: etcd refuses a Txn of more than --max-txn-ops operations (default 128). */
export const MAX_READS_PER_TXN = 64;

/** What one etcd call answered for the keys it read, in their order. */
export interface KeysRead {
  kvs: Array<IKeyValue | undefined>;
  /** etcd's revision when it read them. */
  revision: number;
}

interface PendingRead {
  key: Buffer;
  resolve(read: { kv: IKeyValue | undefined; revision: number }): void;
  reject(err: unknown): void;
}

export class ReadBatch {
  private pending: PendingRead[] = [];
  private scheduled = false;

  /** `read` sends one etcd call for these keys (one key: a Range; more: a Txn of Ranges). */
  constructor(private readonly read: (keys: Buffer[]) => Promise<KeysRead>) {}

  /** The key's value at a revision read after this call, with that revision. */
  get(key: Buffer): Promise<{ kv: IKeyValue | undefined; revision: number }> {
    return new Promise((resolve, reject) => {
      this.pending.push({ key, resolve, reject });
      // Stryker disable next-line ConditionalExpression: equivalent, a second flush in the same turn finds nothing pending and sends nothing
      if (this.scheduled) return;
      // Stryker disable next-line BooleanLiteral: equivalent, as above
      this.scheduled = true;
      setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    this.scheduled = false;
    const all = this.pending;
    this.pending = [];
    for (let i = 0; i < all.length; i += MAX_READS_PER_TXN) void this.send(all.slice(i, i + MAX_READS_PER_TXN));
  }

  private async send(batch: PendingRead[]): Promise<void> {
    let read: KeysRead;
    try {
      read = await this.read(batch.map((p) => p.key));
    } catch (err) {
      for (const p of batch) p.reject(err);
      return;
    }
    batch.forEach((p, i) => p.resolve({ kv: read.kvs[i], revision: read.revision }));
  }
}
