// Lists selected by labels through the registry and a watch cache with its label index, checked
// against brute force (every stored object matched by the selector) for random stores, random
// selectors, random page sizes (following continue), after random changes the index must follow,
// and at an older resourceVersion (then the store answers and the registry filters).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { internalContext, silentLogger } from '../../src/apimachinery/request-context.js';
import { parseLabelSelector } from '../../src/apimachinery/label-selector.js';
import type { KubeObject } from '../../src/apimachinery/object-meta.js';
import { GenericStore, keyPrefixOf } from '../../src/registry/generic-store.js';
import { decodeShared, encodeObject } from '../../src/registry/object-codec.js';
import { serviceCIDRs } from '../../src/resources/servicecidrs/index.js';
import type { ServiceCIDR } from '../../src/resources/servicecidrs/types.js';
import { MemoryStore } from '../../src/storage/sqlite/memory-store.js';
import { WatchCache } from '../../src/storage/cache/watch-cache.js';

const prefix = keyPrefixOf(serviceCIDRs);
const ctx = internalContext({ username: 'test', groups: ['system:masters'] }, silentLogger);

type Labels = Record<string, string>;
const labelsArb: fc.Arbitrary<Labels> = fc.dictionary(fc.constantFrom('a', 'b', 'c'), fc.constantFrom('x', 'y', 'z'), { maxKeys: 3 });
const nameArb = fc.stringMatching(/^[a-z][a-z0-9]{0,5}$/);
const requirementArb = fc.constantFrom('a=x', 'a==y', 'b=z', 'b in (x,y)', 'c in (z)', 'a in (x,y,z)', 'c notin (x)', 'a!=y', 'b', '!c', 'c=q', 'd in (x)', 'b in (y,y,z)');
const selectorArb = fc.uniqueArray(requirementArb, { minLength: 1, maxLength: 3, selector: (r) => r.split(/[ =!]/)[0]! + (r.includes('!') ? '!' : '') }).map((rs) => rs.join(','));
const changeArb = fc.record({ name: nameArb, labels: fc.option(labelsArb, { nil: undefined }) });

function objectOf(name: string, labels: Labels): KubeObject {
  return { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name, labels }, spec: { cidrs: ['10.0.0.0/24'] } } as KubeObject;
}

/** Every object in the store at `revision` (or now) matched by `selector`, in name (store) order. */
async function bruteForce(store: MemoryStore, selector: string, revision?: number): Promise<string[]> {
  const s = parseLabelSelector(selector);
  const all = await store.list(prefix, revision ? { revision } : {});
  return all.kvs.filter((kv) => s.matches(decodeShared<KubeObject>(kv).metadata.labels)).map((kv) => kv.key.slice(prefix.length));
}

/** The names a paged list returns, following continue. */
async function listed(reader: GenericStore<ServiceCIDR>, labelSelector: string, limit: number, resourceVersion?: string): Promise<string[]> {
  const names: string[] = [];
  let token: string | undefined;
  for (let pages = 0; ; pages++) {
    assert.ok(pages < 1000, 'the pages end');
    const page = await reader.list(ctx, { labelSelector, limit, continue: token, ...(resourceVersion && !token ? { resourceVersion, resourceVersionMatch: 'Exact' } : {}) });
    names.push(...page.items.map((o) => o.metadata.name!));
    token = page.continue;
    if (!token) return names;
  }
}

test('label-selected lists from the label index equal brute force, paged, after changes, and at an older revision', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.dictionary(nameArb, labelsArb, { maxKeys: 40 }),
      fc.array(selectorArb, { minLength: 1, maxLength: 4 }),
      fc.integer({ min: 0, max: 7 }),
      fc.array(changeArb, { maxLength: 15 }),
      async (initial, selectors, limit, changes) => {
        const store = new MemoryStore();
        const cache = await WatchCache.start({ store, prefix, labelsOf: (kv) => decodeShared<KubeObject>(kv).metadata.labels });
        const reader = new GenericStore<ServiceCIDR>({ definition: serviceCIDRs, strategy: serviceCIDRs.strategy, subresource: '', storage: cache, admission: [] });
        try {
          for (const [name, labels] of Object.entries(initial)) await store.optimisticPut(prefix + name, encodeObject(objectOf(name, labels)), 0);
          const before = await store.currentRevision();
          // The first selected list builds the index; the changes after it are applied to it.
          for (const sel of selectors) assert.deepEqual(await listed(reader, sel, limit), await bruteForce(store, sel), `selector ${sel}, limit ${limit}`);
          for (const c of changes) {
            const current = (await store.get(prefix + c.name)).kv;
            if (c.labels === undefined) {
              if (current) await store.optimisticDelete(prefix + c.name, current.modRevision);
            } else await store.optimisticPut(prefix + c.name, encodeObject(objectOf(c.name, c.labels)), current?.modRevision ?? 0);
          }
          for (const sel of selectors) {
            assert.deepEqual(await listed(reader, sel, limit), await bruteForce(store, sel), `after changes: selector ${sel}, limit ${limit}`);
            if (before > 0) assert.deepEqual(await listed(reader, sel, limit, String(before)), await bruteForce(store, sel, before), `at ${before}: selector ${sel}`);
          }
        } finally {
          await cache.close();
          await store.close();
        }
      },
    ),
    { numRuns: 60 },
  );
});

