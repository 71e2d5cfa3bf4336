// How the token webhook authenticator reads a TokenReview service's answers, against a real
// HTTPS peer on loopback (kube's webhook token authenticator): the user an answer names, an
// answer that is "not this credential", status.error, malformed answers, API audiences, which
// HTTP statuses are retried, and the cache (answers kept for the TTL, errors never). Pinned here
// because mutation testing found them unpinned (issue #35).

import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { startHttpsPeer, type HttpsPeer } from '../../../test/support/https-peer.js';
import { TokenWebhookAuthenticator } from './token-webhook-authenticator.js';

const logger = pino({ level: 'silent' });
let peer: HttpsPeer;
/** What the peer answers next: each request takes the first of `answers`, the last one stays. */
let answers: { code: number; body: unknown }[] = [];
const reviews: { spec: Record<string, unknown> }[] = [];

before(async () => {
  peer = await startHttpsPeer((_req, body, res) => {
    reviews.push(JSON.parse(body));
    const a = answers.length > 1 ? answers.shift()! : answers[0]!;
    res.writeHead(a.code, { 'content-type': 'application/json' });
    res.end(typeof a.body === 'string' ? a.body : JSON.stringify(a.body));
  });
});
after(() => peer.stop());
beforeEach(() => {
  reviews.length = 0;
});

const review = (status: unknown, apiVersion = 'authentication.k8s.io/v1') => ({ code: 200, body: { apiVersion, kind: 'TokenReview', status } });
const answer = (...a: { code: number; body: unknown }[]) => void (answers = a);

function make(o: { audiences?: string[]; cacheTtlMs?: number; now?: () => number; timeoutMs?: number } = {}) {
  return new TokenWebhookAuthenticator({
    connection: { server: new URL(`${peer.url}/review`), ca: peer.caPem, insecureSkipTLSVerify: false },
    version: 'v1beta1',
    cacheTtlMs: o.cacheTtlMs ?? 0,
    audiences: o.audiences ?? [],
    logger,
    now: o.now,
    timeoutMs: o.timeoutMs,
  });
}
const withToken = (t: string) => ({ headers: { authorization: `Bearer ${t}` } });
const error = (message: string) => ({ kind: 'error', message: `webhook token authenticator: ${message}` });

