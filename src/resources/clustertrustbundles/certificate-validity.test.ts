// The DER validity reader against Node's full X509 parse, on real certificates whose windows
// need both time encodings (UTCTime before 2050, GeneralizedTime from 2050), and on broken DER.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { makeCACert, makeLeafCert } from '../../../test/fixtures/certs.js';
import { readValidity } from './certificate-validity.js';
import { earliestExpiry } from './expiry.js';

describe('certificate validity from DER', async () => {
  const certs = [
    await makeCACert({ notBefore: new Date('1999-12-31T23:59:59Z'), notAfter: new Date('2049-12-31T23:59:59Z') }),
    await makeCACert({ notBefore: new Date('2026-01-02T03:04:05Z'), notAfter: new Date('2050-01-01T00:00:00Z') }),
    await makeCACert({ notBefore: new Date('1950-01-01T00:00:00Z'), notAfter: new Date('2999-06-30T12:00:00Z') }),
    await makeLeafCert(),
  ];

  test('matches X509Certificate for every time encoding', () => {
    for (const c of certs) {
      const node = new X509Certificate(c.der);
      const ours = readValidity(c.der);
      assert.ok(ours, 'a well-formed certificate is read');
      assert.equal(ours.notBefore.getTime(), new Date(node.validFrom).getTime());
      assert.equal(ours.notAfter.getTime(), new Date(node.validTo).getTime());
    }
  });

  test('broken DER answers undefined, never throws', () => {
    const der = certs[0]!.der;
    assert.equal(readValidity(Buffer.alloc(0)), undefined);
    assert.equal(readValidity(Buffer.from([0x02, 0x01, 0x00])), undefined);
    for (let n = 0; n < der.length; n += 7) assert.equal(readValidity(der.subarray(0, n)), undefined, `truncated to ${n} bytes`);
    const wrongTime = Buffer.from(der);
    // Turn the notBefore's tag into an OCTET STRING: not a time.
    const at = wrongTime.indexOf(Buffer.from('991231235959Z', 'latin1')) - 2;
    assert.equal(wrongTime[at], 0x17);
    wrongTime[at] = 0x04;
    assert.equal(readValidity(wrongTime), undefined);
  });

  test('earliestExpiry reads the smallest notAfter of a bundle', () => {
    assert.deepEqual(earliestExpiry(certs.map((c) => c.pem).join('')), new Date(new X509Certificate(certs[3]!.der).validTo));
    assert.deepEqual(earliestExpiry(certs[2]!.pem + certs[1]!.pem), new Date('2050-01-01T00:00:00Z'));
  });
});
