// Client certificates (--client-ca-file): the user is the subject's CN and the groups its O
// values, as kube-apiserver maps them. The chain is verified on every request against the client
// CA bundle in force then (client-certificate-chains.ts), not by the TLS handshake of the
// connection, so a CA dropped from the bundle stops authenticating on connections already open
// and a certificate that expires is refused from then on. A presented certificate that fails
// verification is an authentication error (401), never anonymous.

import { createHash } from 'node:crypto';
import type { Authenticator, AuthRequest, AuthResult } from './authenticator.js';
import { ClientCertificateChains } from './client-certificate-chains.js';

/** Subject RDNs of a certificate, in order (`CN=alice\nO=devs`). */
function subjectValues(subject: string, attribute: string): string[] {
  return subject
    .split('\n')
    .filter((line) => line.startsWith(`${attribute}=`))
    .map((line) => line.slice(attribute.length + 1));
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
    const username = subjectValues(verdict.leaf.subject, 'CN')[0] ?? '';
    if (!username) return { kind: 'none' };
    return {
      kind: 'user',
      user: {
        username,
        groups: subjectValues(verdict.leaf.subject, 'O'),
        extra: { 'authentication.kubernetes.io/credential-id': [`X509SHA256=${createHash('sha256').update(client.chain[0]!).digest('hex')}`] },
      },
    };
  }
}
