// The ServiceCIDR controllers over the real registry stores (memory backend) with a fake clock:
// finalizer and Ready condition, deletion through the finalizer and its grace period, the
// default `kubernetes` ServiceCIDR (create, mismatch, dual-stack upgrade, recreation), several
// replicas converging without flapping, and a sync that fails backing off without a hot loop.

import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serviceCIDRs } from '../resources/servicecidrs/index.js';
import { silentLogger, type Logger } from '../apimachinery/request-context.js';
import type { KubeObject } from '../apimachinery/object-meta.js';
import { internal } from '../apimachinery/status-error.js';
import type { EventRecorder } from './events/event-recorder.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import { DefaultServiceCIDRController, DEFAULT_READY_MESSAGE } from './default-service-cidr-controller.js';
import { SERVICE_CIDR_FINALIZER, type ServiceCIDRObject } from './service-cidr-api.js';
import { READY_MESSAGE, ServiceCIDRStatusController, TERMINATING_MESSAGE } from './service-cidr-status-controller.js';
import { eventually, serviceCIDR, serviceCIDRFixture, type ServiceCIDRFixture } from '../../test/support/controller-fixtures.js';

const definition = serviceCIDRs as unknown as ResourceDefinition<ServiceCIDRObject>;
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
});

function statusController(f: ServiceCIDRFixture, extra: Partial<ConstructorParameters<typeof ServiceCIDRStatusController>[0]> = {}) {
  const c = new ServiceCIDRStatusController({ main: f.main, status: f.status, clock: f.clock, logger: silentLogger, ...extra });
  stops.push(() => c.stop());
  return c;
}

function defaultController(f: ServiceCIDRFixture, cidrs: string[], logger: Logger = silentLogger, recorder?: EventRecorder) {
  const c = new DefaultServiceCIDRController({ main: f.main, status: f.status, clock: f.clock, logger, cidrs, recorder });
  stops.push(() => c.stop());
  return c;
}

const read = (f: ServiceCIDRFixture, name: string) => f.main.get(f.ctx, name, {});
const exists = async (f: ServiceCIDRFixture, name: string) => (await f.main.list(f.ctx, {})).items.some((o) => o.metadata.name === name);

/** Records warn messages. */
function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  const l = {
    ...silentLogger,
    warnings,
    warn: (obj: object | string, msg?: string) => void warnings.push(msg ?? String(obj)),
    child: () => l,
  };
  return l;
}

