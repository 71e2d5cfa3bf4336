// The token webhook authenticator's exchange with its TokenReview service, against a real HTTPS
// peer on loopback: the request it sends (method, headers, the kubeconfig's bearer token), which
// failures are retried and how often (kube's backoff: 5 attempts, all within the one deadline),
// a reset connection, an answer too large to read, the timeout's message, what it logs, and what
// its observer is told (each HTTP exchange, cache hits and misses, each review fetched). Pinned
// here because mutation testing found them unpinned (issue #35).

import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { silentLogger, type Logger } from '../../apimachinery/request-context.js';
import { startHttpsPeer, type HttpsPeer } from '../../../test/support/https-peer.js';
import { TokenWebhookAuthenticator, type TokenWebhookObserver } from './token-webhook-authenticator.js';

let peer: HttpsPeer;
/** How the peer answers each request, in turn; the last one stays. */
let handlers: ((req: IncomingMessage, res: ServerResponse) => void)[] = [];
const seen: { method?: string; url?: string; headers: IncomingMessage['headers']; body: string }[] = [];

before(async () => {
  peer = await startHttpsPeer((req, body, res) => {
    seen.push({ method: req.method, url: req.url, headers: req.headers, body });
    const h = handlers.length > 1 ? handlers.shift()! : handlers[0]!;
    h(req, res);
  });
});
after(() => peer.stop());
beforeEach(() => {
  seen.length = 0;
});

