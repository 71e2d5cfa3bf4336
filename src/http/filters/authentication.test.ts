import { test } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '../../apimachinery/request-context.js';
import { isStatusError } from '../../apimachinery/status-error.js';
import type { Authenticator } from '../../auth/authenticator.js';
import { authenticationFilter } from './authentication.js';
import { fakeExchange } from './test-state.js';

const tokens: Authenticator = {
  authenticate: async ({ headers }) => (headers.authorization === 'Bearer good' ? { kind: 'user', user: { username: 'alice', groups: ['system:authenticated'] } } : { kind: 'none' }),
};
const filter = authenticationFilter({ authenticator: tokens, clientCertificates: false, logger: silentLogger });

test('a known credential sets the user and is removed from the request', async () => {
  const x = fakeExchange({ headers: { authorization: 'Bearer good' } });
  let passed = false;
  await filter(x.state, async () => void (passed = true));
  assert.equal(passed, true);
  assert.equal(x.state.authenticated?.username, 'alice');
  assert.equal(x.state.req.headers.authorization, undefined);
});

test('no credential is a 401 that stops the request; public paths need none', async () => {
  const x = fakeExchange();
  await assert.rejects(
    filter(x.state, async () => assert.fail('must not pass')),
    (e: unknown) => isStatusError(e) && e.status.code === 401,
  );
  const pub = fakeExchange();
  pub.state.isPublic = true;
  let passed = false;
  await filter(pub.state, async () => void (passed = true));
  assert.equal(passed, true);
  assert.equal(pub.state.authenticated, undefined);
});

test('client certificates: the presented chain (issuers as far as Node knows them, each once, at most 10), from the connection\'s TLS socket', async () => {
  const der = (n: number) => Buffer.from([n]);
  const asked: (Buffer[] | undefined)[] = [];
  const recording: Authenticator = {
    authenticate: async ({ clientCertificate }) => {
      asked.push(clientCertificate?.chain);
      return { kind: 'user', user: { username: 'cert', groups: [] } };
    },
  };
  const withSocket = (raw: object) => {
    const x = fakeExchange();
    Object.assign(x.state.req.raw as object, raw);
    return x;
  };
  const certs = authenticationFilter({ authenticator: recording, clientCertificates: true, logger: silentLogger });
  // A leaf, its intermediate and a self-signed root (Node's issuerCertificate of a root is itself).
  const root: Record<string, unknown> = { raw: der(3) };
  root.issuerCertificate = root;
  const leaf = { raw: der(1), issuerCertificate: { raw: der(2), issuerCertificate: root } };
  await certs(withSocket({ socket: { getPeerCertificate: (detailed: boolean) => (assert.equal(detailed, true), leaf) } }).state, async () => {});
  assert.deepEqual(asked.at(-1), [der(1), der(2), der(3)]);

  // Over HTTP/2 the session's socket is asked, not the stream's proxy.
  await certs(withSocket({ socket: {}, stream: { session: { socket: { getPeerCertificate: () => ({ raw: der(9) }) } } } }).state, async () => {});
  assert.deepEqual(asked.at(-1), [der(9)]);

  // A chain that never ends is cut at 10.
  const endless = (n: number): Record<string, unknown> => ({ raw: der(n), get issuerCertificate() { return endless(n + 1); } });
  await certs(withSocket({ socket: { getPeerCertificate: () => endless(0) } }).state, async () => {});
  assert.equal(asked.at(-1)!.length, 10);

  // No certificate (an empty object, as Node gives), no TLS socket, or certificates not configured: none presented.
  await certs(withSocket({ socket: { getPeerCertificate: () => ({}) } }).state, async () => {});
  await certs(withSocket({ socket: {} }).state, async () => {});
  const noCerts = authenticationFilter({ authenticator: recording, clientCertificates: false, logger: silentLogger });
  await noCerts(withSocket({ socket: { getPeerCertificate: () => leaf } }).state, async () => {});
  assert.deepEqual(asked.slice(-3), [undefined, undefined, undefined]);
});

test('a bad credential is a 401 too, its reason logged at debug only', async () => {
  const logged: unknown[] = [];
  const bad: Authenticator = { authenticate: async () => ({ kind: 'error', message: 'token expired' }) };
  const logger = { ...silentLogger, debug: (obj: unknown, msg?: string) => void logged.push([obj, msg]) };
  await assert.rejects(
    authenticationFilter({ authenticator: bad, clientCertificates: false, logger })(fakeExchange({ headers: { authorization: 'Bearer x' } }).state, async () => assert.fail('must not pass')),
    (e: unknown) => isStatusError(e) && e.status.code === 401 && e.status.reason === 'Unauthorized',
  );
  assert.deepEqual(logged, [[{ reason: 'token expired' }, 'authentication failed']]);
});
