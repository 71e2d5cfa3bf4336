// Deleting an object with finalizers marks it (deletionTimestamp) instead of removing it; when
// the object changes between the read and the mark (a Conflict), the delete starts over from a
// fresh read with the caller's preconditions, a bounded number of times (kube's GuaranteedUpdate).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { internalContext, silentLogger } from '../../src/apimachinery/request-context.js';
import { isStatusError } from '../../src/apimachinery/status-error.js';
import { GenericStore } from '../../src/registry/generic-store.js';
import { MemoryStore } from '../../src/storage/sqlite/memory-store.js';
import { StorageError, type PutResult } from '../../src/storage/revisioned-store.js';
import { serviceCIDRs } from '../../src/resources/servicecidrs/index.js';
import type { ServiceCIDR } from '../../src/resources/servicecidrs/types.js';

const ctx = () => internalContext({ username: 'admin', groups: ['system:masters'] }, silentLogger);

/** A memory store whose puts can be made to lose the race: `beforePut` runs just before each. */
class RacingStore extends MemoryStore {
  beforePut: ((key: string) => Promise<void>) | undefined;
  puts = 0;
  override async optimisticPut(key: string, value: Uint8Array, expected: number): Promise<PutResult> {
    this.puts++;
    if (this.beforePut) await this.beforePut(key);
    return super.optimisticPut(key, value, expected);
  }
}

async function setup() {
  const storage = new RacingStore();
  const store = new GenericStore<ServiceCIDR>({ definition: serviceCIDRs, strategy: serviceCIDRs.strategy, subresource: '', storage, admission: [] });
  const created = await store.create(
    ctx(),
    { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'f', finalizers: ['example.com/hold'] }, spec: { cidrs: ['10.0.0.0/24'] } },
    { fieldManager: 'test' },
  );
  return { storage, store, created };
}

test('a Conflict while marking keeps the caller\'s resourceVersion precondition', async () => {
  const { storage, store, created } = await setup();
  let raced = false;
  storage.beforePut = async (key) => {
    if (raced) return;
    raced = true;
    // Someone relabels the object between the delete's read and its mark.
    const cur = await MemoryStore.prototype.get.call(storage, key);
    const obj = JSON.parse(new TextDecoder().decode(cur.kv!.value)) as ServiceCIDR;
    obj.metadata.labels = { moved: 'yes' };
    await MemoryStore.prototype.optimisticPut.call(storage, key, new TextEncoder().encode(JSON.stringify(obj)), cur.kv!.modRevision);
  };
  await assert.rejects(store.delete(ctx(), 'f', { preconditions: { resourceVersion: created.metadata.resourceVersion! } }), (e: unknown) => {
    assert.ok(isStatusError(e), String(e));
    assert.equal(e.code, 409);
    assert.match(e.message, /Precondition failed: ResourceVersion/);
    return true;
  });
  const after = await store.get(ctx(), 'f', {});
  assert.equal(after.metadata.deletionTimestamp, undefined, 'not marked against the precondition');
});

test('a mark that always loses the race ends in a Conflict after a bounded number of tries', { timeout: 30_000 }, async () => {
  const { storage, store } = await setup();
  storage.beforePut = async () => {
    throw new StorageError('Conflict', 'always behind');
  };
  storage.puts = 0;
  await assert.rejects(store.delete(ctx(), 'f', {}), (e: unknown) => isStatusError(e) && e.code === 409);
  assert.ok(storage.puts > 1 && storage.puts <= 101, `${storage.puts} tries`);
});
