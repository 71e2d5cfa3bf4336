import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { startHttpsPeer, type HttpsPeer } from '../../../test/support/https-peer.js';
import { unionAuthenticator, type Authenticator } from '../authenticator.js';
import { TokenWebhookAuthenticator, type TokenWebhookObserver } from './token-webhook-authenticator.js';

const logger = pino({ level: 'silent' });
let peer: HttpsPeer;
const bodies: any[] = [];

before(async () => {
  peer = await startHttpsPeer((_req, body, res) => {
    const review = JSON.parse(body);
    bodies.push(review);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', status: { authenticated: review.spec.token === 'good', user: { username: 'v1-user' } } }));
  });
});
after(() => peer.stop());

const make = (o: { timeoutMs?: number; audiences?: string[]; observer?: TokenWebhookObserver } = {}) =>
  new TokenWebhookAuthenticator({ connection: { server: new URL(`${peer.url}/review`), ca: peer.caPem, insecureSkipTLSVerify: false }, version: 'v1', cacheTtlMs: 0, audiences: o.audiences ?? [], logger, timeoutMs: o.timeoutMs, observer: o.observer });
const withToken = (t: string) => ({ headers: { authorization: `Bearer ${t}` } });

test('v1: the review names authentication.k8s.io/v1; without API audiences, spec has the token only', async () => {
  const w = make();
  const r = await w.authenticate(withToken('good'));
  assert.deepEqual(r, { kind: 'user', user: { username: 'v1-user', groups: [] } });
  assert.deepEqual(bodies.at(-1), { kind: 'TokenReview', apiVersion: 'authentication.k8s.io/v1', metadata: { creationTimestamp: null }, spec: { token: 'good' }, status: { user: {} } });
  w.close();
});

test('a webhook that never answers fails within the timeout (here 1 s), not later', async () => {
  peer.mode = 'slow';
  const w = make({ timeoutMs: 1000 });
  const start = Date.now();
  const r = await w.authenticate(withToken('good'));
  peer.mode = 'ok';
  assert.equal(r.kind, 'error');
  assert.ok(Date.now() - start < 5000, `${Date.now() - start} ms`);
  w.close();
});

test("kube's union: an error from one authenticator does not stop a later one that knows the token", async () => {
  const failing: Authenticator = { authenticate: async () => ({ kind: 'error', message: 'bad jwt' }) };
  const union = unionAuthenticator([failing, make()]);
  const r = await union.authenticate(withToken('good'));
  assert.equal(r.kind, 'user');
  const none = await unionAuthenticator([failing, make()]).authenticate(withToken('unknown'));
  assert.deepEqual(none, { kind: 'error', message: 'bad jwt' }, 'with no user, the first error is the answer');
});

test('requests with one token waiting together share one review, fetched and counted once', async () => {
  const fetches: string[] = [];
  const w = make({ observer: { request: () => {}, cache: () => {}, fetch: (status) => fetches.push(status) } });
  const asked = bodies.length;
  const answers = await Promise.all(Array.from({ length: 5 }, () => w.authenticate(withToken('good'))));
  assert.deepEqual(answers.map((a) => a.kind), ['user', 'user', 'user', 'user', 'user']);
  assert.equal(bodies.length - asked, 1, 'one TokenReview for the five requests');
  assert.deepEqual(fetches, ['ok']);
  w.close();
});
