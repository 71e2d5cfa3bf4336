// --service-cluster-ip-range and --controllers as parsed at start.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseServiceClusterIPRange, resolveControllers } from './service-ip-range.js';

describe('--service-cluster-ip-range', () => {
  test('absent is kube-apiserver\'s default; entries become canonical networks, primary first', () => {
    assert.deepEqual(parseServiceClusterIPRange(''), ['10.0.0.0/24']);
    assert.deepEqual(parseServiceClusterIPRange('10.96.0.1/16'), ['10.96.0.0/16']);
    assert.deepEqual(parseServiceClusterIPRange('FD00:10:96::/108,10.96.0.0/16'), ['fd00:10:96::/108', '10.96.0.0/16']);
  });

  test('kube-apiserver\'s errors', () => {
    const err = (text: string): string => {
      try {
        parseServiceClusterIPRange(text);
      } catch (e) {
        return (e as Error).message;
      }
      return 'accepted';
    };
    assert.equal(err('nope'), 'service-cluster-ip-range[0] is not a valid cidr');
    assert.equal(err('10.0.0.0/24,nope'), 'service-cluster-ip-range[1] is not an ip net');
    assert.equal(err('10.0.0.0/24,fd00::/108,10.1.0.0/24'), '--service-cluster-ip-range must not contain more than two entries');
    assert.equal(err('fd00::/108,fd01::/108'), '--service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP family');
    assert.equal(err('10.0.0.0/11'), 'specified --service-cluster-ip-range is too large; for 32-bit addresses, the mask must be >= 12');
    assert.equal(err('10.0.0.0/24,fd00::/64'), 'specified --service-cluster-ip-range[1] is too large; for 128-bit addresses, the mask must be >= 108');
    assert.deepEqual(parseServiceClusterIPRange('10.0.0.0/12'), ['10.0.0.0/12']);
  });
});

describe('--controllers', () => {
  const known = ['a', 'b'] as const;
  test('* enables all, -name removes one, name adds one', () => {
    assert.deepEqual([...resolveControllers('*', known)], ['a', 'b']);
    assert.deepEqual([...resolveControllers('*,-b', known)], ['a']);
    assert.deepEqual([...resolveControllers('b', known)], ['b']);
    assert.deepEqual([...resolveControllers('', known)], []);
  });
  test('an unknown name is refused', () => {
    assert.throws(() => resolveControllers('*,-c', known), { message: '--controllers: unknown controller "c" (known: a, b)' });
  });
});
