// What the generic store hands admission and what it does with the answer (kube's registry
// Store): each write's attributes and options as kube passes them, mutating admission before the
// kind's validation, validating admission after it, and a denial that stores nothing. Found
// unpinned by mutation testing (issue #35): no other test gives the store an admission plugin.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AdmissionAttributes, AdmissionPlugin } from '../apimachinery/admission.js';
import { internalContext, silentLogger, type RequestContext } from '../apimachinery/request-context.js';
import { forbidden, isStatusError } from '../apimachinery/status-error.js';
import { GenericStore } from './generic-store.js';
import { MemoryStore } from '../storage/sqlite/memory-store.js';
import { serviceCIDRs } from '../resources/servicecidrs/index.js';
import type { ServiceCIDR } from '../resources/servicecidrs/types.js';

const ctx = (dryRun = false): RequestContext => ({ ...internalContext({ username: 'admin', groups: ['system:masters'] }, silentLogger), dryRun });

/** What a plugin saw, copied at the time (the store goes on changing the objects). */
interface Seen {
  phase: 'admit' | 'validate';
  attrs: Omit<AdmissionAttributes, 'warnings' | 'annotate' | 'signal' | 'user'>;
}

function recorder(): { plugin: AdmissionPlugin; seen: Seen[] } {
  const seen: Seen[] = [];
  const copy = (phase: Seen['phase'], a: AdmissionAttributes): void => {
    const { warnings: _w, annotate: _a, signal: _s, user: _u, ...rest } = a;
    seen.push({ phase, attrs: structuredClone(rest) });
  };
  return {
    seen,
    plugin: { name: 'Recorder', admit: async (a) => copy('admit', a), validate: async (a) => copy('validate', a) },
  };
}

function setup(admission: AdmissionPlugin[]) {
  const storage = new MemoryStore();
  const main = new GenericStore<ServiceCIDR>({ definition: serviceCIDRs, strategy: serviceCIDRs.strategy, subresource: '', storage, admission });
  return { storage, main };
}

const sc = (name: string, cidr = '10.0.0.0/24'): ServiceCIDR => ({
  apiVersion: 'networking.platform.io/v1',
  kind: 'ServiceCIDR',
  metadata: { name },
  spec: { cidrs: [cidr] },
});

const kindOf = { group: 'networking.platform.io', version: 'v1', kind: 'ServiceCIDR', resource: 'servicecidrs', subresource: '', namespace: '' };

