// ServiceCIDR deletion held as kube-controller-manager holds it, over the real registry stores
// (ServiceCIDRs, IPAddresses, Events on one memory backend) with a fake clock: an allocated
// address inside keeps a range Terminating until it goes or another range covers it; addresses
// another manager owns, the network and broadcast addresses, and other families do not count;
// the controller waits for its IPAddress informer before it decides anything.

import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../apimachinery/object-meta.js';
import { silentLogger } from '../apimachinery/request-context.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import type { RestStorage } from '../registry/rest-storage.js';
import { coreEvents } from '../resources/events/index.js';
import { ipAddresses } from '../resources/ipaddresses/index.js';
import { serviceCIDRs } from '../resources/servicecidrs/index.js';
import { addressesAndEvents, eventually, FlakySource, ipAddress, serviceCIDR, serviceCIDRFixture, type ServiceCIDRFixture } from '../../test/support/controller-fixtures.js';
import type { IPAddressObject, ServiceCIDRObject } from './service-cidr-api.js';
import { ServiceCIDRStatusController, TERMINATING_MESSAGE } from './service-cidr-status-controller.js';

const definition = serviceCIDRs as unknown as ResourceDefinition<ServiceCIDRObject>;
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const s of stops.splice(0)) await s();
});

function setup() {
  const f = serviceCIDRFixture(definition);
  const { ipAddresses: ips } = addressesAndEvents(f, ipAddresses as unknown as ResourceDefinition<KubeObject>, coreEvents as unknown as ResourceDefinition<KubeObject>);
  return { f, ips: ips as unknown as RestStorage<IPAddressObject> };
}

function controller(f: ServiceCIDRFixture, ips: RestStorage<IPAddressObject>) {
  const c = new ServiceCIDRStatusController({ main: f.main, status: f.status, ipAddresses: ips, clock: f.clock, logger: silentLogger });
  stops.push(() => c.stop());
  return c;
}

const read = (f: ServiceCIDRFixture, name: string) => f.main.get(f.ctx, name, {});
const exists = async (f: ServiceCIDRFixture, name: string) => (await f.main.list(f.ctx, {})).items.some((o) => o.metadata.name === name);
const ready = async (f: ServiceCIDRFixture, name: string) => (await read(f, name)).status?.conditions?.find((c) => c.type === 'Ready');

/** Creates the ranges and waits until the controller has made each one Ready (finalizer in place). */
async function ranges(f: ServiceCIDRFixture, ...list: [string, string[]][]) {
  for (const [name, cidrs] of list) await f.main.create(f.ctx, serviceCIDR(name, cidrs), { fieldManager: 'test' });
  for (const [name] of list) await eventually(async () => (await ready(f, name))?.status === 'True', `${name} ready`);
}

/** Deletes `name`, lets the grace period pass, and says whether it is gone. */
async function deleteAndWait(f: ServiceCIDRFixture, name: string): Promise<boolean> {
  await f.main.delete(f.ctx, name, {});
  await f.clock.advance(11_000);
  for (let i = 0; i < 20 && (await exists(f, name)); i++) await f.clock.advance(100);
  return !(await exists(f, name));
}

async function addIP(f: ServiceCIDRFixture, ips: RestStorage<IPAddressObject>, ip: string, labels?: Record<string, string>) {
  await ips.create(f.ctx, ipAddress(ip, labels) as IPAddressObject, { fieldManager: 'ipallocator' });
}

