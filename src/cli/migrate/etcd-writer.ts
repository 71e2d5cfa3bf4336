// Writing a migration into etcd: keys go in batches, one transaction per batch, each put guarded
// by `create_revision == 0` so that nothing already there is ever overwritten (a key someone else
// wrote meanwhile fails the whole batch, which then writes nothing). A few batches are in flight
// at once (etcd applies them in turn; the round trips overlap), so memory is bounded by
// `inFlight` batches whatever the store's size. Also: removing what a failed migration wrote,
// and only that; and advancing etcd's revision before the copy.

import { MigrationError } from './migration-error.js';
import type { EtcdPrefix } from './etcd-range.js';

export interface WriterLimits {
  /** Puts per transaction (etcd's --max-txn-ops defaults to 128). */
  maxOps?: number;
  /** Value bytes per transaction (etcd's --max-request-bytes defaults to 1.5 MiB). */
  maxBytes?: number;
  /** Transactions in flight at once. */
  inFlight?: number;
}

interface Put {
  key: Buffer;
  value: Buffer;
}

export class GuardedWriter {
  private batch: Put[] = [];
  private batchBytes = 0;
  private readonly running = new Set<Promise<void>>();
  private failure: MigrationError | undefined;
  private readonly maxOps: number;
  private readonly maxBytes: number;
  private readonly inFlight: number;
  /** Keys etcd has acknowledged. */
  written = 0;

  constructor(
    private readonly target: EtcdPrefix,
    limits: WriterLimits = {},
  ) {
    this.maxOps = limits.maxOps ?? 100;
    this.maxBytes = limits.maxBytes ?? 1024 * 1024;
    this.inFlight = limits.inFlight ?? 4;
  }

  /** Queues one key (store-side name); waits only while the pipeline is full. */
  async add(key: string, value: Uint8Array): Promise<void> {
    this.check();
    const put = { key: this.target.keys.toEtcd(key), value: Buffer.from(value.buffer, value.byteOffset, value.byteLength) };
    if (this.batch.length && (this.batch.length >= this.maxOps || this.batchBytes + put.value.byteLength > this.maxBytes)) await this.send();
    this.batch.push(put);
    this.batchBytes += put.value.byteLength;
  }

  /** Sends what is queued and waits for every transaction; throws the first failure. */
  async flush(): Promise<void> {
    if (this.batch.length) await this.send();
    await Promise.all(this.running);
    this.check();
  }

  /** Waits for every transaction in flight to end, however it ends (before cleaning up after a failure). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.running]);
  }

  private check(): void {
    if (this.failure) throw this.failure;
  }

  private async send(): Promise<void> {
    const batch = this.batch;
    this.batch = [];
    this.batchBytes = 0;
    while (this.running.size >= this.inFlight) await Promise.race(this.running);
    this.check();
    const p = this.commit(batch).catch((err: unknown) => {
      this.failure ??= err instanceof MigrationError ? err : new MigrationError(String(err));
    });
    this.running.add(p);
    void p.then(() => this.running.delete(p));
  }

  private async commit(batch: Put[]): Promise<void> {
    const res = await this.target.call('write a batch of keys', () =>
      this.target.client.kv.txn({
        compare: batch.map((p) => ({ key: p.key, target: 'Create' as const, result: 'Equal' as const, create_revision: 0 })),
        success: batch.map((p) => ({ request_put: { key: p.key, value: p.value } })),
        failure: [],
      }),
    );
    if (!res.succeeded) throw new MigrationError(`${await this.firstExisting(batch)} already exists in etcd: something else is writing under the prefix; nothing was overwritten`);
    this.written += batch.length;
  }

  /** Which key of a refused batch exists (for the message). */
  private async firstExisting(batch: Put[]): Promise<string> {
    for (const p of batch) {
      const res = await this.target.call('read a key', () => this.target.client.kv.range({ key: p.key, count_only: true })).catch(() => undefined);
      if (res && Number(res.count) > 0) return `key ${p.key.toString()}`;
    }
    return 'a key of the batch';
  }
}

export interface Cleanup {
  /** Keys deleted. */
  removed: number;
  /** Keys still under the prefix afterwards, and a few of their names. */
  left: number;
  examples: string[];
}

/**
 * Deletes, under the prefix, every key this migration wrote: created after `emptyAt` (the
 * revision at which the prefix was found empty) and holding exactly the bytes the source has for
 * that key (`sourceValue`). Each delete is guarded by the key's mod revision, so a key changed
 * meanwhile is left alone. Reports what is left under the prefix, by name.
 */
export async function removeWritten(target: EtcdPrefix, emptyAt: number, sourceValue: (key: string) => Buffer | undefined): Promise<Cleanup> {
  let removed = 0;
  let doomed: { key: Buffer; mod: number }[] = [];
  const flush = async (): Promise<void> => {
    if (!doomed.length) return;
    const batch = doomed;
    doomed = [];
    if (await guardedDelete(batch)) removed += batch.length;
    // One key changed meanwhile fails its batch: then key by key, leaving only the changed ones.
    else for (const d of batch) if (await guardedDelete([d])) removed++;
  };
  const guardedDelete = async (batch: { key: Buffer; mod: number }[]): Promise<boolean> => {
    const res = await target.call('delete what the migration wrote', () =>
      target.client.kv.txn({
        compare: batch.map((d) => ({ key: d.key, target: 'Mod' as const, result: 'Equal' as const, mod_revision: d.mod })),
        success: batch.map((d) => ({ request_delete_range: { key: d.key } })),
        failure: [],
      }),
    );
    return res.succeeded;
  };
  for await (const page of target.pages()) {
    for (const kv of page) {
      const mine = kv.createRevision > emptyAt && sourceValue(kv.key)?.equals(kv.value) === true;
      if (mine) doomed.push({ key: target.keys.toEtcd(kv.key), mod: kv.modRevision });
      if (doomed.length >= 100) await flush();
    }
  }
  await flush();
  const examples: string[] = [];
  let left = 0;
  for await (const page of target.pages()) {
    left += page.length;
    for (const kv of page) if (examples.length < 3) examples.push(target.keys.toEtcd(kv.key).toString());
  }
  return { removed, left, examples };
}

/** A key outside every object prefix (as kube's compact_rev_key): written to advance etcd's revision. */
export const PADDING_KEY = 'platform-apiserver-migrate-revision-padding';

/**
 * Advances etcd's revision from `current` to at least `past`, so that what is written next gets
 * revisions above every resourceVersion the source ever handed out (each write is one revision;
 * etcd has no cheaper way). Writes one key outside the objects' tree and deletes it; returns the
 * number of writes.
 */
export async function advanceRevision(target: EtcdPrefix, current: number, past: number, inFlight = 256): Promise<number> {
  const key = Buffer.from(PADDING_KEY);
  // The final delete is a revision too.
  let remaining = past - current;
  if (remaining <= 0) return 0;
  const writes = remaining;
  // The first failure stops every writer, and all are waited for before it is thrown: the
  // caller's cleanup (deleting the padding key) must not race writes still going on.
  let failed = false;
  const results = await Promise.allSettled(
    Array.from({ length: Math.min(inFlight, remaining) }, async () => {
      try {
        while (!failed && remaining-- > 1) await target.call('advance the revision', () => target.client.kv.put({ key, value: Buffer.from('0') }));
      } catch (err) {
        failed = true;
        throw err;
      }
    }),
  );
  const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure) throw failure.reason;
  await target.call('advance the revision', () => target.client.kv.deleteRange({ key }));
  return writes;
}
