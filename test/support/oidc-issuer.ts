// A real OIDC issuer for tests: discovery document and JWKS over HTTPS on 127.0.0.1, keys it
// can rotate, and tokens signed with them (or with anything a test wants to try).

import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload, type CryptoKey } from 'jose';
import { startHttpsPeer, type HttpsPeer } from './https-peer.js';

export interface SigningKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export interface OidcIssuer {
  peer: HttpsPeer;
  /** The issuer URL (what `iss` must say). */
  url: string;
  /** The CA of its serving certificate at start (after peer.rotateCA(), peer.caPem is the current one). */
  caPem: string;
  /** The keys published in the JWKS, newest first. */
  keys: SigningKey[];
  /** A new key published (first); `retireOld` drops the others from the JWKS. */
  rotate(opts?: { retireOld?: boolean }): Promise<SigningKey>;
  /** A token from this issuer: iss, aud, iat, exp (+10 min) preset; `claims` override or add. */
  token(claims?: JWTPayload & Record<string, unknown>, opts?: { key?: SigningKey; header?: Record<string, unknown> }): Promise<string>;
  jwksFetches(): number;
  stop(): Promise<void>;
}

let kidCounter = 0;

export async function makeSigningKey(alg = 'RS256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const kid = `key-${++kidCounter}`;
  return { kid, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

/** `path`: the issuer URL's path; `discoveryPath`: serve discovery only there (an issuer.discoveryURL). */
export async function startOidcIssuer(opts: { audience: string; path?: string; discoveryPath?: string } = { audience: 'platform' }): Promise<OidcIssuer> {
  const issuer = {} as OidcIssuer;
  const path = opts.path ?? '';
  issuer.keys = [await makeSigningKey()];
  const peer = await startHttpsPeer((req, _body, res) => {
    const url = req.url ?? '';
    if (url === (opts.discoveryPath ?? `${path}/.well-known/openid-configuration`)) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ issuer: issuer.url, jwks_uri: `${issuer.url}/keys`, id_token_signing_alg_values_supported: ['RS256', 'ES256'] }));
    }
    if (url === `${path}/keys`) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ keys: issuer.keys.map((k) => k.publicJwk) }));
    }
    res.writeHead(404).end();
  });
  Object.assign(issuer, {
    peer,
    url: `${peer.url}${path}`,
    caPem: peer.caPem,
    async rotate(o: { retireOld?: boolean } = {}) {
      const k = await makeSigningKey();
      issuer.keys = o.retireOld ? [k] : [k, ...issuer.keys];
      return k;
    },
    async token(claims: Record<string, unknown> = {}, o: { key?: SigningKey; header?: Record<string, unknown> } = {}) {
      const key = o.key ?? issuer.keys[0]!;
      const now = Math.floor(Date.now() / 1000);
      const body = { iss: issuer.url, aud: opts.audience, iat: now, exp: now + 600, ...claims };
      for (const [k, v] of Object.entries(body)) if (v === undefined) delete (body as Record<string, unknown>)[k];
      return new SignJWT(body).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT', ...o.header }).sign(key.privateKey);
    },
    jwksFetches: () => peer.hits.get(`${path}/keys`) ?? 0,
    stop: () => peer.stop(),
  });
  return issuer;
}
