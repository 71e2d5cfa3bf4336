// Hostile certificates near the 1 MiB bundle limit: huge names, SANs, name constraints and
// policy lists are judged without throwing (no argument spreads, no recursion).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bool, octets, oid, seq, str, tlv } from '../../../../test/differential/x509/der-builder.js';
import { buildCertificate, EXT, p256Key } from '../../../../test/differential/x509/corpus.js';
import { toPEM } from '../../../../test/fixtures/certs.js';
import { validateTrustBundle } from '../validation.js';
import { parseGoCertificate } from './certificate.js';

const key = p256Key();
const big = 700_000;

test('huge SANs, name constraints and names are judged quickly and never throw', () => {
  const certs = [
    buildCertificate({ key, extensions: [EXT.basicCA(), seq(oid('2.5.29.30'), bool(true), octets(seq(tlv(0xa0, seq(str(0x81, `${'a'.repeat(big)}@example.com`))))))] }),
    buildCertificate({ key, extensions: [EXT.basicCA(), seq(oid('2.5.29.17'), octets(seq(str(0x86, `http://${'a.'.repeat(big / 2)}com/${'%41'.repeat(1000)}`))))] }),
    buildCertificate({ key, extensions: [EXT.basicCA()], subject: seq(...Array.from({ length: 20_000 }, () => tlv(0x31, seq(oid('2.5.4.3'), str(0x13, 'abcdefghij'))))) }),
    buildCertificate({ key, extensions: [EXT.basicCA(), seq(oid('2.5.29.32'), octets(seq(...Array.from({ length: 30_000 }, (_, i) => seq(oid(`1.2.${i}`))))))] }),
  ];
  for (const der of certs) {
    assert.deepEqual(parseGoCertificate(der), { ok: true, isCA: true });
    assert.deepEqual(validateTrustBundle(toPEM(der)), []);
  }
});

// Go's pem.Decode rescans the rest of the input for every BEGIN line; done that way here, a
// bundle of 30,000 BEGIN lines held the event loop for minutes. The bound is a hang guard, far
// above the milliseconds these take.
test('a bundle of BEGIN lines is decoded in linear time, with Go’s answers', { timeout: 60_000 }, () => {
  const begins = '-----BEGIN CERTIFICATE-----\n'.repeat(30_000);
  const good = toPEM(buildCertificate({ key, extensions: [EXT.basicCA()] }));
  // No END anywhere: no block at all.
  assert.deepEqual(
    validateTrustBundle(begins).map((e) => [e.field, e.detail]),
    [['spec.trustBundle', 'at least one trust anchor must be provided']],
  );
  // Every BEGIN line is a candidate whose text runs to the one END, and fails as base64, until
  // the last one, which is the good certificate.
  assert.deepEqual(validateTrustBundle(begins + good), []);
  // A line of spaces ends the type line.
  assert.deepEqual(
    validateTrustBundle(`-----BEGIN ${' '.repeat(800_000)}x\n`).map((e) => e.field),
    ['spec.trustBundle'],
  );
});
