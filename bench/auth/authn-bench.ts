// The JWT authenticator's cost per token on a cache miss (signature check by jose, issuer,
// audience and expiry checks, claim mappings with CEL: a username expression, a groups map, an
// extra value and a validation rule) beside jose's bare jwtVerify of the same tokens with the
// same key set: the floor any correct verification pays. Also one CEL evaluation alone.

import { createLocalJWKSet, jwtVerify } from 'jose';
import { pino } from 'pino';
import { parseAuthenticationConfig } from '../../src/auth/jwt/authentication-config-file.js';
import { compileExpression } from '../../src/auth/jwt/claims-cel.js';
import { JwtAuthenticators } from '../../src/auth/jwt/jwt-authenticators.js';
import { startOidcIssuer } from '../../test/support/oidc-issuer.js';

export async function benchJwtAuthentication(tokens = 1000): Promise<{ authMs: number; joseMs: number; ratio: number; celUs: number }> {
  const issuer = await startOidcIssuer({ audience: 'platform' });
  try {
    const indent = issuer.caPem.trim().split('\n').map((l) => `      ${l}`).join('\n');
    const loaded = parseAuthenticationConfig(
      `apiVersion: apiserver.config.k8s.io/v1beta1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: ${issuer.url}
    certificateAuthority: |
${indent}
    audiences: [platform]
  claimValidationRules: [{expression: "claims.repository == 'acme/deploy'", message: one repository}]
  claimMappings:
    username: {expression: "'github:' + claims.repository"}
    groups: {expression: "claims.teams.map(t, 'team:' + t)"}
    extra: [{key: example.com/workflow, valueExpression: claims.workflow}]
`,
      [],
    );
    const set = new JwtAuthenticators({ logger: pino({ level: 'silent' }) }, loaded);
    const claims = { sub: 'x', repository: 'acme/deploy', workflow: 'deploy', teams: ['a', 'b', 'c'] };
    // Distinct tokens (a cache miss each): one half warms both paths up, the other is measured.
    const all = await Promise.all(Array.from({ length: 2 * tokens }, (_, i) => issuer.token({ ...claims, jti: `t${i}` })));
    const warm = all.slice(0, tokens);
    const list = all.slice(tokens);
    const req = (t: string) => ({ headers: { authorization: `Bearer ${t}` } });
    // Wait for the background discovery.
    for (let i = 0; i < 200 && (await set.authenticate(req(warm[0]!))).kind !== 'user'; i++) await new Promise((r) => setTimeout(r, 50));
    const jwks = createLocalJWKSet({ keys: issuer.keys.map((k) => k.publicJwk) });
    const time = async (fn: (t: string) => Promise<unknown>): Promise<number> => {
      for (const t of warm.slice(1)) await fn(t);
      const started = performance.now();
      for (const t of list) await fn(t);
      return (performance.now() - started) / list.length;
    };
    const joseMs = await time((t) => jwtVerify(t, jwks, { issuer: issuer.url, audience: 'platform', algorithms: ['RS256'] }));
    const authMs = await time(async (t) => {
      if ((await set.authenticate(req(t))).kind !== 'user') throw new Error('benchmark token refused');
    });
    const expr = compileExpression("claims.teams.map(t, 'team:' + t)", 'claims');
    const started = performance.now();
    for (let i = 0; i < 10_000; i++) expr.evaluate({ claims });
    const celUs = ((performance.now() - started) / 10_000) * 1000;
    set.close();
    return { authMs, joseMs, ratio: authMs / joseMs, celUs };
  } finally {
    await issuer.stop();
  }
}
