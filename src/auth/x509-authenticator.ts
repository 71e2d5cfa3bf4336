// Client certificates (--client-ca-file): TLS verifies the chain against the client CA; the
// user is the subject's CN and the groups its O values, as kube-apiserver maps them. A presented
// certificate that fails verification is an authentication error (401), never anonymous.

import { createHash, X509Certificate } from 'node:crypto';
import type { Authenticator, AuthRequest, AuthResult } from './authenticator.js';

/** Subject RDNs of a certificate, in order (`CN=alice\nO=devs`). */
function subjectValues(cert: X509Certificate, attribute: string): string[] {
  return cert.subject
    .split('\n')
    .filter((line) => line.startsWith(`${attribute}=`))
    .map((line) => line.slice(attribute.length + 1));
}

export class X509Authenticator implements Authenticator {
  async authenticate(req: AuthRequest): Promise<AuthResult> {
    const client = req.clientCertificate;
    if (!client) return { kind: 'none' };
    if (!client.verified) return { kind: 'error', message: `verifying certificate failed: ${client.error ?? 'unknown authority'}` };
    const cert = new X509Certificate(client.der);
    const username = subjectValues(cert, 'CN')[0] ?? '';
    if (!username) return { kind: 'none' };
    return {
      kind: 'user',
      user: {
        username,
        groups: subjectValues(cert, 'O'),
        extra: { 'authentication.kubernetes.io/credential-id': [`X509SHA256=${createHash('sha256').update(client.der).digest('hex')}`] },
      },
    };
  }
}
