import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorText } from '../../apimachinery/field-error.js';
import { internalContext, silentLogger } from '../../apimachinery/request-context.js';
import { cidrProblem, formatIP } from './cidr.js';
import { validateServiceCIDR, validateServiceCIDRUpdate } from './validation.js';
import { serviceCIDRStatusStrategy, serviceCIDRStrategy } from './strategy.js';
import type { ServiceCIDR } from './types.js';

const sc = (cidrs: string[], extra: Partial<ServiceCIDR> = {}): ServiceCIDR => ({
  apiVersion: 'networking.platform.io/v1',
  kind: 'ServiceCIDR',
  metadata: { name: 'range', resourceVersion: '1' },
  spec: { cidrs },
  ...extra,
});
const texts = (cidrs: string[]) => validateServiceCIDR(sc(cidrs)).map(fieldErrorText);

describe('CIDR rules (apimachinery IsValidCIDR, strict)', () => {
  const cases: [string, string | undefined][] = [
    ['10.0.0.0/24', undefined],
    ['0.0.0.0/0', undefined],
    ['2001:db8::/64', undefined],
    ['fd00:1234::/64', undefined],
    ['asdasdasd', 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'],
    ['192.168.0.1', 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'],
    ['MN00::/64', 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'],
    ['fe80::%eth0/64', 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'],
    ['10.0.0.0/33', 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'],
    ['192.168.007.0/24', 'must not have leading 0s in IP or prefix length'],
    ['10.0.0.0/024', 'must not have leading 0s in IP or prefix length'],
    ['::ffff:10.0.0.0/104', 'must not have an IPv4-mapped IPv6 address'],
    ['192.168.0.1/24', 'must not have bits set beyond the prefix length'],
    ['fd00:1234::2/64', 'must not have bits set beyond the prefix length'],
    ['FD00:1234::/64', 'must be in canonical form ("fd00:1234::/64")'],
    ['fd00:1234:0::/64', 'must be in canonical form ("fd00:1234::/64")'],
    ["2001:db8:0:0:1:0:0:0/128", 'must be in canonical form ("2001:db8:0:0:1::/128")'],
  ];
  for (const [cidr, want] of cases) test(cidr, () => assert.equal(cidrProblem(cidr), want));

  test('RFC 5952 formatting', () => {
    assert.equal(formatIP(new Uint8Array(16)), '::');
    assert.equal(formatIP(Uint8Array.from([0x20, 0x01, 0xd, 0xb8, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1])), '2001:db8:0:1::1');
  });
});

describe('ServiceCIDR create validation', () => {
  test('at least one, at most two, one per family', () => {
    assert.deepEqual(texts([]), ['spec.cidrs: Required value: at least one CIDR required']);
    assert.deepEqual(texts(['10.0.0.0/24', 'fd00::/64', '10.1.0.0/24']), [
      'spec.cidrs: Invalid value: {"CIDRs":["10.0.0.0/24","fd00::/64","10.1.0.0/24"]}: may only hold up to 2 values',
    ]);
    assert.deepEqual(texts(['10.0.0.0/24', '10.1.0.0/24']), [
      'spec.cidrs: Invalid value: ["10.0.0.0/24","10.1.0.0/24"]: may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64',
    ]);
    assert.deepEqual(texts(['10.0.0.0/24', 'fd00::/64']), []);
  });

  test('each bad entry reports once, before the family check', () => {
    assert.deepEqual(texts(['bad', '10.0.0.1/8']), [
      'spec.cidrs[0]: Invalid value: "bad": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
      'spec.cidrs[1]: Invalid value: "10.0.0.1/8": must not have bits set beyond the prefix length',
    ]);
  });
});

describe('ServiceCIDR update validation', () => {
  const update = (before: string[], after: string[]) => validateServiceCIDRUpdate(sc(after), sc(before)).map(fieldErrorText);

  test('entries are immutable, and a changed entry is not re-checked for format', () => {
    assert.deepEqual(update(['10.10.0.0/24'], ['bad cidr']), ['spec.cidrs[0]: Invalid value: "bad cidr": field is immutable']);
  });

  test('single- to dual-stack upgrade keeps the first entry and validates the new one', () => {
    assert.deepEqual(update(['10.0.0.0/24'], ['10.0.0.0/24', 'fd00::/64']), []);
    assert.deepEqual(update(['10.0.0.0/24'], ['10.1.0.0/24', 'fd00::/64']), ['spec.cidrs[0]: Invalid value: "10.1.0.0/24": field is immutable']);
    assert.deepEqual(update(['10.0.0.0/24'], ['10.0.0.0/24', '10.2.0.0/24']), [
      'spec.cidrs: Invalid value: ["10.0.0.0/24","10.2.0.0/24"]: may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64',
    ]);
  });

  test('any other change of length is immutable', () => {
    assert.deepEqual(update(['10.0.0.0/24', 'fd00::/64'], ['10.0.0.0/24']), ['spec.cidrs: Invalid value: ["10.0.0.0/24"]: field is immutable']);
  });
});

describe('ServiceCIDR strategies', () => {
  const ctx = internalContext({ username: 'admin', groups: [] }, silentLogger);
  const condition = { type: 'Ready', status: 'True', reason: '', message: 'ok', lastTransitionTime: '2026-11-22T00:00:00Z' };

  test('create wipes status and starts generation at 1', () => {
    const obj = sc(['10.0.0.0/24'], { status: { conditions: [condition] } });
    serviceCIDRStrategy.prepareForCreate(ctx, obj);
    assert.equal(obj.status, undefined);
    assert.equal(obj.metadata.generation, 1);
  });

  test('main-resource update keeps the stored status; generation moves only with spec', () => {
    const old = sc(['10.0.0.0/24'], { status: { conditions: [condition] } });
    old.metadata.generation = 3;
    const labelsOnly = sc(['10.0.0.0/24'], { status: {} });
    labelsOnly.metadata.labels = { a: 'b' };
    serviceCIDRStrategy.prepareForUpdate(ctx, labelsOnly, old);
    assert.deepEqual(labelsOnly.status, old.status);
    assert.equal(labelsOnly.metadata.generation, 3);
    const upgraded = sc(['10.0.0.0/24', 'fd00::/64']);
    serviceCIDRStrategy.prepareForUpdate(ctx, upgraded, old);
    assert.equal(upgraded.metadata.generation, 4);
  });

  test('a /status write changes only status', () => {
    const old = sc(['10.0.0.0/24']);
    old.metadata.labels = { keep: 'me' };
    old.metadata.generation = 2;
    const next = sc(['99.0.0.0/8'], { status: { conditions: [condition] } });
    next.metadata.labels = { dropped: 'yes' };
    next.metadata.finalizers = ['x/y'];
    serviceCIDRStatusStrategy.prepareForUpdate(ctx, next, old);
    assert.deepEqual(next.spec, old.spec);
    assert.deepEqual(next.metadata.labels, { keep: 'me' });
    assert.equal(next.metadata.finalizers, undefined);
    assert.equal(next.metadata.generation, 2);
    assert.deepEqual(next.status, { conditions: [condition] });
  });
});
