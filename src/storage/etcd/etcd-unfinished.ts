// The mark of an etcd prefix a command is filling (`migrate --to-etcd-servers`): a key outside
// every object prefix (as kube's compact_rev_key), written in the same transaction that finds the
// prefix empty, and deleted in the transaction that ends the migration. While it exists, no server
// serves the prefix (etcd-store.ts checks it before its first object request; the server checks
// it at start), and the message names the command and what to run. Beside it, the key a running
// migration holds on a lease: gone within the lease's TTL once that process is gone.

import type { Etcd3 } from 'etcd3';
import { StorageError } from '../revisioned-store.js';
import { toStorageError } from './etcd-errors.js';

/** The unfinished mark of the store under `prefix` (etcd-side, without a trailing '/'). */
export const unfinishedKeyFor = (prefix: string): Buffer => Buffer.from(`platform-apiserver/unfinished${prefix}`);
/** Held on a lease by the migration filling `prefix` while it runs. */
export const ownerKeyFor = (prefix: string): Buffer => Buffer.from(`platform-apiserver/migrating${prefix}`);

export interface EtcdUnfinishedMark {
  /** The command line that fills the prefix (absolute paths), to run again. */
  command: string;
  pid: number;
  host: string;
  /** ISO 8601, UTC. */
  startedAt: string;
}

/** The mark's value. */
export const encodeMark = (mark: EtcdUnfinishedMark): Buffer => Buffer.from(JSON.stringify(mark));

function decodeMark(value: Buffer): EtcdUnfinishedMark {
  try {
    const m = JSON.parse(value.toString('utf8')) as Partial<EtcdUnfinishedMark>;
    if (typeof m.command === 'string') return { command: m.command, pid: Number(m.pid) || 0, host: String(m.host ?? ''), startedAt: String(m.startedAt ?? '') };
  } catch {
    // Not ours to read: still a mark.
  }
  return { command: 'platform-apiserver migrate', pid: 0, host: '', startedAt: '' };
}

/** The mark on `prefix`, with the revision it was written at; undefined when there is none. */
export async function readEtcdUnfinished(client: Etcd3, prefix: string): Promise<{ mark: EtcdUnfinishedMark; createRevision: number; modRevision: number } | undefined> {
  const res = await client.kv.range({ key: unfinishedKeyFor(prefix) });
  const kv = res.kvs[0];
  return kv ? { mark: decodeMark(kv.value), createRevision: Number(kv.create_revision), modRevision: Number(kv.mod_revision) } : undefined;
}

/** The one line a server (or a command refusing the prefix) says about a marked prefix. */
export function etcdUnfinishedMessage(prefix: string, mark: EtcdUnfinishedMark): string {
  const who = mark.pid ? ` (pid ${mark.pid}${mark.host ? ` on ${mark.host}` : ''}, started ${mark.startedAt})` : '';
  return (
    `etcd prefix ${prefix}/ holds an unfinished store: \`${mark.command}\`${who} did not finish or is still running; ` +
    `run that command again to finish it (it first removes what the interrupted run wrote), or remove what it wrote with ` +
    `\`etcdctl del --prefix ${prefix}/ && etcdctl del ${unfinishedKeyFor(prefix).toString()}\` (docs/migration.md)`
  );
}

/** A prefix a migration has not finished filling: never served (the message says what to run). */
export class UnfinishedPrefixError extends Error {
  override name = 'UnfinishedPrefixError';
}

/**
 * A store's check of its prefix's mark: until etcd has once shown no mark, every object request
 * asks first (and fails Unavailable while there is one); after that it costs nothing.
 */
export class UnfinishedGuard {
  private finished = false;
  private finishing: Promise<void> | undefined;

  constructor(
    private readonly client: Etcd3,
    private readonly prefix: string,
  ) {}

  async mark(): Promise<EtcdUnfinishedMark | undefined> {
    try {
      return (await readEtcdUnfinished(this.client, this.prefix))?.mark;
    } catch (err) {
      throw toStorageError(err);
    }
  }

  assertFinished(): Promise<void> {
    if (this.finished) return Promise.resolve();
    this.finishing ??= this.mark().then(
      (mark) => {
        this.finishing = undefined;
        if (mark) throw new StorageError('Unavailable', etcdUnfinishedMessage(this.prefix, mark));
        this.finished = true;
      },
      (err: unknown) => {
        this.finishing = undefined;
        throw err;
      },
    );
    return this.finishing;
  }

  /**
   * At start: throws, in one line naming the command to run, when etcd answers within `waitMs`
   * that the prefix is marked. An etcd that does not answer yet is left to assertFinished (the
   * server starts, not ready).
   */
  async refuseAtStart(waitMs = 2000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const mark = await Promise.race([
      this.mark().catch(() => undefined),
      new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), waitMs))),
    ]);
    clearTimeout(timer);
    if (mark) throw new UnfinishedPrefixError(etcdUnfinishedMessage(this.prefix, mark));
  }
}
