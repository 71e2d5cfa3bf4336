// The event recorder over the real core Events store (memory backend, fake clock): kube's event
// shape, repeats counted into one event, similar events combined past ten messages, a hot loop
// held to the spam budget (25, then one per 5 minutes), refused writes dropped, queue bounded.

import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../apimachinery/object-meta.js';
import { silentLogger } from '../../apimachinery/request-context.js';
import type { ResourceDefinition } from '../../registry/resource-definition.js';
import type { RestStorage } from '../../registry/rest-storage.js';
import { coreEvents } from '../../resources/events/index.js';
import { ipAddresses } from '../../resources/ipaddresses/index.js';
import { serviceCIDRs } from '../../resources/servicecidrs/index.js';
import { addressesAndEvents, serviceCIDRFixture } from '../../../test/support/controller-fixtures.js';
import { settle } from '../fake-clock.js';
import { CONTROLLER_USER, type ServiceCIDRObject } from '../service-cidr-api.js';
import { coreEventsContext, type EventObject } from './event-api.js';
import { EventBroadcaster } from './event-recorder.js';

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
});

function setup(events?: RestStorage<EventObject>) {
  const f = serviceCIDRFixture(serviceCIDRs as unknown as ResourceDefinition<ServiceCIDRObject>);
  const stores = addressesAndEvents(f, ipAddresses as unknown as ResourceDefinition<KubeObject>, coreEvents as unknown as ResourceDefinition<KubeObject>);
  const store = events ?? (stores.events as unknown as RestStorage<EventObject>);
  const recorder = new EventBroadcaster({ events: store, component: 'service-cidr-controller', user: CONTROLLER_USER, fieldManager: 'kube-controller-manager', clock: f.clock, logger: silentLogger, random: () => 0.5 });
  stops.push(() => recorder.shutdown());
  const list = async () => (await stores.events.list(coreEventsContext(CONTROLLER_USER, silentLogger, ''), {})).items as unknown as EventObject[];
  return { f, recorder, list, store: stores.events as unknown as RestStorage<EventObject> };
}

const range: KubeObject = { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'range', uid: 'u-1', resourceVersion: '7' } };

describe('event recorder (client-go record)', () => {
  test("an event about a cluster-scoped object: kube's shape, in default", async () => {
    const { f, recorder, list } = setup();
    recorder.eventf(range, 'Warning', 'KubernetesServiceCIDRError', 'The ServiceCIDR Status can not be set to Ready=True');
    await recorder.drained();
    const [e] = await list();
    assert.ok(e);
    assert.match(e.metadata.name!, /^range\.[0-9a-f]+$/);
    assert.equal(e.metadata.name, `range.${(BigInt(f.clock.now().getTime()) * 1_000_000n).toString(16)}`);
    assert.equal(e.metadata.namespace, 'default');
    assert.deepEqual(e.involvedObject, { kind: 'ServiceCIDR', name: 'range', uid: 'u-1', apiVersion: 'networking.platform.io/v1', resourceVersion: '7' });
    assert.deepEqual(
      { reason: e.reason, message: e.message, source: e.source, first: e.firstTimestamp, last: e.lastTimestamp, count: e.count, type: e.type, rc: e.reportingComponent, ri: e.reportingInstance },
      {
        reason: 'KubernetesServiceCIDRError',
        message: 'The ServiceCIDR Status can not be set to Ready=True',
        source: { component: 'service-cidr-controller' },
        first: '2026-01-01T00:00:00Z',
        last: '2026-01-01T00:00:00Z',
        count: 1,
        type: 'Warning',
        rc: 'service-cidr-controller',
        ri: '',
      },
    );
    assert.equal(e.metadata.managedFields?.[0]?.manager, 'kube-controller-manager');
  });

  test('a repeat updates the same event: count, lastTimestamp', async () => {
    const { f, recorder, list } = setup();
    recorder.eventf(range, 'Warning', 'Broken', 'again');
    await f.clock.advance(3_000);
    recorder.eventf(range, 'Warning', 'Broken', 'again');
    await f.clock.advance(3_000);
    recorder.eventf(range, 'Warning', 'Broken', 'again');
    await recorder.drained();
    const events = await list();
    assert.equal(events.length, 1);
    assert.equal(events[0]!.count, 3);
    assert.equal(events[0]!.firstTimestamp, '2026-01-01T00:00:00Z');
    assert.equal(events[0]!.lastTimestamp, '2026-01-01T00:00:06Z');
  });

  test('a hot loop is held to 25 writes, then one per five minutes; the count still counts every occurrence', async () => {
    const { f, recorder, list } = setup();
    for (let i = 0; i < 200; i++) recorder.eventf(range, 'Warning', 'Broken', 'hot loop');
    await recorder.drained();
    let events = await list();
    assert.equal(events.length, 1);
    assert.equal(events[0]!.count, 25);
    await f.clock.advance(300_000);
    for (let i = 0; i < 50; i++) recorder.eventf(range, 'Warning', 'Broken', 'hot loop');
    await recorder.drained();
    events = await list();
    assert.equal(events.length, 1);
    // As client-go: suppressed repeats are counted (201st occurrence), only not written.
    assert.equal(events[0]!.count, 201);
  });

  test('ten messages of one reason within ten minutes are combined', async () => {
    const { recorder, list } = setup();
    for (let i = 0; i < 12; i++) recorder.eventf(range, 'Warning', 'Flapping', `message ${i}`);
    await recorder.drained();
    const events = await list();
    const messages = events.map((e) => `${e.message} x${e.count}`).sort();
    assert.deepEqual(messages, [...Array.from({ length: 9 }, (_, i) => `message ${i} x1`), '(combined from similar events): message 11 x3'].sort());
  });

  test('a write the server refuses is dropped; the next event still goes', async () => {
    const { recorder, list } = setup();
    recorder.eventf({ ...range, metadata: { name: 'bad/name' } }, 'Warning', 'Broken', 'x');
    recorder.eventf(range, 'Normal', 'Fine', 'y');
    await recorder.drained();
    assert.deepEqual((await list()).map((e) => e.reason), ['Fine']);
  });

  test('a failure that is not the server refusing is retried, 10 s apart', async () => {
    let failures = 2;
    const { f, recorder, list, store } = setup();
    const flaky: RestStorage<EventObject> = Object.create(store, {
      create: {
        value: (...a: Parameters<RestStorage<EventObject>['create']>) => {
          if (failures-- > 0) return Promise.reject(new Error('connection reset'));
          return store.create(...a);
        },
      },
    });
    const r2 = new EventBroadcaster({ events: flaky, component: 'c', user: CONTROLLER_USER, fieldManager: 'm', clock: f.clock, logger: silentLogger, random: () => 0.5 });
    stops.push(() => r2.shutdown());
    void recorder;
    r2.eventf(range, 'Normal', 'Retried', 'z');
    await settle();
    // The first wait is random (half of 10 s here), the next one 10 s.
    await f.clock.advance(5_000);
    await settle();
    assert.equal((await list()).length, 0);
    await f.clock.advance(9_000);
    assert.equal((await list()).length, 0);
    await f.clock.advance(1_000);
    await r2.drained();
    assert.deepEqual((await list()).map((e) => e.reason), ['Retried']);
  });
});
