// What a watcher must have seen, computed from the store's own history: the ground truth of the
// randomized watch checkers. Kube's selector transitions: a change that moves an object into a
// label filter is ADDED, out of it DELETED, within it MODIFIED.

import type { KubeObject } from '../../src/apimachinery/object-meta.js';
import { internalContext, silentLogger } from '../../src/apimachinery/request-context.js';
import { isStatusError } from '../../src/apimachinery/status-error.js';
import type { RestStorage, ObjectWatchEvent } from '../../src/registry/rest-storage.js';
import type { ServiceCIDR } from '../../src/resources/servicecidrs/types.js';
import type { RevisionedStore } from '../../src/storage/revisioned-store.js';

export interface Seen {
  type: string;
  name: string;
  rv: number;
}

export interface Change {
  rv: number;
  name: string;
  /** The label value before the change (undefined: the object did not exist). */
  before?: string;
  /** The label value after (undefined: deleted). */
  after?: string;
}

/** The events a watcher filtering on `color` (or nothing) must see for the changes after `fromRv`. */
export function expectedEvents(history: readonly Change[], fromRv: number, color: string | undefined): Seen[] {
  const out: Seen[] = [];
  for (const c of history) {
    if (c.rv <= fromRv) continue;
    const was = c.before !== undefined && (color === undefined || c.before === color);
    const is = c.after !== undefined && (color === undefined || c.after === color);
    if (was && is) out.push({ type: 'MODIFIED', name: c.name, rv: c.rv });
    else if (is) out.push({ type: 'ADDED', name: c.name, rv: c.rv });
    else if (was) out.push({ type: 'DELETED', name: c.name, rv: c.rv });
  }
  return out;
}

/** A deterministic PRNG, so a failure can be replayed from its seed. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

/** The checkers' watchers: a label filter or none, slow or not, restarting every n events or not. */
export const WATCHER_SPECS: readonly { color?: string; slow: boolean; restartEvery?: number }[] = [
  { slow: false },
  { slow: true },
  { color: 'red', slow: false },
  { color: 'blue', slow: true },
  { slow: false, restartEvery: 5 },
  { color: 'red', slow: false, restartEvery: 3 },
];

export type WatcherSpec = (typeof WATCHER_SPECS)[number];


/**
 * One watch session of a checker's watcher: opens a watch from `fromRv` (with the spec's label
 * filter), records every event into `seen` until the watch ends, `stopAll` aborts or the spec's
 * restart count is reached. A Status error whose code is in `endsSession` ends the session (the
 * watcher resumes); any other error is a failure. Returns the last revision seen and that code.
 */
export async function watchSession(
  open: (resourceVersion: string, labelSelector: string | undefined, signal: AbortSignal) => Promise<AsyncIterable<ObjectWatchEvent<KubeObject>>>,
  spec: WatcherSpec,
  fromRv: number,
  seen: Seen[],
  stopAll: AbortSignal,
  endsSession: readonly number[],
): Promise<{ lastRv: number; endedWith?: number }> {
  let lastRv = fromRv;
  const mine = new AbortController();
  const stop = () => mine.abort();
  stopAll.addEventListener('abort', stop, { once: true });
  try {
    const watch = await open(String(lastRv), spec.color ? `color=${spec.color}` : undefined, mine.signal);
    let count = 0;
    for await (const e of watch) {
      if (e.type === 'BOOKMARK') continue;
      const rv = Number(e.object.metadata.resourceVersion);
      seen.push({ type: e.type, name: e.object.metadata.name!, rv });
      lastRv = rv;
      if (spec.slow) await new Promise((r) => setTimeout(r, 2));
      if (spec.restartEvery && ++count % spec.restartEvery === 0) break;
    }
    return { lastRv };
  } catch (err) {
    if (!(isStatusError(err) && endsSession.includes(err.code))) throw err;
    return { lastRv, endedWith: err.code };
  } finally {
    stopAll.removeEventListener('abort', stop);
    mine.abort();
  }
}

const checkerContext = () => internalContext({ username: 'admin', groups: ['system:masters'] }, silentLogger);
const NAMES = Array.from({ length: 12 }, (_, i) => `obj-${i}`);
const COLORS = ['red', 'blue'];

/**
 * One random write of the checkers' traffic: create, relabel or delete one of a few names with a
 * random color. A Status error whose code is in `tolerated` (the object missing or taken, a
 * store briefly away) is part of the traffic; any other fails. True when the write was applied.
 */
export async function randomWrite(registry: RestStorage<ServiceCIDR>, random: () => number, tolerated: readonly number[]): Promise<boolean> {
  const name = NAMES[Math.floor(random() * NAMES.length)]!;
  const color = COLORS[Math.floor(random() * COLORS.length)]!;
  const action = random();
  const n = String(Math.floor(random() * 1000));
  const opts = { fieldManager: 'checker' };
  try {
    if (action < 0.4) {
      await registry.create(checkerContext(), { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name, labels: { color } }, spec: { cidrs: ['10.0.0.0/8'] } }, opts);
    } else if (action < 0.8) {
      await registry.update(checkerContext(), name, (cur) => ({ ...cur!, metadata: { ...cur!.metadata, resourceVersion: undefined, labels: { color, n } } }), opts);
    } else {
      await registry.delete(checkerContext(), name, {});
    }
    return true;
  } catch (err) {
    if (!(isStatusError(err) && tolerated.includes(err.code))) throw err;
    return false;
  }
}

/** The ground truth: the store's own history under `prefix` after `startRv`, up to `endRv`, as color changes. */
export async function replayHistory(store: RevisionedStore, prefix: string, startRv: number, endRv: number, timeoutMs: number): Promise<Change[]> {
  const changes: Change[] = [];
  const colorOf = (v: Uint8Array | undefined) => (v?.length ? (JSON.parse(new TextDecoder().decode(v)) as ServiceCIDR).metadata.labels?.color : undefined);
  for await (const e of store.watch(prefix, { afterRevision: startRv, signal: AbortSignal.timeout(timeoutMs) })) {
    if (e.type === 'progress') continue;
    const name = (e.type === 'put' ? e.kv.key : e.key).slice(prefix.length);
    changes.push({ rv: e.revision, name, before: e.prevKv ? colorOf(e.prevKv.value) : undefined, after: e.type === 'put' ? colorOf(e.kv.value) : undefined });
    if (e.revision >= endRv) break;
  }
  return changes;
}
