// Go's processExtensions as far as it can fail: the extensions ParseCertificate decodes (key
// usage, basic constraints, subject alternative names, name constraints, CRL distribution
// points, key identifiers, extended key usage, certificate policies, authority info access and,
// from Go 1.24, the policy extensions) must be well formed; any other extension, critical or
// not, is only recorded (an unhandled critical extension fails Verify, not parsing). Bytes after
// the decoded value inside an extension's OCTET STRING are ignored, as in Go.

import { isIP } from 'node:net';
import { Der, type GoRules } from './der.js';
import { domainLabelsValid, goUrlHost, isIA5, mailboxValid } from './names.js';

export interface Extension {
  id: number[];
  critical: boolean;
  value: Der;
}

const SEQUENCE = 0x30;
const OCTET_STRING = 0x04;
const OID = 0x06;
const INTEGER = 0x02;
const BOOLEAN = 0x01;
const AIA = '1.3.6.1.5.5.7.1.1';

const text = (d: Der): string => Buffer.from(d.b.buffer, d.b.byteOffset + d.pos, d.length).toString('latin1');

function basicConstraints(v: Der): { ok: boolean; isCA: boolean } {
  const seq = v.read(SEQUENCE);
  if (!seq) return { ok: false, isCA: false };
  let isCA = false;
  if (seq.peek(BOOLEAN)) {
    const b = seq.readBoolean();
    if (b === undefined) return { ok: false, isCA: false };
    isCA = b;
  }
  if (seq.peek(INTEGER)) {
    // Read into an int: a negative path length is accepted (Go's development tree refuses it).
    if (seq.readInt64() === undefined) return { ok: false, isCA: false };
  }
  return { ok: true, isCA };
}

function subjectAltNames(v: Der): boolean {
  const seq = v.read(SEQUENCE);
  if (!seq) return false;
  while (!seq.empty) {
    const san = seq.readAnyContents();
    if (!san) return false;
    const data = san.der.bytes();
    switch (san.tag ^ 0x80) {
      case 1: // rfc822Name
      case 2: // dNSName
        if (!isIA5(data)) return false;
        break;
      case 6: {
        if (!isIA5(data)) return false;
        const host = goUrlHost(text(san.der));
        if (host === undefined || (host.length > 0 && !domainLabelsValid(host))) return false;
        break;
      }
      case 7:
        if (data.length !== 4 && data.length !== 16) return false;
        break;
    }
  }
  return true;
}

function validIPMask(mask: Uint8Array): boolean {
  let seenZero = false;
  for (const b of mask) {
    if (seenZero) {
      if (b !== 0) return false;
      continue;
    }
    if ([0x00, 0x80, 0xc0, 0xe0, 0xf0, 0xf8, 0xfc, 0xfe].includes(b)) seenZero = true;
    else if (b !== 0xff) return false;
  }
  return true;
}

const withoutLeadingDot = (s: string): string => (s.startsWith('.') ? s.slice(1) : s);

function subtreesValid(subtrees: Der): boolean {
  while (!subtrees.empty) {
    const seq = subtrees.read(SEQUENCE);
    const item = seq?.readAnyContents();
    if (!item) return false;
    const value = item.der.bytes();
    const s = text(item.der);
    switch (item.tag) {
      case 0x82: // dNSName
        if (!isIA5(value) || !domainLabelsValid(withoutLeadingDot(s))) return false;
        break;
      case 0x87: // iPAddress with mask
        if (value.length !== 8 && value.length !== 32) return false;
        if (!validIPMask(value.subarray(value.length / 2))) return false;
        break;
      case 0x81: // rfc822Name
        if (!isIA5(value)) return false;
        if (s.includes('@') ? !mailboxValid(s) : !domainLabelsValid(withoutLeadingDot(s))) return false;
        break;
      case 0x86: // URI domain
        // net.ParseIP: IPv4 or IPv6 text without a zone.
        if (!isIA5(value) || (isIP(s) !== 0 && !s.includes('%'))) return false;
        if (!domainLabelsValid(withoutLeadingDot(s))) return false;
        break;
    }
  }
  return true;
}

function nameConstraints(v: Der): boolean {
  const top = v.read(SEQUENCE);
  if (!top || !v.empty) return false;
  const permitted = top.peek(0xa0) ? top.read(0xa0) : null;
  if (permitted === undefined) return false;
  const excluded = top.peek(0xa1) ? top.read(0xa1) : null;
  if (excluded === undefined || !top.empty) return false;
  if ((!permitted && !excluded) || ((permitted?.length ?? 0) === 0 && (excluded?.length ?? 0) === 0)) return false;
  return (!permitted || subtreesValid(permitted)) && (!excluded || subtreesValid(excluded));
}

