// The informer survives its watch: a watch that ends is re-opened from the last version seen
// (no relist, nothing missed), a 410 makes it re-list and report what changed meanwhile as
// adds, updates and deletes; a throwing handler does not stop it.

import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serviceCIDRs } from '../resources/servicecidrs/index.js';
import { silentLogger } from '../apimachinery/request-context.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import { Informer } from './informer.js';
import { CONTROLLER_USER, type ServiceCIDRObject } from './service-cidr-api.js';
import { eventually, FlakySource, serviceCIDR, serviceCIDRFixture } from '../../test/support/controller-fixtures.js';
import { WorkQueue } from './work-queue.js';
import { FakeClock, settle } from './fake-clock.js';

const definition = serviceCIDRs as unknown as ResourceDefinition<ServiceCIDRObject>;
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
});

function informerOn(source: FlakySource<ServiceCIDRObject>, clock: FakeClock, events: string[], throwOn?: string) {
  const inf = new Informer<ServiceCIDRObject>({
    source,
    user: CONTROLLER_USER,
    clock,
    logger: silentLogger,
    handlers: {
      onAdd: (o) => {
        events.push(`add ${o.metadata.name}`);
        if (o.metadata.name === throwOn) throw new Error('handler bug');
      },
      onUpdate: (_old, o) => void events.push(`update ${o.metadata.name}`),
      onDelete: (o) => void events.push(`delete ${o.metadata.name}`),
    },
  });
  stops.push(() => inf.stop());
  return inf;
}

describe('Informer', () => {
  test('a watch that ends is resumed from the last version without a relist', async () => {
    const f = serviceCIDRFixture(definition);
    const source = new FlakySource(f.main);
    const events: string[] = [];
    const inf = informerOn(source, f.clock, events);
    await f.main.create(f.ctx, serviceCIDR('a', ['10.0.0.0/24']), { fieldManager: 't' });
    inf.start();
    await inf.synced;
    assert.deepEqual(events, ['add a']);
    await eventually(() => source.watchCalls === 1, 'watching');
    source.endWatches();
    await f.main.create(f.ctx, serviceCIDR('b', ['10.1.0.0/24']), { fieldManager: 't' });
    // The watch ended without events: the informer waits its backoff, then re-watches.
    await f.clock.advance(100);
    await eventually(() => events.includes('add b'), 'b seen after the re-watch');
    assert.deepEqual(events, ['add a', 'add b']);
    assert.equal(source.listCalls, 1);
    assert.equal(source.watchCalls, 2);
  });

  test('410 Expired re-lists and reports the differences', async () => {
    const f = serviceCIDRFixture(definition);
    const source = new FlakySource(f.main);
    const events: string[] = [];
    const inf = informerOn(source, f.clock, events);
    await f.main.create(f.ctx, serviceCIDR('stays', ['10.0.0.0/24']), { fieldManager: 't' });
    await f.main.create(f.ctx, serviceCIDR('goes', ['10.1.0.0/24']), { fieldManager: 't' });
    inf.start();
    await inf.synced;
    await eventually(() => source.watchCalls === 1, 'watching');
    // While the informer is cut off, things change; its next watch is refused with 410.
    source.expireNext = 1;
    source.endWatches();
    await f.main.delete(f.ctx, 'goes', {});
    await f.main.update(f.ctx, 'stays', (cur) => ({ ...cur!, metadata: { ...cur!.metadata, labels: { x: 'y' } } }), { fieldManager: 't' });
    await f.main.create(f.ctx, serviceCIDR('new', ['10.2.0.0/24']), { fieldManager: 't' });
    await f.clock.advance(100);
    await eventually(() => events.length === 5, 'relist differences');
    assert.deepEqual(events, ['add goes', 'add stays', 'add new', 'update stays', 'delete goes']);
    assert.equal(source.listCalls, 2);
    assert.deepEqual(inf.list().map((o) => o.metadata.name).sort(), ['new', 'stays']);
  });

  test('a throwing handler is logged and the informer goes on', async () => {
    const f = serviceCIDRFixture(definition);
    const events: string[] = [];
    const inf = informerOn(new FlakySource(f.main), f.clock, events, 'bad');
    inf.start();
    await inf.synced;
    await f.main.create(f.ctx, serviceCIDR('bad', ['10.0.0.0/24']), { fieldManager: 't' });
    await f.main.create(f.ctx, serviceCIDR('good', ['10.1.0.0/24']), { fieldManager: 't' });
    await eventually(() => events.includes('add good'), 'good seen');
    assert.ok(inf.get('bad'));
  });
});

describe('Informer: paged list and transform', () => {
  test('the list comes in pages with the event loop run between them; every object arrives, transformed, and get() answers with the transform', async () => {
    const f = serviceCIDRFixture(definition);
    for (let i = 0; i < 7; i++) await f.main.create(f.ctx, serviceCIDR(`p${i}`, [`10.${i}.0.0/24`]), { fieldManager: 't' });
    const source = new FlakySource(f.main);
    const between: number[] = [];
    let added = 0;
    const inf = new Informer<ServiceCIDRObject>({
      source,
      user: CONTROLLER_USER,
      clock: f.clock,
      logger: silentLogger,
      pageSize: 3,
      transform: (o) => ({ apiVersion: o.apiVersion, kind: o.kind, metadata: { name: o.metadata.name, resourceVersion: o.metadata.resourceVersion } }),
      handlers: { onAdd: (o) => void (added++, assert.equal(o.metadata.uid, undefined)) },
    });
    stops.push(() => inf.stop());
    // Turns of the event loop, each noting how many objects had arrived: only an informer that
    // lets the loop run between pages is seen part-way (the pages of an in-memory store are
    // otherwise all microtasks).
    let ticking = true;
    const tick = (): void => {
      between.push(added);
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    try {
      inf.start();
      await inf.synced;
    } finally {
      ticking = false;
    }
    assert.equal(source.listCalls, 3, 'pages of 3, 3 and 1');
    assert.equal(inf.list().length, 7);
    assert.ok(between.some((n) => n > 0 && n < 7), `a timer ran between pages: ${between.join(',')}`);
    assert.deepEqual(Object.keys(inf.get('p3')!.metadata).sort(), ['name', 'resourceVersion']);
  });
});

describe('WorkQueue', () => {
  test('a key is queued once, and re-queued after done when added while processing', async () => {
    const q = new WorkQueue(new FakeClock());
    q.add('a');
    q.add('a');
    q.add('b');
    assert.equal(q.length, 2);
    assert.equal(await q.get(), 'a');
    q.add('a'); // while processing: not handed out twice
    assert.equal(await q.get(), 'b');
    assert.equal(q.length, 0);
    q.done('a');
    assert.equal(await q.get(), 'a');
  });

  test('failures back off 5 ms doubling, per key; forget resets', async () => {
    const clock = new FakeClock();
    const q = new WorkQueue(clock);
    const got: string[] = [];
    const take = async () => {
      for (;;) {
        const k = await q.get();
        if (k === undefined) return;
        got.push(`${k}@${clock.now().getTime() - Date.parse('2026-01-01T00:00:00Z')}`);
        q.done(k);
      }
    };
    void take();
    q.addRateLimited('x'); // 5 ms
    q.addRateLimited('x'); // 10 ms (the earlier pending add wins)
    await clock.advance(5);
    q.addRateLimited('x'); // third failure: 20 ms
    await clock.advance(20);
    q.forget('x');
    q.addRateLimited('x'); // back to 5 ms
    await clock.advance(5);
    await settle();
    assert.deepEqual(got, ['x@5', 'x@25', 'x@30']);
    q.shutDown();
  });
});
