// Accept/reject of Go's x509.ParseCertificate, field by field in Go's order, with Go's quirks
// kept: the version may be explicitly 0, bytes after the extensions inside tbsCertificate and
// after the signature inside the Certificate SEQUENCE are ignored, algorithm parameters are any
// one element (with anything after it ignored), and the two signature AlgorithmIdentifiers must
// be byte-identical. Only the Certificate SEQUENCE must fill the input exactly. The answer is
// what kube's validateTrustBundle needs: parses or not, and cert.IsCA.

import { Der, GO_1_24, type GoRules } from './der.js';
import { processExtensions, type Extension } from './extensions.js';
import { attributeStringValid } from './names.js';
import { publicKeyValid } from './public-key.js';
import { readGoTime } from './time.js';

export type GoCertificate = { ok: true; isCA: boolean } | { ok: false };

const SEQUENCE = 0x30;
const SET = 0x31;
const BOOLEAN = 0x01;
const OCTET_STRING = 0x04;
const FAIL: GoCertificate = { ok: false };

/** parseAI: an OID, then optionally one element of any tag (the parameters). */
function parseAI(ai: Der, rules: GoRules): { oid: number[]; params: Uint8Array } | undefined {
  const oid = ai.readOid(rules);
  if (!oid) return undefined;
  if (ai.empty) return { oid, params: new Uint8Array(0) };
  const p = ai.readAny();
  return p && { oid, params: ai.b.subarray(p.start, p.end) };
}

/** parseName: SEQUENCE OF SET OF SEQUENCE { OID, string value }. */
function nameValid(raw: Der, rules: GoRules): boolean {
  const seq = raw.read(SEQUENCE);
  if (!seq) return false;
  while (!seq.empty) {
    const set = seq.read(SET);
    if (!set) return false;
    while (!set.empty) {
      const atv = set.read(SEQUENCE);
      if (!atv || !atv.readOid(rules)) return false;
      const value = atv.readAnyContents();
      if (!value || !attributeStringValid(value.tag, value.der.bytes())) return false;
    }
  }
  return true;
}

function extensionsValid(tbs: Der, rules: GoRules): { ok: boolean; isCA: boolean } {
  const ok = { ok: true, isCA: false };
  if (!tbs.peek(0xa3)) return ok;
  const wrapped = tbs.read(0xa3);
  const list = wrapped?.read(SEQUENCE);
  if (!list) return { ok: false, isCA: false };
  const exts: Extension[] = [];
  const seen = new Set<string>();
  while (!list.empty) {
    const ext = list.read(SEQUENCE);
    if (!ext) return { ok: false, isCA: false };
    const id = ext.readOid(rules);
    if (!id) return { ok: false, isCA: false };
    let critical = false;
    if (ext.peek(BOOLEAN)) {
      const c = ext.readBoolean();
      if (c === undefined) return { ok: false, isCA: false };
      critical = c;
    }
    const value = ext.read(OCTET_STRING);
    if (!value) return { ok: false, isCA: false };
    const key = id.join('.');
    if (seen.has(key)) return { ok: false, isCA: false }; // duplicate extension
    seen.add(key);
    exts.push({ id, critical, value });
  }
  return processExtensions(exts, rules);
}

/** x509.ParseCertificate(der) succeeds (and then cert.IsCA). Never throws. */
export function parseGoCertificate(der: Uint8Array, rules: GoRules = GO_1_24): GoCertificate {
  try {
    return parse(der, rules);
  } catch {
    // Every read is bounds-checked; should a corner still throw, the certificate is refused
    // (a 422) rather than the request failing with a 500.
    return FAIL;
  }
}

function parse(der: Uint8Array, rules: GoRules): GoCertificate {
  const input0 = Der.of(der);
  const cert = input0.readElement(SEQUENCE);
  if (!cert || cert.end !== der.length) return FAIL; // malformed certificate, or trailing data
  const input = new Der(der, cert.body, cert.end);
  const tbsElement = input.readElement(SEQUENCE);
  if (!tbsElement) return FAIL;
  const tbs = new Der(der, tbsElement.body, tbsElement.end);

  let version = 0n;
  if (tbs.peek(0xa0)) {
    const v = tbs.read(0xa0);
    const n = v?.readInt64();
    if (n === undefined || !v!.empty) return FAIL;
    version = n;
  }
  if (version < 0n || version + 1n > 3n) return FAIL;
  const v = Number(version) + 1;

  const serial = tbs.readBigIntSign();
  if (serial === undefined || (rules.go124 && serial < 0)) return FAIL;

  const sigAI = tbs.read(SEQUENCE);
  const outerSigAI = sigAI && input.read(SEQUENCE);
  if (!sigAI || !outerSigAI) return FAIL;
  if (!Buffer.from(sigAI.bytes()).equals(outerSigAI.bytes())) return FAIL;
  if (!parseAI(sigAI, rules)) return FAIL;

  const issuer = tbs.readElement(SEQUENCE);
  if (!issuer || !nameValid(new Der(der, issuer.start, issuer.end), rules)) return FAIL;

  const validity = tbs.read(SEQUENCE);
  if (!validity || !readGoTime(validity, rules) || !readGoTime(validity, rules)) return FAIL;

  const subject = tbs.readElement(SEQUENCE);
  if (!subject || !nameValid(new Der(der, subject.start, subject.end), rules)) return FAIL;

  const spki = tbs.read(SEQUENCE);
  const pkAISeq = spki?.read(SEQUENCE);
  if (!spki || !pkAISeq) return FAIL;
  const pkAI = parseAI(pkAISeq, rules);
  if (!pkAI) return FAIL;
  const key = spki.readBitString();
  if (!key || !publicKeyValid(pkAI.oid, pkAI.params, key, rules)) return FAIL;

  let isCA = false;
  if (v > 1) {
    if (!tbs.skipOptional(0x81) || !tbs.skipOptional(0x82)) return FAIL; // issuer/subject unique IDs
    if (v === 3) {
      const exts = extensionsValid(tbs, rules);
      if (!exts.ok) return FAIL;
      isCA = exts.isCA;
    }
  }

  if (!input.readBitString()) return FAIL; // signature
  return { ok: true, isCA };
}