describe('ServiceCIDR status controller', () => {
  test('a new ServiceCIDR gets the finalizer and Ready=True, written once', async () => {
    const f = serviceCIDRFixture(definition);
    await statusController(f, { resyncMs: 60_000 }).start();
    await f.main.create(f.ctx, serviceCIDR('range', ['10.1.0.0/24']), { fieldManager: 'test' });
    await eventually(async () => (await read(f, 'range')).status?.conditions?.length === 1, 'Ready condition');
    const obj = await read(f, 'range');
    assert.deepEqual(obj.metadata.finalizers, [SERVICE_CIDR_FINALIZER]);
    assert.deepEqual(obj.status?.conditions, [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z', reason: '', message: READY_MESSAGE }]);
    // Resyncs find nothing to change: no write, the transition time stays.
    await f.clock.advance(180_000);
    assert.equal((await read(f, 'range')).metadata.resourceVersion, obj.metadata.resourceVersion);
  });

  test('finalizers of others are kept; deletion waits the grace period, then the object goes', async () => {
    const f = serviceCIDRFixture(definition);
    await statusController(f).start();
    await f.main.create(f.ctx, { ...serviceCIDR('range', ['10.1.0.0/24']), metadata: { name: 'range', finalizers: ['example.com/keep'] } }, { fieldManager: 'test' });
    await eventually(async () => (await read(f, 'range')).metadata.finalizers?.length === 2, 'finalizer added');
    assert.deepEqual((await read(f, 'range')).metadata.finalizers, ['example.com/keep', SERVICE_CIDR_FINALIZER]);
    const marked = await f.main.delete(f.ctx, 'range', {});
    assert.equal(marked.deleted, false);
    await f.clock.advance(9_000);
    assert.deepEqual((await read(f, 'range')).metadata.finalizers, ['example.com/keep', SERVICE_CIDR_FINALIZER]);
    await f.clock.advance(1_000);
    await eventually(async () => (await read(f, 'range')).metadata.finalizers?.length === 1, 'our finalizer removed');
    assert.deepEqual((await read(f, 'range')).metadata.finalizers, ['example.com/keep']);
    // Without the other finalizer the object goes at once.
    await f.main.update(f.ctx, 'range', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, finalizers: [] } }), { fieldManager: 'test' });
    assert.equal(await exists(f, 'range'), false);
  });

  test('a range that still has addresses stays, Ready=False Terminating, until the check allows it', async () => {
    const f = serviceCIDRFixture(definition);
    let allocated = true;
    await statusController(f, { deletion: { canDelete: () => !allocated } }).start();
    await f.main.create(f.ctx, serviceCIDR('busy', ['10.2.0.0/24']), { fieldManager: 'test' });
    await eventually(async () => (await read(f, 'busy')).status?.conditions?.[0]?.status === 'True', 'ready');
    await f.clock.advance(5_000);
    await f.main.delete(f.ctx, 'busy', {});
    await eventually(async () => (await read(f, 'busy')).status?.conditions?.[0]?.status === 'False', 'terminating');
    assert.deepEqual((await read(f, 'busy')).status?.conditions, [
      { type: 'Ready', status: 'False', lastTransitionTime: '2026-01-01T00:00:05Z', reason: 'Terminating', message: TERMINATING_MESSAGE },
    ]);
    await f.clock.advance(60_000);
    assert.equal(await exists(f, 'busy'), true);
    // The allocator's addresses are gone; any ServiceCIDR event re-checks the ones being deleted.
    allocated = false;
    await f.main.create(f.ctx, serviceCIDR('other', ['10.3.0.0/24']), { fieldManager: 'test' });
    await eventually(async () => !(await exists(f, 'busy')), 'busy deleted');
  });

  test('several ServiceCIDRs are synced at once (5 workers, as kube runs it): their writes share commits, each still two writes', async () => {
    const f = serviceCIDRFixture(definition);
    const names = Array.from({ length: 10 }, (_, i) => `many-${i}`);
    for (const [i, name] of names.entries()) await f.main.create(f.ctx, serviceCIDR(name, [`10.9.${i}.0/24`]), { fieldManager: 'test' });
    const before = { revision: await f.storage.currentRevision(), ...f.storage.stats() };
    await statusController(f).start();
    await eventually(async () => (await f.main.list(f.ctx, {})).items.every((o) => o.status?.conditions?.length === 1), 'all Ready');
    // Finalizer, then condition, for each: twenty writes, in fewer transactions than writes.
    assert.equal(await f.storage.currentRevision(), before.revision + 20);
    const after = f.storage.stats();
    assert.equal(after.writes - before.writes, 20);
    assert.ok(after.transactions - before.transactions <= 10, `${after.transactions - before.transactions} transactions for 20 writes`);
  });

  test('several replicas converge on one write each, without moving lastTransitionTime', async () => {
    const f = serviceCIDRFixture(definition);
    const replicas = [statusController(f), statusController(f), statusController(f)];
    await Promise.all(replicas.map((r) => r.start()));
    const before = await f.storage.currentRevision();
    await f.main.create(f.ctx, serviceCIDR('shared', ['10.4.0.0/24']), { fieldManager: 'test' });
    await eventually(async () => (await read(f, 'shared')).status?.conditions?.length === 1, 'ready');
    await f.clock.advance(5_000);
    const settled = await read(f, 'shared');
    await f.clock.advance(60_000);
    const later = await read(f, 'shared');
    assert.equal(later.metadata.resourceVersion, settled.metadata.resourceVersion);
    assert.equal(later.status?.conditions?.[0]?.lastTransitionTime, '2026-01-01T00:00:00Z');
    assert.deepEqual(later.metadata.finalizers, [SERVICE_CIDR_FINALIZER]);
    // create, finalizer, condition: nothing else was written.
    assert.equal(await f.storage.currentRevision(), before + 3);
  });

  test('a sync that keeps failing backs off exponentially and does not stop the others', async () => {
    const f = serviceCIDRFixture(definition);
    let checks = 0;
    const c = statusController(f, {
      deletion: {
        canDelete: (o) => {
          if (o.metadata.name === 'bad') {
            checks++;
            throw new Error('allocator unavailable');
          }
          return true;
        },
      },
    });
    await c.start();
    await f.main.create(f.ctx, serviceCIDR('bad', ['10.5.0.0/24']), { fieldManager: 'test' });
    await f.main.create(f.ctx, serviceCIDR('good', ['10.6.0.0/24']), { fieldManager: 'test' });
    await eventually(async () => (await read(f, 'bad')).metadata.finalizers?.length === 1 && (await read(f, 'good')).metadata.finalizers?.length === 1, 'both finalized');
    await f.main.delete(f.ctx, 'bad', {});
    await f.main.delete(f.ctx, 'good', {});
    await eventually(() => checks >= 1, 'bad checked');
    // 1 s of fake time: 5+10+20+…+640 ms of backoff allows at most ~8 attempts, not thousands.
    await f.clock.advance(1_000);
    assert.ok(checks <= 9, `attempts in 1 s: ${checks}`);
    await f.clock.advance(10_000);
    await eventually(async () => !(await exists(f, 'good')), 'good deleted despite bad');
    assert.equal(await exists(f, 'bad'), true);
  });
});

