// CIDR parsing edges that mutation testing found unpinned (issue #35): each case is one bug a
// small change in cidr.ts would bring in, checked through validation with kube's exact message
// (apimachinery IsValidCIDR on k8s.io/utils/net's ParseCIDRSloppy, which is Go's parser).

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorText } from '../../apimachinery/field-error.js';
import { validateServiceCIDR } from './validation.js';
import type { ServiceCIDR } from './types.js';

const errorsFor = (cidr: string): string[] =>
  validateServiceCIDR({
    apiVersion: 'networking.platform.io/v1',
    kind: 'ServiceCIDR',
    metadata: { name: 'range' },
    spec: { cidrs: [cidr] },
  } as ServiceCIDR).map(fieldErrorText);

const invalid = (cidr: string, message: string): string[] => [`spec.cidrs[0]: Invalid value: ${JSON.stringify(cidr)}: ${message}`];
const NOT_A_CIDR = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';

describe('CIDR parsing pins', () => {
  test('an IPv4 octet of 256 is not an address; 255 is', () => {
    assert.deepEqual(errorsFor('10.0.0.256/32'), invalid('10.0.0.256/32', NOT_A_CIDR));
    assert.deepEqual(errorsFor('10.0.0.255/32'), []);
  });

  test('"::" must stand for at least one zero group (Go: the :: must expand to at least one field of zeros)', () => {
    assert.deepEqual(errorsFor('1:2:3:4:5:6:7::8/128'), invalid('1:2:3:4:5:6:7::8/128', NOT_A_CIDR));
    // One group is enough for "::" to parse (and a single zero group is then written out).
    assert.deepEqual(errorsFor('1:2:3:4:5:6::8/128'), invalid('1:2:3:4:5:6::8/128', 'must be in canonical form ("1:2:3:4:5:6:0:8/128")'));
  });

  test('canonical IPv6 compresses the first of two equally long zero runs', () => {
    assert.deepEqual(
      errorsFor('2001:db8:0:0:1:0:0:1/128'),
      invalid('2001:db8:0:0:1:0:0:1/128', 'must be in canonical form ("2001:db8::1:0:0:1/128")'),
    );
    assert.deepEqual(errorsFor('2001:db8::1:0:0:1/128'), []);
  });

  test('canonical IPv6 never compresses a single zero group', () => {
    assert.deepEqual(errorsFor('2001:db8:0:1:1:1:1:1/128'), []);
    assert.deepEqual(
      errorsFor('2001:db8::1:1:1:1:1/128'),
      invalid('2001:db8::1:1:1:1:1/128', 'must be in canonical form ("2001:db8:0:1:1:1:1:1/128")'),
    );
  });

  test('an IPv4-mapped address at exactly /96 parses, and is refused as mapped', () => {
    assert.deepEqual(errorsFor('::ffff:0.0.0.0/96'), invalid('::ffff:0.0.0.0/96', 'must not have an IPv4-mapped IPv6 address'));
    assert.deepEqual(errorsFor('::ffff:10.0.0.0/104'), invalid('::ffff:10.0.0.0/104', 'must not have an IPv4-mapped IPv6 address'));
  });
});
