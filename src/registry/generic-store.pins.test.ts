// Generic-store behaviours that mutation testing found pinned only end to end, or not at all
// (issue #35), pinned here on the memory backend: a create that carries a resourceVersion, a
// dry-run delete, creationTimestamp across an update, and the delete preconditions.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { internalContext, silentLogger, type RequestContext } from '../apimachinery/request-context.js';
import { isStatusError } from '../apimachinery/status-error.js';
import { GenericStore } from './generic-store.js';
import { MemoryStore } from '../storage/sqlite/memory-store.js';
import { serviceCIDRs } from '../resources/servicecidrs/index.js';
import type { ServiceCIDR } from '../resources/servicecidrs/types.js';

const ctx = (dryRun = false): RequestContext => ({ ...internalContext({ username: 'admin', groups: ['system:masters'] }, silentLogger), dryRun });
const opts = { fieldManager: 'test' };

function setup() {
  const storage = new MemoryStore();
  const main = new GenericStore<ServiceCIDR>({ definition: serviceCIDRs, strategy: serviceCIDRs.strategy, subresource: '', storage, admission: [] });
  return { storage, main };
}

const sc = (name: string, extra: Partial<ServiceCIDR['metadata']> = {}): ServiceCIDR => ({
  apiVersion: 'networking.platform.io/v1',
  kind: 'ServiceCIDR',
  metadata: { name, ...extra },
  spec: { cidrs: ['10.0.0.0/24'] },
});

const rejects = (p: Promise<unknown>, code: number, reason: string, message: string) =>
  assert.rejects(p, (e: unknown) => {
    assert.ok(isStatusError(e), String(e));
    assert.equal(e.code, code);
    assert.equal(e.reason, reason);
    assert.equal(e.message, message);
    return true;
  });

describe('GenericStore pins', () => {
  test('a create that carries metadata.resourceVersion is a 400, and stores nothing', async () => {
    const { main } = setup();
    await rejects(main.create(ctx(), sc('rv', { resourceVersion: '5' }), opts), 400, 'BadRequest', 'resourceVersion should not be set on objects to be created');
    await rejects(main.get(ctx(), 'rv', {}), 404, 'NotFound', 'servicecidrs.networking.platform.io "rv" not found');
  });

  test('a dry-run delete answers as a delete would and removes nothing', async () => {
    const { main } = setup();
    const created = await main.create(ctx(), sc('keep'), opts);
    const out = await main.delete(ctx(true), 'keep', {});
    assert.equal(out.deleted, true);
    assert.equal(out.object.metadata.uid, created.metadata.uid);
    assert.deepEqual(await main.get(ctx(), 'keep', {}), created);
  });

  test('a dry-run delete of an object with finalizers does not mark it', async () => {
    const { main } = setup();
    const created = await main.create(ctx(), sc('held', { finalizers: ['example.com/hold'] }), opts);
    const out = await main.delete(ctx(true), 'held', {});
    assert.equal(out.deleted, false);
    assert.ok(out.object.metadata.deletionTimestamp);
    const stored = await main.get(ctx(), 'held', {});
    assert.equal(stored.metadata.deletionTimestamp, undefined);
    assert.equal(stored.metadata.resourceVersion, created.metadata.resourceVersion);
  });

  test('an update keeps the stored creationTimestamp, whatever the client sends', async () => {
    const { main } = setup();
    const created = await main.create(ctx(), sc('ts'), opts);
    const changed = await main.update(
      ctx(),
      'ts',
      (cur) => ({ ...cur!, metadata: { ...cur!.metadata, labels: { a: 'b' }, creationTimestamp: '2000-01-01T00:00:00Z' } }),
      opts,
    );
    assert.equal(changed.object.metadata.creationTimestamp, created.metadata.creationTimestamp);
    const dropped = await main.update(
      ctx(),
      'ts',
      (cur) => {
        const { creationTimestamp: _, ...metadata } = cur!.metadata;
        return { ...cur!, metadata: { ...metadata, labels: { a: 'c' } } };
      },
      opts,
    );
    assert.equal(dropped.object.metadata.creationTimestamp, created.metadata.creationTimestamp);
    assert.equal((await main.get(ctx(), 'ts', {})).metadata.creationTimestamp, created.metadata.creationTimestamp);
  });

  test('delete preconditions: a differing resourceVersion or uid is a 409 with kube\'s message; matching ones delete', async () => {
    const { main } = setup();
    const created = await main.create(ctx(), sc('p'), opts);
    const rv = created.metadata.resourceVersion!;
    await rejects(
      main.delete(ctx(), 'p', { preconditions: { resourceVersion: `${rv}0` } }),
      409,
      'Conflict',
      `Operation cannot be fulfilled on servicecidrs.networking.platform.io "p": Precondition failed: ResourceVersion in precondition: ${rv}0, ResourceVersion in meta: ${rv}`,
    );
    await rejects(
      main.delete(ctx(), 'p', { preconditions: { uid: 'other', resourceVersion: rv } }),
      409,
      'Conflict',
      `Operation cannot be fulfilled on servicecidrs.networking.platform.io "p": Precondition failed: UID in precondition: other, UID in object meta: ${created.metadata.uid}`,
    );
    // Both still there after the refusals; both matching, the delete goes through.
    assert.equal((await main.get(ctx(), 'p', {})).metadata.uid, created.metadata.uid);
    const done = await main.delete(ctx(), 'p', { preconditions: { uid: created.metadata.uid, resourceVersion: rv } });
    assert.equal(done.deleted, true);
    await rejects(main.get(ctx(), 'p', {}), 404, 'NotFound', 'servicecidrs.networking.platform.io "p" not found');
  });
});
