// Filter: authentication (kube's WithAuthentication). Who is asking, from a bearer token or a
// client certificate; 401 when nobody could be established. Public paths skip it. The
// credential is removed from the request here and travels no further.

import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';
import type { Logger } from '../../apimachinery/request-context.js';
import { unauthorized } from '../../apimachinery/status-error.js';
import type { Authenticator } from '../../auth/authenticator.js';
import { filter, type Filter, type RequestState } from './filter.js';

export interface AuthenticationOptions {
  authenticator: Authenticator;
  /** Client certificates are looked at only when a client CA is configured. */
  clientCertificates: boolean;
  logger: Logger;
}

export function authenticationFilter(o: AuthenticationOptions): Filter {
  return filter({
    enter(s) {
      if (!s.isPublic) return authenticate(o, s);
    },
  });
}

/**
 * The connection's TLS socket. Over HTTP/2 through the stream's session: the request's own
 * `socket` is a proxy Node makes per stream and keeps for the stream's life (a watch's hour),
 * the session's one per connection.
 */
function tlsSocketOf(s: RequestState): TLSSocket {
  const raw = s.req.raw as { stream?: { session?: { socket?: unknown } }; socket: unknown };
  return (raw.stream?.session?.socket ?? raw.socket) as TLSSocket;
}

/** The client's certificate, then its issuers as far as Node knows them (the authenticator verifies). */
function presentedChain(peer: DetailedPeerCertificate): Buffer[] {
  const chain = [peer.raw];
  for (let c = peer.issuerCertificate; c?.raw && chain.length < 10 && !chain.some((d) => d.equals(c.raw)); c = c.issuerCertificate) chain.push(c.raw);
  return chain;
}

async function authenticate(o: AuthenticationOptions, s: RequestState): Promise<void> {
  const socket = o.clientCertificates ? tlsSocketOf(s) : undefined;
  const peer = socket && typeof socket.getPeerCertificate === 'function' ? socket.getPeerCertificate(true) : undefined;
  const clientCertificate = peer?.raw ? { chain: presentedChain(peer) } : undefined;
  const result = await o.authenticator.authenticate({ headers: s.req.headers, clientCertificate });
  delete s.req.headers.authorization;
  if (result.kind === 'error') o.logger.debug({ reason: result.message }, 'authentication failed');
  if (result.kind !== 'user') throw unauthorized();
  s.authenticated = result.user;
}
