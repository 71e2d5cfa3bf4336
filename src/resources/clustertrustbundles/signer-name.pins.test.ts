// The signerName length limit (issue #35): upstream allows 571 bytes and refuses 572 with a
// TooLong error, on a name that is otherwise valid (domain and path rules met).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fieldErrorText } from '../../apimachinery/field-error.js';
import { validateSignerName } from './validation.js';

/** `example.com/<path>` of exactly `bytes` bytes, the path in DNS-subdomain pieces. */
function signerName(bytes: number): string {
  const domain = 'example.com/';
  let path = '';
  while (domain.length + path.length < bytes) {
    const room = bytes - domain.length - path.length - (path ? 1 : 0);
    path += (path ? '.' : '') + 'a'.repeat(Math.min(200, room));
  }
  const name = domain + path;
  assert.equal(Buffer.byteLength(name), bytes);
  return name;
}

test('a signerName of 571 bytes is valid; 572 is too long', () => {
  assert.deepEqual(validateSignerName(signerName(571)).map(fieldErrorText), []);
  const long = signerName(572);
  const errs = validateSignerName(long);
  assert.deepEqual(errs.map((e) => [e.type, e.field, e.detail]), [['FieldValueTooLong', 'spec.signerName', 'must have at most 571 bytes']]);
  assert.equal(errs[0]!.badValue, long);
});