describe('ServiceCIDR deletion with IPAddresses (kube canDeleteCIDR)', () => {
  test('an allocated address inside keeps it Terminating; deleting the address lets the deletion finish', async () => {
    const { f, ips } = setup();
    await controller(f, ips).start();
    await ranges(f, ['busy', ['10.2.0.0/24']]);
    await addIP(f, ips, '10.2.0.10');
    assert.equal(await deleteAndWait(f, 'busy'), false);
    const cond = await ready(f, 'busy');
    assert.deepEqual({ status: cond?.status, reason: cond?.reason, message: cond?.message }, { status: 'False', reason: 'Terminating', message: TERMINATING_MESSAGE });
    await f.clock.advance(120_000);
    assert.equal(await exists(f, 'busy'), true, 'held as long as the address is there');
    await ips.delete(f.ctx, '10.2.0.10', {});
    await eventually(async () => !(await exists(f, 'busy')), 'deleted once the address went');
  });

  test('another range that covers it releases it (a larger one, or the same one in another object)', async () => {
    const { f, ips } = setup();
    await controller(f, ips).start();
    await ranges(f, ['small', ['10.3.1.0/24']], ['twin', ['10.4.0.0/24']]);
    await addIP(f, ips, '10.3.1.7');
    await addIP(f, ips, '10.4.0.7');
    assert.equal(await deleteAndWait(f, 'small'), false);
    await f.main.create(f.ctx, serviceCIDR('large', ['10.3.0.0/16']), { fieldManager: 'test' });
    await f.clock.advance(1_000);
    await eventually(async () => !(await exists(f, 'small')), 'released by the covering range');
    await f.main.create(f.ctx, serviceCIDR('twin-2', ['10.4.0.0/24']), { fieldManager: 'test' });
    assert.equal(await deleteAndWait(f, 'twin'), true);
  });

  test('only addresses of the apiserver allocator count; the network and broadcast addresses are not inside', async () => {
    const { f, ips } = setup();
    await controller(f, ips).start();
    await ranges(f, ['other-manager', ['10.5.0.0/24']], ['edges', ['10.6.0.0/24']]);
    await addIP(f, ips, '10.5.0.9', { 'ipaddress.kubernetes.io/managed-by': 'someone.example.com', 'ipaddress.kubernetes.io/ip-family': 'IPv4' });
    await addIP(f, ips, '10.5.0.10', {});
    await addIP(f, ips, '10.6.0.0');
    await addIP(f, ips, '10.6.0.255');
    assert.equal(await deleteAndWait(f, 'other-manager'), true);
    assert.equal(await deleteAndWait(f, 'edges'), true);
  });

  test('dual-stack: an address of either family holds it', async () => {
    const { f, ips } = setup();
    await controller(f, ips).start();
    await ranges(f, ['dual', ['10.7.0.0/24', 'fd00:7::/64']]);
    await addIP(f, ips, '10.7.0.5');
    await addIP(f, ips, 'fd00:7::5');
    assert.equal(await deleteAndWait(f, 'dual'), false);
    await ips.delete(f.ctx, '10.7.0.5', {});
    await f.clock.advance(30_000);
    assert.equal(await exists(f, 'dual'), true, 'the IPv6 address still holds it');
    await ips.delete(f.ctx, 'fd00:7::5', {});
    await eventually(async () => !(await exists(f, 'dual')), 'deleted once both addresses went');
  });

  test('overlapping ranges: an address inside both does not hold either; one inside only the larger holds it', async () => {
    const { f, ips } = setup();
    await controller(f, ips).start();
    await ranges(f, ['inner', ['10.8.0.0/24']], ['outer', ['10.8.0.0/16']]);
    await addIP(f, ips, '10.8.0.5');
    await addIP(f, ips, '10.8.9.5');
    // outer has no parent; 10.8.0.5 is in both, but 10.8.9.5 is in outer alone.
    assert.equal(await deleteAndWait(f, 'outer'), false);
    await ips.delete(f.ctx, '10.8.9.5', {});
    await eventually(async () => !(await exists(f, 'outer')), 'outer deleted once its own address went');
    // inner is now alone around 10.8.0.5.
    assert.equal(await deleteAndWait(f, 'inner'), false);
  });

  test('nothing is decided before the IPAddress informer has synced', async () => {
    const { f, ips } = setup();
    await f.main.create(f.ctx, { ...serviceCIDR('held', ['10.9.0.0/24']), metadata: { name: 'held', finalizers: ['networking.platform.io/service-cidr-finalizer'] } }, { fieldManager: 'test' });
    await addIP(f, ips, '10.9.0.4');
    await f.main.delete(f.ctx, 'held', {});
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const gated = new FlakySource(ips);
    const list = gated.list;
    gated.list = async (...a) => {
      await gate;
      return list(...a);
    };
    const c = controller(f, gated);
    let started = false;
    void c.start().then(() => (started = true));
    await f.clock.advance(30_000);
    assert.equal(started, false);
    assert.deepEqual((await read(f, 'held')).metadata.finalizers, ['networking.platform.io/service-cidr-finalizer']);
    open();
    await eventually(() => started, 'started after the sync');
    await eventually(async () => (await ready(f, 'held'))?.reason === 'Terminating', 'held by its address');
    assert.equal(await exists(f, 'held'), true);
  });
});
