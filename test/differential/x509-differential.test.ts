// Differential test: our ClusterTrustBundle certificate parsing against Go's own encoding/pem +
// crypto/x509 (test/differential/x509/main.go, built with the machine's Go). Tens of thousands
// of certificates (well-formed ones of every key type Go parses, each byte changed, truncated,
// extended, every element's header encoded in each lenient BER way, odd times, serials, names,
// extensions and keys) must get the same accept/reject and CA bit; bundles of PEM text must get
// the same validateTrustBundle messages. Go 1.24 (kube 1.33's) has rules the Debian Go 1.19 of a
// test machine lacks (listed in src/resources/clustertrustbundles/go-x509/der.ts): the parser is
// run with the rules of the Go it is compared with, and go-x509/go124-rules.test.ts pins each
// 1.24 rule separately. X509_DIFFERENTIAL_FULL=1 adds 200,000 random multi-byte mutations.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseGoCertificate, type GoCertificate } from '../../src/resources/clustertrustbundles/go-x509/certificate.js';
import type { GoRules } from '../../src/resources/clustertrustbundles/go-x509/der.js';
import { pemDecodeAll } from '../../src/resources/clustertrustbundles/pem-decode.js';
import { validateTrustBundle } from '../../src/resources/clustertrustbundles/validation.js';
import { requireTool } from '../e2e/require-tool.js';
import { makeCACert, toPEM } from '../fixtures/certs.js';
import { baseCertificates, byteMutations, fieldMutations, keyInfos, lengthMutations, structureMutations, timeMutations } from './x509/corpus.js';
import { buildGoOracle, type GoOracle } from './x509/go-oracle.js';

const GO_1_19: GoRules = { go124: false };
const GO_1_24: GoRules = { go124: true };
const FULL = process.env.X509_DIFFERENTIAL_FULL === '1';

/** The rule sets a Go release may follow: exact for 1.19 and ≥ 1.24, either in between. */
function rulesFor([major, minor]: [number, number]): GoRules[] {
  if (major === 1 && minor <= 19) return [GO_1_19];
  if (major === 1 && minor < 24) return [GO_1_19, GO_1_24];
  return [GO_1_24];
}

const goAnswer = (line: string): GoCertificate => (line.startsWith('ok') ? { ok: true, isCA: line === 'ok ca' } : { ok: false });
const same = (a: GoCertificate, b: GoCertificate): boolean => a.ok === b.ok && (!a.ok || (b.ok && a.isCA === b.isCA));

function* randomMutations(bases: Buffer[], count: number): Generator<Buffer> {
  let seed = 0x2545f491;
  const rand = (n: number): number => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  for (let i = 0; i < count; i++) {
    const m = Buffer.from(bases[rand(bases.length)]!);
    for (let k = 1 + rand(3); k > 0; k--) m[rand(m.length)] = rand(256);
    yield m;
  }
}

const bundleCert = toPEM;