describe('TokenReview answers', () => {
  test('an authenticated answer is its user: username, uid, groups, extra', async () => {
    const w = make();
    answer(review({ authenticated: true, user: { username: 'jane', uid: 'u-1', groups: ['dev', 'ops'], extra: { 'example.com/team': ['blue'], empty: null } } }, 'authentication.k8s.io/v1beta1'));
    assert.deepEqual(await w.authenticate(withToken('t')), {
      kind: 'user',
      user: { username: 'jane', uid: 'u-1', groups: ['dev', 'ops'], extra: { 'example.com/team': ['blue'], empty: [] } },
    });
    answer(review({ authenticated: true, user: { username: 'min' } }));
    assert.deepEqual(await w.authenticate(withToken('t')), { kind: 'user', user: { username: 'min', groups: [] } });
    answer(review({ authenticated: true, user: { username: 'nulls', groups: null, extra: null } }));
    assert.deepEqual(await w.authenticate(withToken('t')), { kind: 'user', user: { username: 'nulls', groups: [] } });
    answer(review({ authenticated: true }));
    assert.deepEqual(await w.authenticate(withToken('t')), { kind: 'user', user: { username: '', groups: [] } });
    // The review kube sends for v1beta1.
    assert.deepEqual(reviews[0], { kind: 'TokenReview', apiVersion: 'authentication.k8s.io/v1beta1', metadata: { creationTimestamp: null }, spec: { token: 't' }, status: { user: {} } });
    w.close();
  });

  test('not authenticated is "not this credential"; with status.error it is an error', async () => {
    const w = make();
    answer(review({ authenticated: false }));
    assert.deepEqual(await w.authenticate(withToken('t')), { kind: 'none' });
    answer(review({}));
    assert.deepEqual(await w.authenticate(withToken('t')), { kind: 'none' });
    answer(review({ authenticated: false, error: 'token revoked' }));
    assert.deepEqual(await w.authenticate(withToken('t')), error('token revoked'));
    assert.deepEqual(await w.authenticate({ headers: {} }), { kind: 'none' }, 'no bearer token: not asked');
    assert.equal(reviews.length, 3);
    w.close();
  });

  test('a malformed answer is an error, never a user', async () => {
    const w = make();
    const cases: [unknown, string][] = [
      [{ code: 200, body: 'not json' }, 'the webhook answered something that is not JSON'],
      [{ code: 200, body: [1] }, 'the webhook answered something that is not a TokenReview'],
      [{ code: 200, body: null }, 'the webhook answered something that is not a TokenReview'],
      [{ code: 200, body: 5 }, 'the webhook answered something that is not a TokenReview'],
      [{ code: 200, body: '"TokenReview"' }, 'the webhook answered something that is not a TokenReview'],
      [review({}, `authentication.k8s.io/${'v'.repeat(100)}`), `the webhook answered ${JSON.stringify(`authentication.k8s.io/${'v'.repeat(100)}`).slice(0, 80)} "TokenReview", not an authentication.k8s.io TokenReview`],
      [{ code: 200, body: { apiVersion: 'authentication.k8s.io/v1', kind: 'K'.repeat(100), status: {} } }, `the webhook answered "authentication.k8s.io/v1" ${JSON.stringify('K'.repeat(100)).slice(0, 80)}, not an authentication.k8s.io TokenReview`],
      [review('authenticated'), 'the TokenReview answer has a malformed status'],
      [review({ authenticated: true, user: 'jane' }), 'status.user is not an object'],
      [review({ authenticated: true, user: { username: 'a', extra: 'x' } }), 'status.user.extra is not an object'],
      [review({ authenticated: true }, 'authentication.k8s.io/v2'), 'the webhook answered "authentication.k8s.io/v2" "TokenReview", not an authentication.k8s.io TokenReview'],
      [{ code: 200, body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SubjectAccessReview', status: {} } }, 'the webhook answered "authentication.k8s.io/v1" "SubjectAccessReview", not an authentication.k8s.io TokenReview'],
      [review([]), 'the TokenReview answer has a malformed status'],
      [review({ authenticated: 'yes' }), 'status.authenticated is not a boolean'],
      [review({ authenticated: false, error: 5 }), 'status.error is not a string'],
      [review({ authenticated: true, audiences: 'x' }), 'status.audiences is not a list of strings'],
      [review({ authenticated: true, user: [] }), 'status.user is not an object'],
      [review({ authenticated: true, user: { username: 1 } }), 'status.user.username is not a string'],
      [review({ authenticated: true, user: { username: 'a', uid: 1 } }), 'status.user.uid is not a string'],
      [review({ authenticated: true, user: { username: 'a', groups: ['g', 1] } }), 'status.user.groups is not a list of strings'],
      [review({ authenticated: true, user: { username: 'a', extra: ['x'] } }), 'status.user.extra is not an object'],
      [review({ authenticated: true, user: { username: 'a', extra: { k: 'v' } } }), 'status.user.extra[k] is not a list of strings'],
    ];
    for (const [a, message] of cases) {
      answer(a as { code: number; body: unknown });
      assert.deepEqual(await w.authenticate(withToken('t')), error(message), JSON.stringify(a));
    }
    w.close();
  });

  test('with API audiences: sent in the review; an answer for none of them is not this credential', async () => {
    const w = make({ audiences: ['api', 'other-api'] });
    answer(review({ authenticated: true, user: { username: 'a' }, audiences: ['elsewhere'] }));
    assert.deepEqual(await w.authenticate(withToken('t')), { kind: 'none' });
    assert.deepEqual(reviews.at(-1)!.spec, { token: 't', audiences: ['api', 'other-api'] });
    answer(review({ authenticated: true, user: { username: 'a' }, audiences: ['elsewhere', 'other-api'] }));
    assert.deepEqual(await w.authenticate(withToken('t')), { kind: 'user', user: { username: 'a', groups: [] } });
    answer(review({ authenticated: true, user: { username: 'a' }, audiences: [] }));
    assert.deepEqual(await w.authenticate(withToken('t')), { kind: 'user', user: { username: 'a', groups: [] } }, 'no audiences in the answer: the API\'s own');
    w.close();
    // Without API audiences, the answer's audiences do not matter.
    const plain = make();
    answer(review({ authenticated: true, user: { username: 'a' }, audiences: ['elsewhere'] }));
    assert.deepEqual(await plain.authenticate(withToken('t')), { kind: 'user', user: { username: 'a', groups: [] } });
    plain.close();
  });
});

describe('TokenReview statuses and the cache', () => {
  test('429 and 5xx are retried; another status outside 200 to 206 is an error at once', async () => {
    const w = make();
    answer({ code: 500, body: {} }, { code: 503, body: {} }, { code: 429, body: {} }, review({ authenticated: true, user: { username: 'late' } }));
    assert.deepEqual(await w.authenticate(withToken('t')), { kind: 'user', user: { username: 'late', groups: [] } });
    assert.equal(reviews.length, 4);
    reviews.length = 0;
    answer({ code: 403, body: {} }, review({ authenticated: true, user: { username: 'never' } }));
    assert.deepEqual(await w.authenticate(withToken('t')), error('the webhook answered 403'));
    assert.equal(reviews.length, 1, 'a 403 is not retried');
    reviews.length = 0;
    answer({ code: 204, body: '' }, review({ authenticated: true, user: { username: 'never' } }));
    assert.deepEqual(await w.authenticate(withToken('t')), error('the webhook answered something that is not JSON'), 'a 2xx is read as the answer');
    assert.equal(reviews.length, 1);
    answer({ code: 206, body: review({ authenticated: true, user: { username: 'edge' } }).body });
    assert.deepEqual(await w.authenticate(withToken('t2')), { kind: 'user', user: { username: 'edge', groups: [] } }, '206 is the last answer client-go reads');
    reviews.length = 0;
    for (const code of [207, 299]) {
      answer({ code, body: review({ authenticated: true, user: { username: 'never' } }).body });
      assert.deepEqual(await w.authenticate(withToken(`t${code}`)), error(`the webhook answered ${code}`), `${code} is outside client-go's 200 to 206`);
    }
    assert.equal(reviews.length, 2, 'neither is retried');
    reviews.length = 0;
    answer({ code: 300, body: review({ authenticated: true, user: { username: 'never' } }).body });
    assert.deepEqual(await w.authenticate(withToken('t')), error('the webhook answered 300'));
    assert.equal(reviews.length, 1, 'a 3xx is not retried');
    w.close();
  });

  test('answers are cached for the TTL, negative ones too; errors are not', async () => {
    let now = 1_000_000;
    const w = make({ cacheTtlMs: 10_000, now: () => now });
    answer(review({ authenticated: true, user: { username: 'a' } }));
    await w.authenticate(withToken('t'));
    answer(review({ authenticated: true, user: { username: 'changed' } }));
    now += 9_999;
    assert.deepEqual(await w.authenticate(withToken('t')), { kind: 'user', user: { username: 'a', groups: [] } });
    assert.equal(reviews.length, 1);
    now += 1;
    assert.deepEqual(await w.authenticate(withToken('t')), { kind: 'user', user: { username: 'changed', groups: [] } });
    assert.equal(reviews.length, 2);

    answer(review({ authenticated: false }));
    assert.deepEqual(await w.authenticate(withToken('n')), { kind: 'none' });
    answer(review({ authenticated: true, user: { username: 'n' } }));
    assert.deepEqual(await w.authenticate(withToken('n')), { kind: 'none' }, 'a negative answer is cached too');
    assert.equal(reviews.length, 3);

    answer(review({ authenticated: false, error: 'down' }));
    assert.deepEqual(await w.authenticate(withToken('e')), error('down'));
    answer(review({ authenticated: true, user: { username: 'e' } }));
    assert.deepEqual(await w.authenticate(withToken('e')), { kind: 'user', user: { username: 'e', groups: [] } }, 'an error is asked again');
    assert.equal(reviews.length, 5);
    w.close();
  });
});
