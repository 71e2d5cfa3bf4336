// The randomized watch checker on etcd with two replicas: two API-server stacks (store, watch
// cache, registry) on one 3-member etcd, writers spread over both, watchers spread over both
// that resume on the OTHER replica from their last resourceVersion, and one etcd member stopped
// and restarted in the middle. At the end every watcher's events must equal what etcd's own
// history says it should have seen for its filter: same order, no gap, no duplicate.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { internalContext, silentLogger } from '../../src/apimachinery/request-context.js';
import { GenericStore, keyPrefixOf } from '../../src/registry/generic-store.js';
import { serviceCIDRs } from '../../src/resources/servicecidrs/index.js';
import type { ServiceCIDR } from '../../src/resources/servicecidrs/types.js';
import { EtcdStore } from '../../src/storage/etcd/etcd-store.js';
import { WatchCache } from '../../src/storage/cache/watch-cache.js';
import { requireEtcd, startEtcdCluster, type EtcdCluster } from '../support/etcd-process.js';
import { expectedEvents, rng, WATCHER_SPECS, randomWrite, replayHistory, watchSession, type Seen } from '../support/watch-history.js';

const ctx = () => internalContext({ username: 'admin', groups: ['system:masters'] }, silentLogger);
/** Failures a client retries: the object raced away (404, 409), or etcd was briefly unreachable (503, 504). */
const RETRIABLE = [404, 409, 503, 504];

const haveEtcd = requireEtcd('the etcd watch checker runs two replicas on a real 3-member etcd') !== undefined;
let etcd: EtcdCluster | undefined;
after(async () => etcd?.stop());

test('randomized writers and watchers over two replicas, across an etcd member restart, see exactly the history', { skip: !haveEtcd, timeout: 180_000 }, async () => {
  const seed = Number(process.env.WATCH_CHECKER_SEED ?? Date.now() % 100000);
  const random = rng(seed);
  etcd = await startEtcdCluster({ size: 3 });
  const prefix = keyPrefixOf(serviceCIDRs);
  const replica = async () => {
    const store = new EtcdStore({ servers: etcd!.endpoints.split(','), prefix: `/checker-${process.pid}` });
    const cache = await WatchCache.start({ store, prefix });
    const registry = new GenericStore<ServiceCIDR>({ definition: serviceCIDRs, strategy: serviceCIDRs.strategy, subresource: '', storage: cache, admission: [] });
    return { store, cache, registry };
  };
  const replicas = [await replica(), await replica()];
  // A write outside the prefix, so that watches start from a real revision.
  const startRv = (await replicas[0]!.store.optimisticPut('/registry/seed', new Uint8Array([1]), 0)).revision;

  const specs = WATCHER_SPECS;
  const seen: Seen[][] = specs.map(() => []);
  const stopAll = new AbortController();

  const runWatcher = async (i: number): Promise<void> => {
    const spec = specs[i]!;
    let lastRv = startRv;
    let on = i % 2;
    while (!stopAll.signal.aborted) {
      const registry = replicas[on]!.registry;
      const open = (resourceVersion: string, labelSelector: string | undefined, signal: AbortSignal) => registry.watch(ctx(), { resourceVersion, labelSelector }, signal);
      lastRv = (await watchSession(open, spec, lastRv, seen[i]!, stopAll.signal, [503, 504])).lastRv;
      on = 1 - on; // resume on the other replica
      await new Promise((r) => setTimeout(r, 1));
    }
  };

  let writesDone = 0;
  const write = async (): Promise<void> => {
    if (await randomWrite(replicas[Math.floor(random() * 2)]!.registry, random, RETRIABLE)) writesDone++;
  };
  const writers = (rounds: number) =>
    Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let k = 0; k < rounds; k++) await write();
      }),
    );

  const watchers = specs.map((_, i) => runWatcher(i));
  await writers(40);
  // One member restarts in the middle of the traffic: streams on it move to the others.
  const member = etcd.members[Math.floor(random() * 3)]!;
  await Promise.all([writers(20), member.stop().then(() => new Promise((r) => setTimeout(r, 500))).then(() => member.start())]);
  await writers(40);
  const endRv = await replicas[1]!.store.currentRevision();

  // Ground truth: etcd's own history, replayed.
  const changes = await replayHistory(replicas[0]!.store, prefix, startRv, endRv, 20_000);
  const wants = specs.map((spec) => expectedEvents(changes, startRv, spec.color));
  for (let t = 0; t < 600 && seen.some((s, i) => s.length < wants[i]!.length); t++) await new Promise((r) => setTimeout(r, 25));
  stopAll.abort();
  await Promise.all(watchers);
  for (const r of replicas) {
    await r.cache.close();
    await r.store.close();
  }

  assert.ok(changes.length > 100, `enough traffic (${changes.length} changes, ${writesDone} writes acknowledged, seed ${seed})`);
  specs.forEach((spec, i) => assert.deepEqual(seen[i], wants[i], `watcher ${i} (${JSON.stringify(spec)}) diverged; seed ${seed}`));
});