describe('certificate parsing equals Go crypto/x509', () => {
  const go = requireTool('go', 'the differential test compares with Go encoding/pem + crypto/x509 (Debian golang-go)');
  let oracle: GoOracle | undefined;
  before(() => {
    if (go) oracle = buildGoOracle(go);
  });
  after(() => oracle?.close());

  test('accept/reject and the CA bit equal Go for every certificate and mutation', { skip: !go }, async () => {
    const keys = keyInfos();
    // Plus one real certificate as @peculiar/x509 makes them (the tests' and many clients' kind).
    const bases = [...baseCertificates(keys), (await makeCACert({ commonName: 'differential' })).der];
    const cases: Buffer[] = [...bases];
    const add = (gen: Iterable<Buffer>): void => {
      for (const der of gen) cases.push(der);
    };
    for (const base of bases) [byteMutations(base), lengthMutations(base), structureMutations(base)].forEach(add);
    add(timeMutations(keys.p256!));
    add(fieldMutations(keys));
    if (FULL) add(randomMutations(bases, 200_000));

    const answers = await oracle!.certificates(cases);
    const ruleSets = rulesFor(oracle!.release);
    const mismatches: string[] = [];
    let accepted = 0;
    let go124Differs = 0;
    cases.forEach((der, i) => {
      const theirs = goAnswer(answers[i]!);
      if (theirs.ok) accepted++;
      if (!same(parseGoCertificate(der, GO_1_19), parseGoCertificate(der, GO_1_24))) go124Differs++;
      if (!ruleSets.some((rules) => same(parseGoCertificate(der, rules), theirs))) {
        mismatches.push(`go "${answers[i]}", ours ${JSON.stringify(parseGoCertificate(der, ruleSets[0]!))}: ${der.toString('base64')}`);
      }
    });
    process.stdout.write(
      `# x509 differential: ${cases.length} certificates compared with ${oracle!.version} (${accepted} accepted by Go, ${cases.length - accepted} rejected); ` +
        `${go124Differs} are judged differently by Go 1.24's extra rules; ${mismatches.length} disagreements\n`,
    );
    assert.deepEqual(mismatches.slice(0, 3), [], `${mismatches.length} disagreements with Go`);
    assert.ok(accepted > 100 && cases.length - accepted > 1000, 'the corpus has both accepted and rejected certificates');
  });

  test('validateTrustBundle messages equal kube validateTrustBundle with Go pem.Decode', { skip: !go }, async () => {
    const keys = keyInfos();
    const [ca, rsaCa, , , , , , , leaf] = baseCertificates(keys);
    const good = bundleCert(ca!);
    const other = bundleCert(rsaCa!);
    const body = ca!.toString('base64');
    const pieces = [
      good,
      other,
      bundleCert(leaf!),
      bundleCert(ca!.subarray(0, 100)),
      bundleCert(ca!, 'PRIVATE KEY'),
      bundleCert(ca!, 'X509 CRL'),
      `-----BEGIN CERTIFICATE-----\nProc-Type: 4,ENCRYPTED\n\n${body}\n-----END CERTIFICATE-----\n`,
      `-----BEGIN CERTIFICATE-----\r\n${body}\r\n-----END CERTIFICATE-----\r\n`,
      `-----BEGIN CERTIFICATE-----  \n${body}\t\n-----END CERTIFICATE-----\t \n`,
      `-----BEGIN CERTIFICATE-----\n${body.slice(0, 10)} ${body.slice(10)}\n-----END CERTIFICATE-----\n`,
      `-----BEGIN CERTIFICATE-----\n${body}!\n-----END CERTIFICATE-----\n`,
      `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----x\n`,
      `-----BEGIN CERTIFICATE-----\n${body}\n-----END OTHER-----\n`,
      `-----BEGIN CERTIFICATE-----\n${body}`,
      `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----`,
      '-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n',
      '-----BEGIN CERTIFICATE-----\nKey: v\n',
      '-----BEGIN  CERTIFICATE-----\n',
      'junk text\n',
      '  indented -----BEGIN CERTIFICATE-----\n',
      '\n',
      '',
    ];
    const texts: string[] = [...pieces];
    let seed = 7;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const seps = ['', '\n', '\r\n', ' \n', 'junk\n', '\n\n'];
    for (let i = 0; i < (FULL ? 20_000 : 3_000); i++) {
      const n = 1 + rand(4);
      let t = '';
      for (let k = 0; k < n; k++) t += pieces[rand(pieces.length)]! + seps[rand(seps.length)]!;
      texts.push(t);
    }
    // Each character of the armor lines changed (the body's bytes are the certificate test's job).
    const armor = good.length - body.length;
    for (let i = 0; i < good.length; i++) {
      if (i > 28 && i < good.length - 27 && armor > 0) continue;
      for (const c of ['-', ' ', '\n', 'X', ':', '\r']) if (good[i] !== c) texts.push(good.slice(0, i) + c + good.slice(i + 1) + other);
    }

    const answers = await oracle!.bundles(texts);
    const exact = rulesFor(oracle!.release).length === 1 && rulesFor(oracle!.release)[0]!.go124;
    const mismatches: string[] = [];
    let compared = 0;
    texts.forEach((text, i) => {
      // Bundles holding a certificate Go 1.24's extra rules judge differently need Go 1.24 itself.
      const differs = pemDecodeAll(text).some((b) => !same(parseGoCertificate(b.bytes, GO_1_19), parseGoCertificate(b.bytes, GO_1_24)));
      if (differs && !exact) return;
      compared++;
      const ours = validateTrustBundle(text).map((e) => e.detail);
      const theirs = answers[i]!;
      if (JSON.stringify(ours) !== JSON.stringify(theirs)) mismatches.push(`${JSON.stringify(text)}: go ${JSON.stringify(theirs)} ours ${JSON.stringify(ours)}`);
    });
    process.stdout.write(`# x509 differential: ${compared} trust bundles compared with ${oracle!.version}; ${mismatches.length} disagreements\n`);
    assert.deepEqual(mismatches.slice(0, 5), []);
  });
});
