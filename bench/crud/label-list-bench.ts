// A label-selected list of 100 among 100,000 objects through the registry and the watch cache,
// beside the unselected `limit=100` page of the same collection (both lists/s, in process, the
// read path without HTTPS), with the cache's label index and without it (every object's labels
// matched: the cost before the index). Also the index's memory per object (heap after a full GC,
// measured before and after the index is built, every object already decoded by a full list).

import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { internalContext, silentLogger } from '../../src/apimachinery/request-context.js';
import type { KubeObject } from '../../src/apimachinery/object-meta.js';
import { GenericStore, keyPrefixOf } from '../../src/registry/generic-store.js';
import { decodeShared, encodeObject } from '../../src/registry/object-codec.js';
import { serviceCIDRs } from '../../src/resources/servicecidrs/index.js';
import type { ServiceCIDR } from '../../src/resources/servicecidrs/types.js';
import { MemoryStore } from '../../src/storage/sqlite/memory-store.js';
import { WatchCache } from '../../src/storage/cache/watch-cache.js';

export interface LabelListBenchResult {
  objects: number;
  selected: number;
  /** Unselected `limit=100` page, lists/s. */
  pagePerSecond: number;
  /** The selected list with the label index, lists/s. */
  indexedPerSecond: number;
  /** The selected list with every object's labels matched (no index), lists/s. */
  scanPerSecond: number;
  /** Heap the index adds per object (bytes). */
  indexBytesPerObject: number;
  /** The first selected list, which builds the index (ms). */
  buildMs: number;
}

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapAfterGc = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

/** Lists/s of `fn` over at least `ms` (at least 3 calls). */
async function rate(fn: () => Promise<unknown>, ms: number): Promise<number> {
  await fn();
  let n = 0;
  const start = performance.now();
  while (n < 3 || performance.now() - start < ms) {
    await fn();
    n++;
  }
  return (n * 1000) / (performance.now() - start);
}

export async function benchLabelSelectedList(objects = 100_000, selected = 100, ms = 2000): Promise<LabelListBenchResult> {
  const store = new MemoryStore();
  const prefix = keyPrefixOf(serviceCIDRs);
  const ctx = internalContext({ username: 'bench', groups: ['system:masters'] }, silentLogger);
  const every = Math.floor(objects / selected);
  // Written straight to the store (as the registry stores them): the bench measures reads.
  for (let i = 0; i < objects; i++) {
    const name = `label-bench-${String(i).padStart(6, '0')}`;
    const labels: Record<string, string> = { app: 'bench', shard: String(i % 16), 'pod-template-hash': `h${i}` };
    if (i % every === 0) labels.tier = 'selected';
    const obj = { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name, labels, uid: `uid-${i}`, creationTimestamp: '2026-01-01T00:00:00Z' }, spec: { cidrs: [`10.${(i >> 8) & 255}.${i & 255}.0/24`] } };
    await store.optimisticPut(prefix + name, encodeObject(obj as KubeObject), 0);
  }
  const labelsOf = (kv: Parameters<typeof decodeShared>[0]) => decodeShared<KubeObject>(kv).metadata.labels;
  const indexed = await WatchCache.start({ store, prefix, labelsOf });
  const scanning = await WatchCache.start({ store, prefix });
  const reader = (storage: WatchCache) => new GenericStore<ServiceCIDR>({ definition: serviceCIDRs, strategy: serviceCIDRs.strategy, subresource: '', storage, admission: [] });
  const withIndex = reader(indexed);
  const withoutIndex = reader(scanning);
  const selectedList = (r: GenericStore<ServiceCIDR>) => async () => {
    const out = await r.list(ctx, { labelSelector: 'tier=selected,app=bench', limit: 500 });
    if (out.items.length !== selected) throw new Error(`selected ${out.items.length} of ${selected}`);
  };
  try {
    // Every object decoded once (as any full list does), so the heap step below is the index's.
    await withIndex.list(ctx, {});
    const before = heapAfterGc();
    let t = performance.now();
    await selectedList(withIndex)();
    const buildMs = performance.now() - t;
    const indexBytesPerObject = (heapAfterGc() - before) / objects;
    const pagePerSecond = await rate(() => withIndex.list(ctx, { limit: 100 }), ms);
    const indexedPerSecond = await rate(selectedList(withIndex), ms);
    const scanPerSecond = await rate(selectedList(withoutIndex), ms);
    return { objects, selected, pagePerSecond, indexedPerSecond, scanPerSecond, indexBytesPerObject, buildMs };
  } finally {
    await indexed.close();
    await scanning.close();
    await store.close();
  }
}
