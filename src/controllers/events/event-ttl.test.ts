// Events expire --event-ttl after their last write (fake clock, real Events store): a write
// postpones it, events found at start keep their own age, and replicas sharing the store share
// the work without errors.

import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../apimachinery/object-meta.js';
import { silentLogger } from '../../apimachinery/request-context.js';
import type { ResourceDefinition } from '../../registry/resource-definition.js';
import type { RestStorage } from '../../registry/rest-storage.js';
import { coreEvents } from '../../resources/events/index.js';
import { ipAddresses } from '../../resources/ipaddresses/index.js';
import { serviceCIDRs } from '../../resources/servicecidrs/index.js';
import { addressesAndEvents, eventually, serviceCIDRFixture } from '../../../test/support/controller-fixtures.js';
import { CONTROLLER_USER, type ServiceCIDRObject } from '../service-cidr-api.js';
import { coreEventsContext, type EventObject } from './event-api.js';
import { EventTTL } from './event-ttl.js';

const HOUR = 3_600_000;
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
});

function setup() {
  const f = serviceCIDRFixture(serviceCIDRs as unknown as ResourceDefinition<ServiceCIDRObject>);
  const events = addressesAndEvents(f, ipAddresses as unknown as ResourceDefinition<KubeObject>, coreEvents as unknown as ResourceDefinition<KubeObject>).events as unknown as RestStorage<EventObject>;
  const ctx = (ns = 'default') => coreEventsContext(CONTROLLER_USER, silentLogger, ns);
  const reaper = () => {
    const r = new EventTTL({ events, ttlMs: HOUR, user: CONTROLLER_USER, clock: f.clock, logger: silentLogger });
    stops.push(() => r.stop());
    return r;
  };
  const names = async () => (await events.list(ctx(''), {})).items.map((e) => `${e.metadata.namespace}/${e.metadata.name}`).sort();
  const write = (name: string, ns = 'default') =>
    events.create(ctx(ns), { apiVersion: 'v1', kind: 'Event', metadata: { name }, involvedObject: ns === 'default' ? { kind: 'ServiceCIDR', name: 'r' } : { kind: 'Lease', namespace: ns, name: 'l' }, reason: 'R', message: 'm', count: 1 }, { fieldManager: 'test' });
  return { f, events, ctx, reaper, names, write };
}

describe('event TTL', () => {
  test('an event goes TTL after its last write; a write postpones it', async () => {
    const { f, events, ctx, reaper, names, write } = setup();
    const r = reaper();
    await r.start();
    await write('a');
    await write('b', 'kube-system');
    await eventually(() => r.pending === 2, 'both seen');
    await f.clock.advance(HOUR / 2);
    await events.update(ctx(), 'a', (cur) => ({ ...cur!, count: 2 }), { fieldManager: 'test' });
    await eventually(() => r.informer.get('default/a')?.count === 2, 'update seen');
    await f.clock.advance(HOUR / 2 + 1_000);
    await eventually(async () => (await names()).length === 1, 'b expired');
    assert.deepEqual(await names(), ['default/a']);
    await f.clock.advance(HOUR / 2);
    await eventually(async () => (await names()).length === 0, 'a expired an hour after its update');
    assert.equal(r.expired, 2);
  });

  test('events found at start keep their age: an old one goes at once, a recent one after what is left', async () => {
    const { f, reaper, names, write } = setup();
    await write('old');
    await f.clock.advance(2 * HOUR);
    await write('recent');
    await f.clock.advance(HOUR / 4);
    const r = reaper();
    await r.start();
    await f.clock.advance(1);
    await eventually(async () => (await names()).length === 1, 'old expired at start');
    assert.deepEqual(await names(), ['default/recent']);
    await f.clock.advance(HOUR / 2);
    assert.deepEqual(await names(), ['default/recent']);
    await f.clock.advance(HOUR / 4 + 1_000);
    await eventually(async () => (await names()).length === 0, 'recent expired an hour after its write');
  });

  test('two replicas share the work: each event deleted once, no errors', async () => {
    const { f, reaper, names, write } = setup();
    const [a, b] = [reaper(), reaper()];
    await Promise.all([a.start(), b.start()]);
    for (const n of ['x', 'y', 'z']) await write(n);
    await eventually(() => a.pending === 3 && b.pending === 3, 'seen by both');
    await f.clock.advance(HOUR + 1_000);
    await eventually(async () => (await names()).length === 0, 'all expired');
    assert.equal(a.expired + b.expired, 3);
  });
});