test('a page of a label-selected list stays at its revision while the index changes under it', async () => {
  const store = new MemoryStore();
  const cache = await WatchCache.start({ store, prefix, labelsOf: (kv) => decodeShared<KubeObject>(kv).metadata.labels });
  const reader = new GenericStore<ServiceCIDR>({ definition: serviceCIDRs, strategy: serviceCIDRs.strategy, subresource: '', storage: cache, admission: [] });
  try {
    for (let i = 0; i < 10; i++) await store.optimisticPut(`${prefix}n${i}`, encodeObject(objectOf(`n${i}`, { app: i % 2 ? 'odd' : 'even' })), 0);
    const first = await reader.list(ctx, { labelSelector: 'app=even', limit: 2 });
    assert.deepEqual(first.items.map((o) => o.metadata.name), ['n0', 'n2']);
    // n4 leaves the selection and n5 joins it after the first page: the next pages are read at
    // the first page's revision, so they still show the snapshot.
    const n4 = (await store.get(`${prefix}n4`)).kv!;
    await store.optimisticPut(`${prefix}n4`, encodeObject(objectOf('n4', { app: 'odd' })), n4.modRevision);
    const n5 = (await store.get(`${prefix}n5`)).kv!;
    await store.optimisticPut(`${prefix}n5`, encodeObject(objectOf('n5', { app: 'even' })), n5.modRevision);
    const rest: string[] = [];
    for (let token = first.continue; token; ) {
      const page = await reader.list(ctx, { labelSelector: 'app=even', limit: 2, continue: token });
      assert.equal(page.resourceVersion, first.resourceVersion);
      rest.push(...page.items.map((o) => o.metadata.name!));
      token = page.continue;
    }
    assert.deepEqual(rest, ['n4', 'n6', 'n8']);
    const now = await reader.list(ctx, { labelSelector: 'app=even' });
    assert.deepEqual(now.items.map((o) => o.metadata.name), ['n0', 'n2', 'n5', 'n6', 'n8']);
  } finally {
    await cache.close();
    await store.close();
  }
});

test('a list selected by metadata.name reads only that key, and equals brute force (names that prefix others too)', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.dictionary(fc.constantFrom('a', 'ab', 'abc', 'b', 'ba', 'a-1'), labelsArb, { maxKeys: 6 }),
      fc.constantFrom('a', 'ab', 'b', 'zz', 'a-1', ''),
      fc.constantFrom('', 'a=x', 'b in (x,y)'),
      fc.integer({ min: 0, max: 2 }),
      async (initial, name, labelSelector, limit) => {
        const store = new MemoryStore();
        const cache = await WatchCache.start({ store, prefix, labelsOf: (kv) => decodeShared<KubeObject>(kv).metadata.labels });
        const reader = new GenericStore<ServiceCIDR>({ definition: serviceCIDRs, strategy: serviceCIDRs.strategy, subresource: '', storage: cache, admission: [] });
        try {
          for (const [n, labels] of Object.entries(initial)) await store.optimisticPut(prefix + n, encodeObject(objectOf(n, labels)), 0);
          const read: string[] = [];
          const list = cache.list.bind(cache);
          cache.list = (p, o) => {
            read.push(p);
            return list(p, o);
          };
          const s = parseLabelSelector(labelSelector);
          const expected = Object.entries(initial)
            .filter(([n, labels]) => n === name && s.matches(labels))
            .map(([n]) => n);
          const names: string[] = [];
          let token: string | undefined;
          do {
            const page = await reader.list(ctx, { fieldSelector: `metadata.name=${name}`, labelSelector, limit, continue: token });
            names.push(...page.items.map((o) => o.metadata.name!));
            token = page.continue;
          } while (token);
          assert.deepEqual(names, expected);
          assert.deepEqual([...new Set(read)], [prefix + name], 'only keys starting with the name are read');
        } finally {
          await cache.close();
          await store.close();
        }
      },
    ),
    { numRuns: 60 },
  );
});
