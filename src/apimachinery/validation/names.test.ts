import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue, nameIsDNSSubdomain } from './names.js';

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

describe('name rules', () => {
  test('DNS-1123 subdomain', () => {
    assert.deepEqual(isDNS1123Subdomain('example.com'), []);
    assert.deepEqual(isDNS1123Subdomain('Bad_Name'), [SUBDOMAIN_MSG]);
    assert.deepEqual(isDNS1123Subdomain('a'.repeat(254)), ['must be no more than 253 characters']);
  });

  test('DNS-1123 label, with the dots special case', () => {
    assert.deepEqual(isDNS1123Label('my-name'), []);
    assert.deepEqual(isDNS1123Label('a.b'), ['must not contain dots']);
    assert.deepEqual(isDNS1123Label('-x'), [
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name', or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
  });

  test('qualified names with prefixes', () => {
    assert.deepEqual(isQualifiedName('example.com/MyName'), []);
    assert.deepEqual(isQualifiedName('/x'), ['prefix part must be non-empty']);
    assert.deepEqual(isQualifiedName('a/b/c').length, 1);
    assert.match(isQualifiedName('a/b/c')[0]!, /^a qualified name must consist of alphanumeric characters/);
    assert.deepEqual(isQualifiedName('x/'), [
      'name part must be non-empty',
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName', or 'my.name', or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]);
  });

  test('label values', () => {
    assert.deepEqual(isValidLabelValue(''), []);
    assert.deepEqual(isValidLabelValue('v1.2_x'), []);
    assert.equal(isValidLabelValue('-bad').length, 1);
    assert.deepEqual(isValidLabelValue('a'.repeat(64))[0], 'must be no more than 63 characters');
  });

  test('generateName may end with a dash', () => {
    assert.deepEqual(nameIsDNSSubdomain('bench-', true), []);
    assert.equal(nameIsDNSSubdomain('bench-', false).length, 1);
  });
});