describe('ServiceCIDR status controller events', () => {
  test('a Ready condition that can not be set is a KubernetesServiceCIDRError Warning, each retry counted by the recorder', async () => {
    const f = serviceCIDRFixture(definition);
    const events: string[] = [];
    const failingStatus = Object.create(f.status, { apply: { value: () => Promise.reject(internal('etcd is down')) } });
    const c = statusController(f, { status: failingStatus, recorder: { eventf: (o, type, reason, message) => void events.push(`${o.metadata.name} ${type} ${reason}: ${message}`) } });
    await c.start();
    await f.main.create(f.ctx, serviceCIDR('range', ['10.1.0.0/24']), { fieldManager: 'test' });
    await eventually(() => events.length >= 2, 'reported on the first sync and its retry');
    assert.equal(events[0], 'range Warning KubernetesServiceCIDRError: The ServiceCIDR Status can not be set to Ready=True');
  });
});

describe('default ServiceCIDR controller', () => {
  test('creates `kubernetes` from the flags with Ready=True; the status controller then owns the message', async () => {
    const f = serviceCIDRFixture(definition);
    const d = defaultController(f, ['10.0.0.0/24', 'fd00::/108']);
    await d.start();
    await d.initialized;
    const created = await read(f, 'kubernetes');
    assert.deepEqual(created.spec, { cidrs: ['10.0.0.0/24', 'fd00::/108'] });
    assert.deepEqual(created.status?.conditions, [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z', reason: '', message: DEFAULT_READY_MESSAGE }]);
    await statusController(f).start();
    await eventually(async () => (await read(f, 'kubernetes')).status?.conditions?.[0]?.message === READY_MESSAGE, 'message rewritten');
    const rv = (await read(f, 'kubernetes')).metadata.resourceVersion;
    await f.clock.advance(60_000);
    assert.equal((await read(f, 'kubernetes')).metadata.resourceVersion, rv, 'no flapping between the two controllers');
  });

  test('a `kubernetes` with other CIDRs is reported once (kube\'s Warning event) and never overwritten', async () => {
    const f = serviceCIDRFixture(definition);
    await f.main.create(f.ctx, serviceCIDR('kubernetes', ['192.168.0.0/24']), { fieldManager: 'test' });
    const log = recordingLogger();
    const events: string[] = [];
    const recorder = { eventf: (o: KubeObject, type: string, reason: string, message: string) => void events.push(`${o.metadata.name} ${type} ${reason}: ${message}`) };
    const d = defaultController(f, ['10.0.0.0/24'], log, recorder);
    await d.start();
    await d.initialized;
    await f.clock.advance(35_000);
    const obj = await read(f, 'kubernetes');
    assert.deepEqual(obj.spec, { cidrs: ['192.168.0.0/24'] });
    assert.equal(obj.status, undefined);
    assert.deepEqual(events, ['kubernetes Warning KubernetesDefaultServiceCIDRInconsistent: The default ServiceCIDR [192.168.0.0/24] does not match the controller flag configurations [10.0.0.0/24]']);
    assert.deepEqual(log.warnings.filter((w) => w.includes('Inconsistent')), [
      'Inconsistent ServiceCIDR status for kubernetes, controller configuration: [10.0.0.0/24], ServiceCIDR configuration: [192.168.0.0/24]. Configure the flags to match current ServiceCIDR or manually delete it.',
    ]);
  });

  test('Ready=False set by someone else is reported once with its reason; a status that can not be set is KubernetesDefaultServiceCIDRError', async () => {
    const f = serviceCIDRFixture(definition);
    await f.main.create(f.ctx, serviceCIDR('kubernetes', ['10.0.0.0/24']), { fieldManager: 'test' });
    await f.status.update(
      f.ctx,
      'kubernetes',
      (cur) => ({ ...cur!, status: { conditions: [{ type: 'Ready', status: 'False', reason: 'NetworkBroken', message: 'the network is broken', lastTransitionTime: '2026-01-01T00:00:00Z' }] } }),
      { fieldManager: 'test' },
    );
    const events: string[] = [];
    const recorder = { eventf: (o: KubeObject, type: string, reason: string, message: string) => void events.push(`${o.metadata.name} ${type} ${reason}: ${message}`) };
    const d = defaultController(f, ['10.0.0.0/24'], silentLogger, recorder);
    await d.start();
    await d.initialized;
    await f.clock.advance(35_000);
    assert.deepEqual(events, ['kubernetes Warning NetworkBroken: Configuration matches, but the network is broken']);

    const f2 = serviceCIDRFixture(definition);
    const events2: string[] = [];
    const failingStatus = Object.create(f2.status, { apply: { value: () => Promise.reject(internal('etcd is down')) } });
    const d2 = new DefaultServiceCIDRController({ main: f2.main, status: failingStatus, clock: f2.clock, logger: silentLogger, cidrs: ['10.0.0.0/24'], recorder: { eventf: (o, type, reason, message) => void events2.push(`${o.metadata.name} ${type} ${reason}: ${message}`) } });
    stops.push(() => d2.stop());
    await d2.start();
    await d2.initialized;
    assert.deepEqual(events2, ['kubernetes Warning KubernetesDefaultServiceCIDRError: The default ServiceCIDR Status can not be set to Ready=True']);
  });

  test('single-stack `kubernetes` is upgraded when the flags add a second family with the same primary', async () => {
    const f = serviceCIDRFixture(definition);
    const first = defaultController(f, ['10.0.0.0/24']);
    await first.start();
    await first.initialized;
    await first.stop();
    const second = defaultController(f, ['10.0.0.0/24', 'fd00::/108']);
    await second.start();
    await second.initialized;
    await eventually(async () => (await read(f, 'kubernetes')).spec?.cidrs?.length === 2, 'upgraded');
    const obj = await read(f, 'kubernetes');
    assert.deepEqual(obj.spec, { cidrs: ['10.0.0.0/24', 'fd00::/108'] });
    assert.equal(obj.metadata.generation, 2);
    // A different primary is not an upgrade: left alone.
    const f2 = serviceCIDRFixture(definition);
    await f2.main.create(f2.ctx, serviceCIDR('kubernetes', ['10.9.0.0/24']), { fieldManager: 'test' });
    const other = defaultController(f2, ['10.0.0.0/24', 'fd00::/108']);
    await other.start();
    await other.initialized;
    assert.deepEqual((await read(f2, 'kubernetes')).spec, { cidrs: ['10.9.0.0/24'] });
  });

  test('a deleted `kubernetes` comes back; Ready=False set by someone else is left alone', async () => {
    const f = serviceCIDRFixture(definition);
    const d = defaultController(f, ['10.0.0.0/24']);
    await d.start();
    await d.initialized;
    const firstUid = (await read(f, 'kubernetes')).metadata.uid;
    await f.main.delete(f.ctx, 'kubernetes', {});
    await eventually(async () => (await exists(f, 'kubernetes')) && (await read(f, 'kubernetes')).metadata.uid !== firstUid, 'recreated');
    await f.status.update(
      f.ctx,
      'kubernetes',
      (cur) => ({ ...cur!, status: { conditions: [{ type: 'Ready', status: 'False', reason: 'Broken', message: 'by hand', lastTransitionTime: '2026-01-01T00:00:00Z' }] } }),
      { fieldManager: 'test' },
    );
    await f.clock.advance(30_000);
    assert.equal((await read(f, 'kubernetes')).status?.conditions?.[0]?.status, 'False');
  });

  test('two replicas starting together create one object', async () => {
    const f = serviceCIDRFixture(definition);
    const a = defaultController(f, ['10.0.0.0/24']);
    const b = defaultController(f, ['10.0.0.0/24']);
    await Promise.all([a.start(), b.start()]);
    await Promise.all([a.initialized, b.initialized]);
    await f.clock.advance(30_000);
    const list = await f.main.list(f.ctx, {});
    assert.deepEqual(list.items.map((o) => o.metadata.name), ['kubernetes']);
    assert.equal(list.items[0]!.status?.conditions?.length, 1);
  });
});
