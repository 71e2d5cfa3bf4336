import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorText } from '../../apimachinery/field-error.js';
import { ipProblems } from './ip.js';
import { parentRefText } from './table.js';
import type { IPAddress, ParentReference } from './types.js';
import { validateIPAddress, validateIPAddressUpdate } from './validation.js';

const WEB: ParentReference = { resource: 'services', namespace: 'default', name: 'web' };
/** An IPAddress; `parentRef` 'absent' leaves spec empty. */
const ip = (name: string, parentRef: ParentReference | null | 'absent' = WEB): IPAddress => ({
  apiVersion: 'networking.platform.io/v1',
  kind: 'IPAddress',
  metadata: { name },
  spec: parentRef === 'absent' ? {} : { parentRef },
});
const texts = (o: IPAddress) => validateIPAddress(o).map(fieldErrorText);

describe('IPAddress names: apimachinery IsValidIP (1.33)', () => {
  const cases: [string, string | undefined][] = [
    ['10.0.0.1', undefined],
    ['0.0.0.0', undefined],
    ['2001:db8::1', undefined],
    ['::', undefined],
    ['::1', undefined],
    ['2001:db8:0:1::1', undefined],
    ['not-an-ip', 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'],
    ['10.0.0', 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'],
    ['10.0.0.256', 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'],
    ['fe80::1%eth0', 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'],
    ['10.0.0.1/32', 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'],
    ['2001:db8::12345', 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'],
    ['1:2:3:4:5:6:7:8:9', 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'],
    // Sloppy parsing takes them, netip does not.
    ['10.0.0.01', 'must not have leading 0s'],
    ['10.000.0.1', 'must not have leading 0s'],
    ['2001:db8::00001', 'must not have leading 0s'],
    ['::ffff:010.1.2.3', 'must not have leading 0s'],
    ['::ffff:10.1.2.3', 'must not be an IPv4-mapped IPv6 address'],
    ['::ffff:a01:203', 'must not be an IPv4-mapped IPv6 address'],
    ['2001:DB8::1', 'must be in canonical form ("2001:db8::1")'],
    ['2001:db8:0:0:0:0:0:1', 'must be in canonical form ("2001:db8::1")'],
    ['2001:0db8::1', 'must be in canonical form ("2001:db8::1")'],
    ['::1.2.3.4', 'must be in canonical form ("::102:304")'],
    ['1:0:0:2:0:0:0:3', 'must be in canonical form ("1:0:0:2::3")'],
    ['1:0:0:2:3:0:0:4', 'must be in canonical form ("1::2:3:0:0:4")'],
  ];
  for (const [name, want] of cases) test(name, () => assert.deepEqual(ipProblems(name), want ? [want] : []));
});

describe('IPAddress validation (ValidateIPAddress)', () => {
  test('a valid address', () => assert.deepEqual(texts(ip('10.0.0.1')), []));

  test('the name in metadata.name', () => {
    assert.deepEqual(texts(ip('10.0.0.01')), ['metadata.name: Invalid value: "10.0.0.01": must not have leading 0s']);
    assert.deepEqual(texts({ ...ip(''), metadata: {} }), ['metadata.name: Required value: name or generateName is required']);
  });

  test('parentRef is required, with resource and name; group and namespace optional', () => {
    assert.deepEqual(texts(ip('10.0.0.1', 'absent')), ['spec.parentRef: Required value']);
    assert.deepEqual(texts(ip('10.0.0.1', null)), ['spec.parentRef: Required value']);
    assert.deepEqual(texts(ip('10.0.0.1', {})), ['spec.parentRef.resource: Required value', 'spec.parentRef.name: Required value']);
    assert.deepEqual(texts(ip('10.0.0.1', { resource: 'services', name: 'web' })), []);
    assert.deepEqual(texts(ip('10.0.0.1', { group: 'gateway.networking.k8s.io', resource: 'gateways', namespace: 'ns', name: 'gw' })), []);
  });

  test('parentRef fields: group a DNS subdomain, the others path segments', () => {
    assert.deepEqual(texts(ip('10.0.0.1', { group: 'Bad_Group', resource: 'a/b', namespace: '..', name: '50%' })), [
      'spec.parentRef.group: Invalid value: "Bad_Group": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')',
      "spec.parentRef.resource: Invalid value: \"a/b\": may not contain '/'",
      "spec.parentRef.name: Invalid value: \"50%\": may not contain '%'",
      "spec.parentRef.namespace: Invalid value: \"..\": may not be '..'",
    ]);
  });
});

describe('IPAddress update validation (ValidateIPAddressUpdate)', () => {
  const old = { ...ip('10.0.0.1'), metadata: { name: '10.0.0.1', uid: 'u', creationTimestamp: '2026-01-01T00:00:00Z' } };
  test('labels may change', () => {
    const next = { ...old, metadata: { ...old.metadata, labels: { a: 'b' } } };
    assert.deepEqual(validateIPAddressUpdate(next, old).map(fieldErrorText), []);
  });
  test('parentRef is immutable, shown as the internal struct', () => {
    const next = { ...old, spec: { parentRef: { resource: 'services', namespace: 'default', name: 'other' } } };
    assert.deepEqual(validateIPAddressUpdate(next, old).map(fieldErrorText), [
      'spec.parentRef: Invalid value: {"Group":"","Resource":"services","Namespace":"default","Name":"other"}: field is immutable',
    ]);
    const removed = { ...old, spec: {} };
    assert.deepEqual(validateIPAddressUpdate(removed, old).map(fieldErrorText), ['spec.parentRef: Required value', 'spec.parentRef: Invalid value: null: field is immutable']);
  });
});

test('ParentRef column: <resource>[.<group>][/<namespace>]/<name>, lower case', () => {
  assert.equal(parentRefText({ resource: 'Services', namespace: 'default', name: 'web' }), 'services/default/web');
  assert.equal(parentRefText({ group: 'Gateway.Networking.k8s.io', resource: 'gateways', name: 'gw' }), 'gateways.gateway.networking.k8s.io/gw');
  assert.equal(parentRefText(undefined), '<none>');
});