const json = (code: number, body: unknown) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
const authenticated = (username: string) => json(200, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', status: { authenticated: true, user: { username } } });
const reset = (req: IncomingMessage) => req.socket.destroy();

interface Heard {
  requests: string[];
  cache: string[];
  fetches: string[];
}

function make(o: { token?: string; cacheTtlMs?: number; timeoutMs?: number; logger?: Logger } = {}) {
  const heard: Heard = { requests: [], cache: [], fetches: [] };
  const observer: TokenWebhookObserver = {
    // Seconds, not nanoseconds: no exchange here takes five minutes.
    request: (code, seconds) => {
      assert.ok(seconds >= 0 && seconds < 300, String(seconds));
      heard.requests.push(code);
    },
    cache: (status, seconds) => {
      assert.ok(seconds >= 0 && seconds < 300, String(seconds));
      heard.cache.push(status);
    },
    fetch: (status) => void heard.fetches.push(status),
  };
  const w = new TokenWebhookAuthenticator({
    connection: { server: new URL(`${peer.url}/review?x=1`), ca: peer.caPem, insecureSkipTLSVerify: false, token: o.token },
    version: 'v1',
    cacheTtlMs: o.cacheTtlMs ?? 0,
    audiences: [],
    logger: o.logger ?? silentLogger,
    observer,
    timeoutMs: o.timeoutMs,
  });
  return { w, heard };
}
const withToken = (t: string) => ({ headers: { authorization: `Bearer ${t}` } });
const error = (message: string) => ({ kind: 'error', message: `webhook token authenticator: ${message}` });

describe('the request', () => {
  test("a POST of JSON to the kubeconfig's server, with its bearer token when it has one", async () => {
    handlers = [authenticated('a')];
    const { w } = make({ token: 'webhook-secret' });
    assert.deepEqual(await w.authenticate(withToken('t')), { kind: 'user', user: { username: 'a', groups: [] } });
    const [r] = seen;
    assert.equal(r!.method, 'POST');
    assert.equal(r!.url, '/review?x=1');
    assert.equal(r!.headers.authorization, 'Bearer webhook-secret');
    assert.equal(r!.headers['content-type'], 'application/json');
    assert.equal(r!.headers.accept, 'application/json, */*');
    assert.equal(r!.headers['content-length'], String(Buffer.byteLength(r!.body)));
    w.close();
    const plain = make();
    await plain.w.authenticate(withToken('t'));
    assert.equal(seen[1]!.headers.authorization, undefined, 'no token in the kubeconfig: no authorization header');
    plain.w.close();
  });
});

describe('retries and failures', () => {
  test('a reset connection is retried', async () => {
    handlers = [reset, authenticated('after-reset')];
    const { w, heard } = make();
    assert.deepEqual(await w.authenticate(withToken('t')), { kind: 'user', user: { username: 'after-reset', groups: [] } });
    assert.equal(seen.length, 2);
    assert.deepEqual(heard.requests, ['<error>', '200'], 'an exchange without an answer has no status code');
    w.close();
  });

  test('a connection cut in the middle of the answer is an error, counted as one exchange', async () => {
    handlers = [
      (req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"apiVersion":"authentication.k8s.io/v1",');
        setTimeout(() => req.socket.destroy(), 50);
      },
    ];
    const { w, heard } = make({ timeoutMs: 5000 });
    const r = await w.authenticate(withToken('t'));
    assert.deepEqual(r, error('aborted'));
    assert.deepEqual(heard.requests, ['200']);
    w.close();
  });

  test('an answer whose body stops coming is cut at the deadline', async () => {
    handlers = [
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"apiVersion":"authentication.k8s.io/v1",');
      },
    ];
    const { w, heard } = make({ timeoutMs: 1000 });
    assert.deepEqual(await w.authenticate(withToken('t')), error('the webhook did not answer within 1s'));
    assert.deepEqual(heard.requests, ['200']);
    w.close();
  });

  test('5xx is retried five times in all, then the last status is the error', async () => {
    handlers = [json(500, {})];
    const { w, heard } = make();
    assert.deepEqual(await w.authenticate(withToken('t')), error('the webhook answered 500'));
    assert.equal(seen.length, 5);
    assert.deepEqual(heard.requests, ['500', '500', '500', '500', '500']);
    assert.deepEqual(heard.fetches, ['error']);
    assert.deepEqual(heard.cache, ['miss']);
    w.close();
  });

  test('no retry would start after the deadline: a 1 s timeout leaves room for two attempts', async () => {
    handlers = [json(503, {})];
    const { w } = make({ timeoutMs: 1000 });
    assert.deepEqual(await w.authenticate(withToken('t')), error('the webhook answered 503'));
    // 500 ms (+ up to 20% jitter) after the first, the second; the next would wait 750 ms more.
    assert.equal(seen.length, 2);
    w.close();
  });

  test('a webhook that does not answer in time is an error naming the timeout, logged once', async () => {
    handlers = [() => undefined];
    const logged: unknown[][] = [];
    const logger: Logger = { ...silentLogger, error: (...args: unknown[]) => void logged.push(args) } as Logger;
    const { w, heard } = make({ timeoutMs: 300, logger });
    assert.deepEqual(await w.authenticate(withToken('t')), error('the webhook did not answer within 0s'));
    assert.deepEqual(heard.requests, ['<error>']);
    assert.deepEqual(logged, [[{ err: 'the webhook did not answer within 0s' }, 'Failed to make webhook authenticator request']]);
    w.close();
    handlers = [() => undefined];
    const slow = make({ timeoutMs: 1600 });
    assert.deepEqual(await slow.w.authenticate(withToken('t')), error('the webhook did not answer within 2s'));
    slow.w.close();
  });

  test('an answer larger than 3 MiB is refused, not retried', async () => {
    handlers = [
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(`{"pad":"${'x'.repeat(3 * 1024 * 1024)}"}`);
      },
    ];
    const { w } = make();
    assert.deepEqual(await w.authenticate(withToken('t')), error(`the webhook's answer is larger than ${3 * 1024 * 1024} bytes`));
    assert.equal(seen.length, 1);
    w.close();
  });

  test('an answer of exactly 3 MiB is read', async () => {
    const body = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', status: { authenticated: true, user: { username: 'big' } }, pad: '' };
    body.pad = 'x'.repeat(3 * 1024 * 1024 - JSON.stringify(body).length);
    handlers = [json(200, body)];
    const { w } = make();
    assert.deepEqual(await w.authenticate(withToken('t')), { kind: 'user', user: { username: 'big', groups: [] } });
    w.close();
  });
});

describe('the observer', () => {
  test('a miss, then hits while cached; each review fetched once; copies handed out', async () => {
    handlers = [authenticated('cached')];
    const { w, heard } = make({ cacheTtlMs: 60_000 });
    const first = await w.authenticate(withToken('t'));
    if (first.kind === 'user') first.user.groups.push('system:masters');
    assert.deepEqual(await w.authenticate(withToken('t')), { kind: 'user', user: { username: 'cached', groups: [] } });
    const again = await w.authenticate(withToken('t'));
    if (again.kind === 'user') again.user.groups.push('system:masters');
    assert.deepEqual(await w.authenticate(withToken('t')), { kind: 'user', user: { username: 'cached', groups: [] } });
    assert.deepEqual(heard.cache, ['miss', 'hit', 'hit', 'hit']);
    assert.deepEqual(heard.fetches, ['ok']);
    assert.deepEqual(heard.requests, ['200']);
    assert.equal(seen.length, 1);
    assert.deepEqual(await w.authenticate({ headers: {} }), { kind: 'none' });
    assert.deepEqual(heard.cache, ['miss', 'hit', 'hit', 'hit'], 'no token: no lookup');
    w.close();
  });
});
