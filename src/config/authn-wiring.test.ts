// Building the external authenticators: when a later one fails (a token webhook kubeconfig that
// does not exist), the JWT issuer started before is stopped, its discovery fetch ended.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { pino } from 'pino';
import { AuthenticationSetupError, buildExternalAuthenticators } from './authn-wiring.js';
import type { ServerConfig } from './flags.js';
import type { AuthnMetrics } from '../metrics/authn-metrics.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a failing token webhook stops the OIDC issuer set up before it', async () => {
  // An "issuer" that takes connections and never answers: a fetch left running keeps its socket.
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const server = net.createServer((s) => {
    connections++;
    sockets.add(s);
    s.resume();
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const issuerURL = `https://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  const config = {
    authentication: {
      oidc: { issuerURL, clientID: 'platform', usernameClaim: 'sub', usernamePrefix: '-', groupsClaim: '', groupsPrefix: '', requiredClaims: {}, signingAlgs: ['RS256'] },
      tokenWebhook: { configFile: join(tmpdir(), 'platform-no-such-webhook.kubeconfig'), version: 'v1', cacheTtlMs: 0 },
    },
    serviceAccountIssuers: [],
    apiAudiences: [],
  } as unknown as ServerConfig;
  const metrics = { jwt: { attempt: () => {} }, webhook: { request: () => {}, cache: () => {}, fetch: () => {} } } as AuthnMetrics;
  try {
    await assert.rejects(buildExternalAuthenticators(config, pino({ level: 'silent' }), metrics), (err: Error) => err instanceof AuthenticationSetupError && /--authentication-token-webhook-config-file: .*ENOENT/.test(err.message));
    // Long enough for a fetch that was left running to have connected; then none may stay open.
    await sleep(500);
    for (let i = 0; i < 300 && sockets.size > 0; i++) await sleep(10);
    assert.equal(sockets.size, 0, `the issuer's discovery fetch was ended (${connections} connection(s) made)`);
  } finally {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  }
});