function crlDistributionPoints(v: Der): boolean {
  const seq = v.read(SEQUENCE);
  if (!seq) return false;
  while (!seq.empty) {
    const dp = seq.read(SEQUENCE);
    if (!dp) return false;
    if (!dp.peek(0xa0)) continue;
    const name = dp.read(0xa0)?.read(0xa0);
    if (!name) return false;
    while (!name.empty && name.peek(0x86)) if (!name.read(0x86)) return false;
  }
  return true;
}

function oidSequence(v: Der, rules: GoRules): boolean {
  const seq = v.read(SEQUENCE);
  if (!seq) return false;
  while (!seq.empty) if (!seq.readOid(rules)) return false;
  return true;
}

/** newOIDFromDER: non-empty, last byte ends a subidentifier, no subidentifier starts with 0x80. */
function rawOidValid(b: Uint8Array): boolean {
  if (b.length === 0 || b[b.length - 1]! & 0x80) return false;
  let start = 0;
  for (let i = 0; i < b.length; i++) {
    if (i === start && b[i] === 0x80) return false;
    if ((b[i]! & 0x80) === 0) start = i + 1;
  }
  return true;
}

function certificatePolicies(v: Der, rules: GoRules): boolean {
  const seq = v.read(SEQUENCE);
  if (!seq) return false;
  const seen = new Set<string>();
  while (!seq.empty) {
    const cp = seq.read(SEQUENCE);
    if (!cp) return false;
    if (!rules.go124) {
      if (!cp.readOid(rules)) return false;
      continue;
    }
    const oid = cp.read(OID);
    if (!oid) return false;
    const key = text(oid);
    if (seen.has(key) || !rawOidValid(oid.bytes())) return false;
    seen.add(key);
  }
  return true;
}

function policyMappings(v: Der): boolean {
  const seq = v.read(SEQUENCE);
  if (!seq) return false;
  while (!seq.empty) {
    const m = seq.read(SEQUENCE);
    if (!m || !m.read(OID) || !m.read(OID)) return false;
  }
  return true;
}

function policyConstraints(v: Der): boolean {
  const seq = v.read(SEQUENCE);
  if (!seq) return false;
  if (seq.peek(0x80) && seq.readInt64(0x80) === undefined) return false;
  if (seq.peek(0x81) && seq.readInt64(0x81) === undefined) return false;
  return true;
}

function authorityKeyId(v: Der): boolean {
  const akid = v.read(SEQUENCE);
  if (!akid) return false;
  return !akid.peek(0x80) || akid.read(0x80) !== undefined;
}

function authorityInfoAccess(v: Der, rules: GoRules): boolean {
  const seq = v.read(SEQUENCE);
  if (!seq) return false;
  while (!seq.empty) {
    const aia = seq.read(SEQUENCE);
    if (!aia || !aia.readOid(rules)) return false;
    if (aia.peek(0x86) && !aia.read(0x86)) return false;
  }
  return true;
}

/** Whether every extension Go decodes is well formed; `isCA` from basic constraints. */
export function processExtensions(exts: Extension[], rules: GoRules): { ok: boolean; isCA: boolean } {
  let isCA = false;
  const fail = { ok: false, isCA: false };
  for (const e of exts) {
    const v = new Der(e.value.b, e.value.pos, e.value.end);
    const id = e.id;
    if (id.length === 4 && id[0] === 2 && id[1] === 5 && id[2] === 29) {
      switch (id[3]) {
        case 15:
          if (!v.readBitString()) return fail;
          break;
        case 19: {
          const bc = basicConstraints(v);
          if (!bc.ok) return fail;
          isCA = bc.isCA;
          break;
        }
        case 17:
          if (!subjectAltNames(v)) return fail;
          break;
        case 30:
          if (!nameConstraints(v)) return fail;
          break;
        case 31:
          if (!crlDistributionPoints(v)) return fail;
          break;
        case 35:
          if ((rules.go124 && e.critical) || !authorityKeyId(v)) return fail;
          break;
        case 37:
          if (!oidSequence(v, rules)) return fail;
          break;
        case 14:
          if ((rules.go124 && e.critical) || !v.read(OCTET_STRING)) return fail;
          break;
        case 32:
          if (!certificatePolicies(v, rules)) return fail;
          break;
        case 33:
          if (rules.go124 && !policyMappings(v)) return fail;
          break;
        case 36:
          if (rules.go124 && !policyConstraints(v)) return fail;
          break;
        case 54:
          if (rules.go124 && v.readInt64() === undefined) return fail;
          break;
      }
    } else if (id.join('.') === AIA) {
      if ((rules.go124 && e.critical) || !authorityInfoAccess(v, rules)) return fail;
    }
  }
  return { ok: true, isCA };
}