describe('GenericStore and admission', () => {
  test('a create: both phases, the object as sent to the mutating one and complete to the validating one, CreateOptions', async () => {
    const { plugin, seen } = recorder();
    const { main } = setup([plugin]);
    const created = await main.create(ctx(), sc('a'), { fieldManager: 'kubectl' });
    assert.deepEqual(seen.map((s) => s.phase), ['admit', 'validate']);
    const options = { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'kubectl' };
    for (const s of seen) {
      assert.deepEqual({ ...s.attrs, object: undefined }, { ...kindOf, operation: 'CREATE', name: 'a', object: undefined, oldObject: undefined, dryRun: false, options });
    }
    // Mutating admission comes before the system fields; validating admission sees what is stored.
    assert.equal(seen[0]!.attrs.object!.metadata.uid, undefined);
    assert.equal(seen[0]!.attrs.object!.metadata.creationTimestamp, undefined);
    assert.equal(seen[1]!.attrs.object!.metadata.uid, created.metadata.uid);
    assert.equal(seen[1]!.attrs.object!.metadata.creationTimestamp, created.metadata.creationTimestamp);
  });

  test('a dry-run update: the stored object as oldObject, UpdateOptions with dryRun All', async () => {
    const { plugin, seen } = recorder();
    const { main } = setup([plugin]);
    const created = await main.create(ctx(), sc('a'), { fieldManager: 'kubectl' });
    seen.length = 0;
    await main.update(ctx(true), 'a', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, labels: { x: 'y' } } }), { fieldManager: 'editor' });
    assert.deepEqual(seen.map((s) => s.phase), ['admit', 'validate']);
    const options = { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1', dryRun: ['All'], fieldManager: 'editor' };
    for (const s of seen) {
      assert.deepEqual({ ...s.attrs, object: undefined, oldObject: undefined }, { ...kindOf, operation: 'UPDATE', name: 'a', object: undefined, oldObject: undefined, dryRun: true, options });
      assert.deepEqual(s.attrs.oldObject, created);
      assert.deepEqual(s.attrs.object!.metadata.labels, { x: 'y' });
    }
  });

  test('a delete: no object, the stored one as oldObject, the DeleteOptions as sent; a delete-collection names no object', async () => {
    const { plugin, seen } = recorder();
    const { main } = setup([plugin]);
    const a = await main.create(ctx(), sc('a'), { fieldManager: 'kubectl' });
    const b = await main.create(ctx(), sc('b', '10.0.1.0/24'), { fieldManager: 'kubectl' });
    seen.length = 0;
    await main.delete(ctx(), 'a', { propagationPolicy: 'Background' });
    const options = { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', propagationPolicy: 'Background' };
    assert.deepEqual(seen, [
      { phase: 'admit', attrs: { ...kindOf, operation: 'DELETE', name: 'a', object: undefined, oldObject: a, dryRun: false, options } },
      { phase: 'validate', attrs: { ...kindOf, operation: 'DELETE', name: 'a', object: undefined, oldObject: a, dryRun: false, options } },
    ]);
    seen.length = 0;
    const out = await main.deleteCollection(ctx(), {}, {});
    assert.deepEqual(out.items.map((o) => o.metadata.name), ['b']);
    assert.deepEqual(seen.map((s) => [s.phase, s.attrs.operation, s.attrs.name, s.attrs.oldObject?.metadata.uid]), [
      ['admit', 'DELETE', '', b.metadata.uid],
      ['validate', 'DELETE', '', b.metadata.uid],
    ]);
  });

  test("what mutating admission changes is stored, and validated by the kind's rules", async () => {
    const labeler: AdmissionPlugin = {
      name: 'Labeler',
      admit: async (a) => {
        const o = a.object as ServiceCIDR;
        a.object = { ...o, metadata: { ...o.metadata, labels: { admitted: a.operation.toLowerCase() } } } as ServiceCIDR;
      },
    };
    const { main } = setup([labeler]);
    const created = await main.create(ctx(), sc('a'), { fieldManager: 'kubectl' });
    assert.deepEqual(created.metadata.labels, { admitted: 'create' });
    assert.deepEqual((await main.get(ctx(), 'a', {})).metadata.labels, { admitted: 'create' });

    const breaker: AdmissionPlugin = {
      name: 'Breaker',
      admit: async (a) => {
        (a.object as ServiceCIDR).spec = { cidrs: ['not-a-cidr'] };
      },
    };
    const broken = setup([breaker]).main;
    await assert.rejects(broken.create(ctx(), sc('a'), { fieldManager: 'kubectl' }), (e: unknown) => isStatusError(e) && e.code === 422);
  });

  test('a denial by validating admission stores nothing; warnings and audit annotations reach the request', async () => {
    const annotations: [string, string][] = [];
    const request = (): RequestContext => ({ ...ctx(), annotate: (k: string, v: string) => void annotations.push([k, v]) });
    const gate: AdmissionPlugin = {
      name: 'Gate',
      validate: async (a) => {
        a.warnings.push(`seen ${a.operation}`);
        a.annotate('gate.example.com/seen', a.name);
        if ((a.object as ServiceCIDR | undefined)?.metadata.name === 'denied') throw forbidden({ group: 'networking.platform.io', resource: 'servicecidrs' }, 'denied', 'not this one');
      },
    };
    const { main } = setup([gate]);
    const c = request();
    await main.create(c, sc('allowed'), { fieldManager: 'kubectl' });
    assert.deepEqual(c.warnings, ['seen CREATE']);
    assert.deepEqual(annotations, [['gate.example.com/seen', 'allowed']]);
    await assert.rejects(main.create(request(), sc('denied', '10.0.1.0/24'), { fieldManager: 'kubectl' }), (e: unknown) => isStatusError(e) && e.code === 403);
    await assert.rejects(main.get(ctx(), 'denied', {}), (e: unknown) => isStatusError(e) && e.code === 404);
  });
});
