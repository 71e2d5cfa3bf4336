// The whole request path as buildChain puts it together, over fake exchanges: the order of the
// filters shows in what a refused request already carries, and in which refusal comes first.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '../../apimachinery/request-context.js';
import { isStatusError } from '../../apimachinery/status-error.js';
import type { RequestKind, RequestObservation, RequestObserver } from '../../apimachinery/request-observer.js';
import type { Authenticator } from '../../auth/authenticator.js';
import { ALL_RULES, type Authorizer } from '../../auth/authorizer.js';
import { buildChain, type ChainOptions } from './chain.js';
import { fakeExchange } from './test-state.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';

const tokens: Authenticator = {
  authenticate: async ({ headers }) => {
    const m = /^Bearer (\w+)$/.exec(String(headers.authorization ?? ''));
    return m ? { kind: 'user', user: { username: m[1]!, groups: m[1] === 'root' ? ['system:masters'] : [] } } : { kind: 'none' };
  },
};
/** alice and system:masters may do anything; nobody else anything. */
const onlyAlice: Authorizer = {
  rulesFor: async () => ALL_RULES,
  authorize: async (a) => (a.user.username === 'alice' || a.user.groups.includes('system:masters') ? { decision: 'allow', reason: '' } : { decision: 'no-opinion', reason: '' }),
};

function recorder() {
  const seen: RequestObservation[] = [];
  const inflight: string[] = [];
  const observer: RequestObserver = {
    observe: (o) => void seen.push(o),
    inflight: (kind: RequestKind, delta: number) => void inflight.push(`${kind} ${delta}`),
    longRunning() {},
    rejected: (kind: RequestKind, why: string) => void inflight.push(`rejected ${kind} ${why}`),
  };
  return { observer, seen, inflight };
}

function chain(o: Partial<ChainOptions>, handler: Parameters<typeof buildChain>[1]) {
  const r = recorder();
  const run = buildChain(
    {
      authenticator: tokens,
      authorizer: onlyAlice,
      clientCertificates: false,
      limits: { maxRequestsInflight: 1, maxMutatingRequestsInflight: 1 },
      maxEventLoopDelayMs: 0,
      eventLoopLag: () => 0,
      requestTimeoutMs: 60_000,
      observer: r.observer,
      served: () => true,
      logger: silentLogger,
      ...o,
    },
    handler,
  );
  return { run, ...r };
}

const exchange = (user: string | undefined, url = SC, method = 'GET') => fakeExchange({ method, url, headers: user ? { authorization: `Bearer ${user}` } : {} });
const status = (code: number) => (e: unknown) => isStatusError(e) && e.status.code === code;

test('an allowed request reaches the handler resolved, authenticated, counted in flight and, once over, observed', async () => {
  let handled = 0;
  const c = chain({}, async (s) => {
    handled++;
    assert.equal(s.info.resource, 'servicecidrs');
    assert.equal(s.info.verb, 'list');
    assert.equal(s.authenticated?.username, 'alice');
    assert.equal(s.req.headers.authorization, undefined, 'the credential goes no further than authentication');
    assert.ok(s.deadline !== undefined && s.deadline - s.receivedAt === 60_000, 'the request timeout applies');
  });
  const x = exchange('alice');
  await c.run(x.state);
  assert.equal(handled, 1);
  assert.equal(x.headers['audit-id'], 'test-request');
  assert.equal(x.headers['cache-control'], 'no-cache, private');
  assert.deepEqual(c.inflight, ['readOnly 1']);
  x.close();
  assert.deepEqual(c.inflight, ['readOnly 1', 'readOnly -1']);
  assert.equal(c.seen.length, 1);
  assert.equal(c.seen[0]!.resource, 'servicecidrs');
  assert.equal(c.seen[0]!.code, 200);
});

test('no credential: 401 before anything else is weighed, yet with the Audit-Id and Cache-Control already set', async () => {
  const c = chain({}, async () => assert.fail('must not be handled'));
  const x = exchange(undefined);
  await assert.rejects(c.run(x.state), status(401));
  assert.equal(x.headers['audit-id'], 'test-request');
  assert.equal(x.headers['cache-control'], 'no-cache, private');
  assert.deepEqual(c.inflight, [], 'never counted in flight');
});

test('the in-flight limit comes before authorization: a full pool refuses even a user who may not ask (429, not 403); then 403', async () => {
  let release!: () => void;
  const c = chain({}, () => new Promise<void>((resolve) => (release = resolve)));
  const first = exchange('alice');
  const held = c.run(first.state);
  await new Promise((resolve) => setImmediate(resolve));
  await assert.rejects(c.run(exchange('eve').state), status(429));
  release();
  await held;
  first.close();
  await assert.rejects(c.run(exchange('eve').state), status(403));
});

test('system:masters is never limited; the request timeout answers 504; 0 turns the timeout off', async () => {
  const c = chain({ requestTimeoutMs: 30 }, () => new Promise<void>((resolve) => setTimeout(resolve, 300)));
  // Both in flight at once, past a limit of 1: neither is refused, both time out.
  await Promise.all([assert.rejects(c.run(exchange('root').state), status(504)), assert.rejects(c.run(exchange('root').state), status(504))]);

  const untimed = chain({ requestTimeoutMs: 0 }, async (s) => assert.equal(s.deadline, undefined));
  await untimed.run(exchange('alice').state);
});
