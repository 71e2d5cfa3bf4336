// ServiceCIDR validation cases the first mutation run found open: an unchanged update, growing
// past two entries, a missing spec, and metadata errors under metadata.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorText } from '../../apimachinery/field-error.js';
import { validateServiceCIDR, validateServiceCIDRUpdate } from './validation.js';
import type { ServiceCIDR } from './types.js';

const sc = (cidrs: string[] | undefined, name = 'range'): ServiceCIDR =>
  ({ apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name, resourceVersion: '1' }, ...(cidrs ? { spec: { cidrs } } : {}) }) as ServiceCIDR;
const update = (before: string[] | undefined, after: string[] | undefined) => validateServiceCIDRUpdate(sc(after), sc(before)).map(fieldErrorText);

describe('ServiceCIDR validation edges', () => {
  test('an update that keeps the entries is valid, single- or dual-stack', () => {
    assert.deepEqual(update(['10.0.0.0/24'], ['10.0.0.0/24']), []);
    assert.deepEqual(update(['10.0.0.0/24', 'fd00::/64'], ['10.0.0.0/24', 'fd00::/64']), []);
  });

  test('growing from one entry to three is immutable as a whole, not an upgrade', () => {
    assert.deepEqual(update(['10.0.0.0/24'], ['10.0.0.0/24', 'fd00::/64', '10.1.0.0/24']), [
      'spec.cidrs: Invalid value: ["10.0.0.0/24","fd00::/64","10.1.0.0/24"]: field is immutable',
    ]);
    assert.deepEqual(update(undefined, ['10.0.0.0/24', 'fd00::/64']), ['spec.cidrs: Invalid value: ["10.0.0.0/24","fd00::/64"]: field is immutable']);
  });

  test('an upgrade whose added entry is not valid says so', () => {
    assert.deepEqual(update(['10.0.0.0/24'], ['10.0.0.0/24', 'fd00::1/64']), ['spec.cidrs[1]: Invalid value: "fd00::1/64": must not have bits set beyond the prefix length']);
  });

  test('a ServiceCIDR without a spec needs a CIDR; metadata errors are under metadata', () => {
    assert.deepEqual(validateServiceCIDR(sc(undefined)).map(fieldErrorText), ['spec.cidrs: Required value: at least one CIDR required']);
    const errs = validateServiceCIDR(sc(['10.0.0.0/24'], 'Not_A_Name')).map(fieldErrorText);
    assert.equal(errs.length, 1);
    assert.match(errs[0]!, /^metadata\.name: Invalid value: "Not_A_Name": /);
  });
});
