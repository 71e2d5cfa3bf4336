// The merge follows the kubelet's normalization: every PEM block counts whatever its type or
// headers, duplicates across bundles collapse by DER bytes, the set is sorted bytewise and
// re-encoded as headerless CERTIFICATE blocks at 64 columns.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeCertificate, mergeTrustAnchors } from './merge.js';

const der = (...bytes: number[]) => Buffer.from(bytes);
const block = (type: string, body: Buffer, headers = '') => `-----BEGIN ${type}-----\n${headers}${body.toString('base64')}\n-----END ${type}-----\n`;

describe('mergeTrustAnchors', () => {
  test('dedups across bundles by DER, sorts bytewise, ignores block type and headers', () => {
    const a = der(0x30, 0x01, 0x02);
    const b = der(0x30, 0x01, 0x01);
    const c = der(0x02);
    const merged = mergeTrustAnchors([
      { spec: { trustBundle: block('CERTIFICATE', a) + 'junk between\n' + block('CERTIFICATE', b) } },
      { spec: { trustBundle: block('TRUSTED CERTIFICATE', a, 'Proc-Type: 4,ENCRYPTED\n\n') + block('CERTIFICATE', c) } },
      { spec: {} },
    ]);
    assert.equal(merged, [c, b, a].map(encodeCertificate).join(''));
  });

  test('long DER is wrapped at 64 columns; nothing selected is empty', () => {
    const long = Buffer.alloc(100, 7);
    const pem = encodeCertificate(long);
    const lines = pem.trim().split('\n');
    assert.deepEqual(lines.slice(1, -1).map((l) => l.length), [64, 64, 8]);
    assert.equal(Buffer.from(lines.slice(1, -1).join(''), 'base64').equals(long), true);
    assert.equal(mergeTrustAnchors([]), '');
  });
});
