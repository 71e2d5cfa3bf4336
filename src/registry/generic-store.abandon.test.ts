// Where the generic store stops the work of a request nobody waits for any more (abandon.ts),
// found unpinned by mutation testing (issue #35): before a round's admission and computing, and
// again just before the write, so an abandoned request neither runs admission nor writes.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AdmissionPlugin } from '../apimachinery/admission.js';
import { internalContext, silentLogger, type RequestContext } from '../apimachinery/request-context.js';
import { isStatusError } from '../apimachinery/status-error.js';
import { GenericStore } from './generic-store.js';
import { MemoryStore } from '../storage/sqlite/memory-store.js';
import { serviceCIDRs } from '../resources/servicecidrs/index.js';
import type { ServiceCIDR } from '../resources/servicecidrs/types.js';

const admin = { username: 'admin', groups: ['system:masters'] };
const ctx = (): RequestContext => internalContext(admin, silentLogger);
/** A request abandoned from the `from`-th time the store asks (1: from the start). */
const abandonedFrom = (from: number): RequestContext => {
  let asked = 0;
  return { ...ctx(), abandoned: () => ++asked >= from };
};
const opts = { fieldManager: 'test' };

function setup() {
  const storage = new MemoryStore();
  const admitted: string[] = [];
  const recorder: AdmissionPlugin = { name: 'Recorder', validate: async (a) => void admitted.push(`${a.operation} ${a.name}`) };
  const main = new GenericStore<ServiceCIDR>({ definition: serviceCIDRs, strategy: serviceCIDRs.strategy, subresource: '', storage, admission: [recorder] });
  return { storage, main, admitted };
}

const sc = (name: string, extra: Partial<ServiceCIDR['metadata']> = {}): ServiceCIDR => ({
  apiVersion: 'networking.platform.io/v1',
  kind: 'ServiceCIDR',
  metadata: { name, ...extra },
  spec: { cidrs: ['10.0.0.0/24'] },
});

const timedOut = (p: Promise<unknown>) =>
  assert.rejects(p, (e: unknown) => {
    assert.ok(isStatusError(e), String(e));
    assert.deepEqual([e.code, e.message], [504, 'Timeout: request did not complete within the allotted timeout']);
    return true;
  });

describe('GenericStore and an abandoned request', () => {
  test('a create: abandoned before the round, no admission; before the write, nothing stored', async () => {
    const { main, admitted } = setup();
    await timedOut(main.create(abandonedFrom(1), sc('a'), opts));
    assert.deepEqual(admitted, []);
    await timedOut(main.create(abandonedFrom(2), sc('a'), opts));
    assert.deepEqual(admitted, ['CREATE a']);
    await assert.rejects(main.get(ctx(), 'a', {}), (e: unknown) => isStatusError(e) && e.code === 404);
  });

  test('an update: abandoned before the round, the update function is not called; before the write, nothing changes', async () => {
    const { main } = setup();
    const created = await main.create(ctx(), sc('a'), opts);
    let called = 0;
    const relabel = (cur: ServiceCIDR | undefined) => (called++, { ...cur!, metadata: { ...cur!.metadata, labels: { l: 'v' } } });
    await timedOut(main.update(abandonedFrom(1), 'a', relabel, opts));
    assert.equal(called, 0);
    await timedOut(main.update(abandonedFrom(2), 'a', relabel, opts));
    assert.equal(called, 1);
    assert.deepEqual(await main.get(ctx(), 'a', {}), created);
  });

  test('a delete: abandoned before the round, no admission; before the delete or the mark, the object stays as it was', async () => {
    const { main, admitted } = setup();
    const plain = await main.create(ctx(), sc('plain'), opts);
    const held = await main.create(ctx(), sc('held', { finalizers: ['example.com/hold'] }), opts);
    admitted.length = 0;
    await timedOut(main.delete(abandonedFrom(1), 'plain', {}));
    assert.deepEqual(admitted, []);
    await timedOut(main.delete(abandonedFrom(2), 'plain', {}));
    await timedOut(main.delete(abandonedFrom(2), 'held', {}));
    assert.deepEqual(admitted, ['DELETE plain', 'DELETE held']);
    assert.deepEqual(await main.get(ctx(), 'plain', {}), plain);
    assert.deepEqual(await main.get(ctx(), 'held', {}), held);
  });

  test('a list stops before reading a page', async () => {
    const { main } = setup();
    await main.create(ctx(), sc('a'), opts);
    await timedOut(main.list(abandonedFrom(1), {}));
  });
});
