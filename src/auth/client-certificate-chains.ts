// Verifies a client certificate against the client CA bundle in force now, as kube-apiserver's
// x509 authenticator does on every request (Go's Certificate.Verify with the bundle as roots,
// the certificates the client sent after its own as intermediates, the clientAuth usage and the
// current time). The TLS handshake's own verification is not used: it judged the bundle of the
// moment the connection opened, and a connection (an HTTP/2 session above all) outlives bundles.
//
// Building chains is signature work, so what does not depend on the time (which chains lead from
// the certificate to a root, with the clientAuth usage allowed all along) is kept per presented
// chain and bundle; each request then only compares the time with the kept validity windows.

import { createHash, X509Certificate } from 'node:crypto';

const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const ANY_USAGE = '2.5.29.37.0';
/** Longest chain looked for (Go's is unbounded but for a work budget); more than any real PKI. */
const MAX_CHAIN = 8;
/** Chains kept per presented chain: enough for cross-signed intermediates. */
const MAX_CHAINS = 8;
/** Presented chains remembered per bundle, the oldest forgotten first. */
const MAX_REMEMBERED = 1024;

export type ChainVerdict = { ok: true; leaf: X509Certificate } | { ok: false; reason: string };

interface Known {
  leaf?: X509Certificate;
  /** Each chain's window: from its latest notBefore to its earliest notAfter (ms). */
  windows: { from: number; to: number }[];
  /** Why no chain exists (time aside), when none does. */
  reason?: string;
}

function parseBundle(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  const roots: X509Certificate[] = [];
  for (const b of blocks) {
    try {
      roots.push(new X509Certificate(b));
    } catch {
      // Go's AppendCertsFromPEM skips what does not parse; the file watcher refuses such a bundle anyway.
    }
  }
  return roots;
}

const issuedBy = (cert: X509Certificate, issuer: X509Certificate): boolean => {
  try {
    return cert.checkIssued(issuer) && cert.verify(issuer.publicKey);
  } catch {
    return false;
  }
};

/** Go's checkChainForKeyUsage for clientAuth: each certificate naming usages must allow it. */
const allowsClientAuth = (chain: readonly X509Certificate[]): boolean =>
  chain.every((c) => {
    const usages = c.keyUsage;
    return !usages || usages.length === 0 || usages.includes(CLIENT_AUTH) || usages.includes(ANY_USAGE);
  });

const windowOf = (chain: readonly X509Certificate[]): { from: number; to: number } => ({
  from: Math.max(...chain.map((c) => Date.parse(c.validFrom))),
  to: Math.min(...chain.map((c) => Date.parse(c.validTo))),
});

export class ClientCertificateChains {
  private roots: X509Certificate[] = [];
  private known = new Map<string, Known>();

  /** The bundle in force from now on (undefined or empty: no client certificate authenticates). */
  setBundle(pem: string | undefined): void {
    this.roots = pem ? parseBundle(pem) : [];
    this.known.clear();
  }

  hasBundle(): boolean {
    return this.roots.length > 0;
  }

  /** `presented`: the client's certificate (DER) first, then the others it sent. */
  verify(presented: readonly Buffer[], now = Date.now()): ChainVerdict {
    const known = this.knownChains(presented);
    if (known.reason || !known.leaf) return { ok: false, reason: known.reason ?? 'x509: no certificate' };
    if (known.windows.some((w) => w.from <= now && now <= w.to)) return { ok: true, leaf: known.leaf };
    return { ok: false, reason: `x509: certificate has expired or is not yet valid: current time ${new Date(now).toISOString()} is outside ${known.leaf.validFrom} – ${known.leaf.validTo}` };
  }

  private knownChains(presented: readonly Buffer[]): Known {
    const hash = createHash('sha256');
    for (const der of presented) hash.update(der);
    const key = hash.digest('hex');
    let known = this.known.get(key);
    if (!known) {
      known = this.build(presented);
      if (this.known.size >= MAX_REMEMBERED) this.known.delete(this.known.keys().next().value!);
      this.known.set(key, known);
    }
    return known;
  }

  private build(presented: readonly Buffer[]): Known {
    let leaf: X509Certificate;
    let intermediates: X509Certificate[];
    try {
      leaf = new X509Certificate(presented[0]!);
      intermediates = presented.slice(1).map((d) => new X509Certificate(d));
    } catch (err) {
      return { windows: [], reason: `x509: malformed certificate: ${(err as Error).message}` };
    }
    const chains: X509Certificate[][] = [];
    if (this.roots.some((r) => r.raw.equals(leaf.raw))) chains.push([leaf]);
    else this.extend([leaf], intermediates, chains);
    if (chains.length === 0) return { leaf, windows: [], reason: 'x509: certificate signed by unknown authority' };
    const usable = chains.filter(allowsClientAuth);
    if (usable.length === 0) return { leaf, windows: [], reason: 'x509: certificate specifies an incompatible key usage' };
    return { leaf, windows: usable.map(windowOf) };
  }

  /** Every chain from `chain`'s last certificate to a root, through CA intermediates the client sent. */
  private extend(chain: X509Certificate[], intermediates: readonly X509Certificate[], out: X509Certificate[][]): void {
    const last = chain[chain.length - 1]!;
    for (const root of this.roots) {
      if (out.length >= MAX_CHAINS) return;
      if (issuedBy(last, root)) out.push([...chain, root]);
    }
    if (chain.length >= MAX_CHAIN) return;
    for (const next of intermediates) {
      if (out.length >= MAX_CHAINS) return;
      if (!next.ca || chain.some((c) => c.raw.equals(next.raw)) || !issuedBy(last, next)) continue;
      this.extend([...chain, next], intermediates, out);
    }
  }
}
