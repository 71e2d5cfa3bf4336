// Client certificates (--client-ca-file): the user is the subject's CN (the last one, as Go
// reads it) and the groups its O values, as kube-apiserver maps them. The chain is verified on
// every request against the client CA bundle in force then (client-certificate-chains.ts), not
// by the TLS handshake of the connection, so a CA dropped from the bundle stops authenticating on
// connections already open and a certificate that expires is refused from then on. A presented
// certificate that fails verification is an authentication error (401), never anonymous.

import { createHash } from 'node:crypto';
import type { Authenticator, AuthRequest, AuthResult } from './authenticator.js';
import { ClientCertificateChains } from './client-certificate-chains.js';

/**
 * The subject's attributes in order, as [short name, value], read from Node's subject text
 * (OpenSSL's multiline form: one RDN a line, the attributes of a multi-valued RDN joined by
 * " + ", RFC 2253's special characters escaped with a backslash, control characters as \XX).
 * Multi-valued RDNs are flattened, as Go's pkix.Name does.
 */
export function subjectAttributes(subject: string): [string, string][] {
  const out: [string, string][] = [];
  for (const line of subject.split('\n')) {
    let type = '';
    let value = '';
    let inValue = false;
    for (let i = 0; i < line.length; i++) {
      let c = line[i]!;
      if (c === '\\' && i + 1 < line.length) {
        // No character RFC 2253 escapes is a hex digit, so two of them after \ are a control character.
        const hex = /^[0-9A-Fa-f]{2}/.exec(line.slice(i + 1, i + 3));
        c = hex ? String.fromCharCode(parseInt(hex[0], 16)) : line[i + 1]!;
        i += hex ? 2 : 1;
      } else if (!inValue && c === '=') {
        inValue = true;
        continue;
      } else if (inValue && line.startsWith(' + ', i)) {
        out.push([type, value]);
        [type, value, inValue] = ['', '', false];
        i += 2;
        continue;
      }
      if (inValue) value += c;
      else type += c;
    }
    if (inValue) out.push([type, value]);
  }
  return out;
}

export class X509Authenticator implements Authenticator {
  private readonly chains = new ClientCertificateChains();

  /** The client CA bundle from now on: the next request on every connection is verified against it. */
  setClientCA(pem: string | undefined): void {
    this.chains.setBundle(pem);
  }

  async authenticate(req: AuthRequest): Promise<AuthResult> {
    const client = req.clientCertificate;
    // kube: with no CA bundle content, client certificates authenticate nobody.
    if (!client || client.chain.length === 0 || !this.chains.hasBundle()) return { kind: 'none' };
    const verdict = this.chains.verify(client.chain);
    if (!verdict.ok) return { kind: 'error', message: `verifying certificate failed: ${verdict.reason}` };
    const attributes = subjectAttributes(verdict.leaf.subject);
    // kube reads Go's pkix.Name: CommonName is the last CN, Organization every O in order.
    const username = attributes.filter(([type]) => type === 'CN').at(-1)?.[1] ?? '';
    if (!username) return { kind: 'none' };
    return {
      kind: 'user',
      user: {
        username,
        groups: attributes.filter(([type]) => type === 'O').map(([, value]) => value),
        extra: { 'authentication.kubernetes.io/credential-id': [`X509SHA256=${createHash('sha256').update(client.chain[0]!).digest('hex')}`] },
      },
    };
  }
}
