// The webhook authorizer's own decisions against a plain HTTP webhook on loopback (the HTTPS
// wire, kubeconfigs and connection handling are test/integration/webhook-authorizer.test.ts):
// which answers are successes (client-go's 200 to 206), which failures are retried and how long
// it waits between tries, the failure policy, what is logged and observed, and what is cached
// (kube's limit on the size of cached attributes, the TTL's end, the cache's size).

import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../apimachinery/request-context.js';
import type { AuthorizationObserver } from '../authorization-observer.js';
import type { AuthorizationAttributes } from '../authorizer.js';
import { WebhookAuthorizer, type WebhookAuthorizerOptions } from './webhook-authorizer.js';

/** What the webhook answers: a status code and a body; `reset` destroys the connection instead. */
type Answer = { code: number; body: string } | 'reset';
const review = (status: Record<string, unknown>): string => JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', status });
const ALLOWED: Answer = { code: 200, body: review({ allowed: true, reason: 'yes' }) };

interface Seen {
  url: string;
  body: any;
  at: number;
}

let server: http.Server;
let url: URL;
const seen: Seen[] = [];
let answers: Answer[] = [];
/** The answer once `answers` is used up. */
let otherwise: Answer = ALLOWED;

before(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ url: req.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString('utf8')), at: performance.now() });
      const a = answers.shift() ?? otherwise;
      if (a === 'reset') return req.socket.destroy();
      res.writeHead(a.code, { 'Content-Type': 'application/json' }).end(a.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/authorize`);
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  seen.length = 0;
  answers = [];
  otherwise = ALLOWED;
});

function attrs(over: Partial<AuthorizationAttributes> = {}): AuthorizationAttributes {
  return { user: { username: 'alice', groups: ['devs'] }, verb: 'get', isResourceRequest: true, path: '', apiGroup: 'g', apiVersion: 'v1', resource: 'r', subresource: '', namespace: 'ns', name: 'n', ...over };
}

function make(o: Partial<WebhookAuthorizerOptions> = {}) {
  const events: string[] = [];
  const durations: number[] = [];
  const logged: { obj: unknown; msg?: string }[] = [];
  const observer: AuthorizationObserver = {
    decision: () => {},
    webhookEvaluation: (n, r, seconds) => {
      events.push(`evaluation ${n} ${r}`);
      durations.push(seconds);
    },
    webhookFailOpen: (n, r) => events.push(`fail-open ${n} ${r}`),
    matchConditions: () => {},
    configReload: () => {},
  };
  const logger: Logger = {
    debug() {},
    info() {},
    warn() {},
    error: (obj, msg) => logged.push({ obj, msg }),
    child: () => logger,
  };
  const authorizer = new WebhookAuthorizer({
    name: 'hook',
    target: { url, agent: new http.Agent({ keepAlive: true }), headers: async () => ({}) },
    version: 'v1',
    authorizedTtlMs: 0,
    unauthorizedTtlMs: 0,
    timeoutMs: 5000,
    failurePolicy: 'NoOpinion',
    observer,
    logger,
    retry: { initialMs: 1, factor: 1, steps: 5 },
    ...o,
  });
  after(() => authorizer.close());
  return { authorizer, events, durations, logged };
}

describe('webhook authorizer: answers', () => {
  test('200 to 206 are answers; any other status is a failure, as client-go reads it, logged and observed', async () => {
    answers = [{ code: 206, body: review({ allowed: true, reason: 'partial' }) }];
    const { authorizer, events, logged } = make();
    assert.deepEqual(await authorizer.authorize(attrs()), { decision: 'allow', reason: 'partial' });
    for (const code of [207, 299, 403]) {
      answers = [{ code, body: review({ allowed: true }) }];
      assert.deepEqual(await authorizer.authorize(attrs()), { decision: 'no-opinion', reason: '', error: `the webhook answered with the status code ${code}` });
    }
    assert.equal(seen.length, 4, 'none of them retried');
    assert.deepEqual(events, ['evaluation hook success', ...['207', '299', '403'].flatMap(() => ['evaluation hook error', 'fail-open hook error'])]);
    assert.deepEqual(logged.at(-1), { obj: { webhook: 'hook', err: 'the webhook answered with the status code 403' }, msg: 'Failed to make webhook authorizer request' });
  });

  test('failurePolicy Deny: a failed call denies, with the error; neither a fail-open nor a decision of the webhook', async () => {
    otherwise = { code: 403, body: '' };
    const { authorizer, events } = make({ failurePolicy: 'Deny' });
    assert.deepEqual(await authorizer.authorize(attrs()), { decision: 'deny', reason: '', error: 'the webhook answered with the status code 403' });
    assert.deepEqual(events, ['evaluation hook error']);
  });

  test('both allowed and denied: a deny, with kube\'s error', async () => {
    answers = [{ code: 200, body: review({ allowed: true, denied: true, reason: 'both' }) }];
    const { authorizer } = make();
    assert.deepEqual(await authorizer.authorize(attrs()), { decision: 'deny', reason: 'both', error: 'webhook subject access review returned both allow and deny response' });
  });

  test('match conditions that do not match: no opinion, and the webhook is not asked', async () => {
    const { authorizer, events } = make({ matches: () => false });
    assert.deepEqual(await authorizer.authorize(attrs()), { decision: 'no-opinion', reason: '' });
    assert.equal(seen.length, 0);
    assert.deepEqual(events, []);
  });

  test('rulesFor: the webhook cannot list rules (incomplete, with kube\'s error)', async () => {
    const { authorizer } = make();
    assert.deepEqual(await authorizer.rulesFor(), { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'webhook authorizer does not support user rule resolution' });
  });

  test("a call's observed duration is in seconds, within the time the call took", async () => {
    const { authorizer, durations } = make();
    const t0 = performance.now();
    await authorizer.authorize(attrs());
    const spanSeconds = (performance.now() - t0) / 1000;
    answers = [{ code: 500, body: '' }];
    otherwise = { code: 403, body: '' };
    const t1 = performance.now();
    await authorizer.authorize(attrs({ name: 'failing' }));
    const failingSpanSeconds = (performance.now() - t1) / 1000;
    assert.equal(durations.length, 3);
    assert.ok(durations[0]! > 0 && durations[0]! <= spanSeconds, `${durations[0]} s within ${spanSeconds} s`);
    for (const d of durations.slice(1)) assert.ok(d > 0 && d <= failingSpanSeconds, `${d} s within ${failingSpanSeconds} s`);
  });
});

describe('webhook authorizer: retries', () => {
  test('429, 500, 504 and reset connections are retried; 504 is observed as a timeout; 503 and garbage are not retried', async () => {
    answers = [{ code: 429, body: '' }, { code: 500, body: '' }, { code: 504, body: '' }, 'reset'];
    const { authorizer, events } = make();
    assert.equal((await authorizer.authorize(attrs())).decision, 'allow');
    assert.equal(seen.length, 5);
    assert.deepEqual(events, ['evaluation hook error', 'evaluation hook error', 'evaluation hook timeout', 'evaluation hook error', 'evaluation hook success']);

    for (const answer of [{ code: 503, body: '' }, { code: 200, body: 'not json' }]) {
      seen.length = 0;
      answers = [answer];
      assert.equal((await authorizer.authorize(attrs())).decision, 'no-opinion');
      assert.equal(seen.length, 1, `${answer.code} ${answer.body}`);
    }
  });

  test('a 504 to the last try fails open as a timeout', async () => {
    otherwise = { code: 504, body: '' };
    const { authorizer, events } = make({ retry: { initialMs: 1, factor: 1, steps: 2 } });
    assert.equal((await authorizer.authorize(attrs())).error, 'the webhook answered with the status code 504');
    assert.deepEqual(events, ['evaluation hook timeout', 'evaluation hook timeout', 'fail-open hook timeout']);
  });

  test('at most `steps` tries', async () => {
    otherwise = { code: 500, body: '' };
    const { authorizer } = make({ retry: { initialMs: 1, factor: 1, steps: 3 } });
    assert.equal((await authorizer.authorize(attrs())).decision, 'no-opinion');
    assert.equal(seen.length, 3);
  });

  test('the waits grow by the factor, with up to 20% jitter added', async () => {
    otherwise = { code: 500, body: '' };
    const { authorizer } = make({ retry: { initialMs: 40, factor: 1.5, steps: 3 } });
    // The waits are timers: their delays are read as they are set (the call's own timeout is 5000 ms).
    const delays: number[] = [];
    const realSetTimeout = globalThis.setTimeout;
    const realRandom = Math.random;
    globalThis.setTimeout = ((fn: () => void, ms?: number) => {
      if (ms !== 5000) delays.push(ms ?? 0);
      return realSetTimeout(fn, ms);
    }) as typeof setTimeout;
    Math.random = () => 0.5;
    try {
      await authorizer.authorize(attrs());
    } finally {
      globalThis.setTimeout = realSetTimeout;
      Math.random = realRandom;
    }
    assert.equal(seen.length, 3);
    assert.deepEqual(
      delays.map((d) => Math.round(d * 1000) / 1000),
      [44, 66],
    );
  });

  test('all tries end within 60 s (or the timeout, when longer): no retry whose wait would end past it', async () => {
    otherwise = { code: 500, body: '' };
    // The first wait alone would pass the 60 s: the first failure is the answer, at once.
    const late = make({ retry: { initialMs: 61_000, factor: 1, steps: 5 } });
    assert.equal((await late.authorizer.authorize(attrs())).error, 'the webhook answered with the status code 500');
    assert.equal(seen.length, 1);
    // A short timeout does not shorten the 60 s: every try is made.
    seen.length = 0;
    const short = make({ timeoutMs: 300, retry: { initialMs: 100, factor: 1, steps: 4 } });
    await short.authorizer.authorize(attrs());
    assert.equal(seen.length, 4);
  });

  test('a timeout longer than 60 s bounds all tries: a later try is sent the time that is left', async () => {
    answers = [{ code: 500, body: '' }];
    const { authorizer } = make({ timeoutMs: 90_000 });
    await authorizer.authorize(attrs());
    assert.equal(seen.length, 2);
    assert.equal(new URL(seen[0]!.url, url).searchParams.get('timeout'), '1m30s');
    const second = new URL(seen[1]!.url, url).searchParams.get('timeout')!;
    assert.match(second, /^1m(29\.\d+|30)s$/);
    assert.notEqual(second, '1m30s', 'the time left, not the whole timeout again');
  });
});

describe('webhook authorizer: cache', () => {
  const ATTRIBUTES = ['namespace', 'verb', 'apiGroup', 'apiVersion', 'resource', 'subresource', 'name', 'path'] as const;

  test("attributes of 10000 bytes or more together are never cached (kube's guard), whichever attribute is long", async () => {
    const { authorizer } = make({ authorizedTtlMs: 60_000 });
    for (const key of ATTRIBUTES) {
      seen.length = 0;
      const a = attrs({ namespace: '', verb: '', apiGroup: '', apiVersion: '', resource: '', subresource: '', name: '', path: '', [key]: 'x'.repeat(10_000) });
      await authorizer.authorize(a);
      await authorizer.authorize(a);
      assert.equal(seen.length, 2, key);
    }
  });

  test('the limit: 9999 bytes are cached, 10000 are not', async () => {
    const { authorizer } = make({ authorizedTtlMs: 60_000 });
    // get + g + v1 + r + ns = 9 bytes besides the name.
    for (const [length, calls] of [
      [9990, 1],
      [9991, 2],
    ] as const) {
      seen.length = 0;
      const a = attrs({ name: 'x'.repeat(length) });
      await authorizer.authorize(a);
      await authorizer.authorize(a);
      assert.equal(seen.length, calls, `name of ${length}`);
    }
  });

  test('an entry expires exactly at its TTL; a TTL of 0 caches nothing', async () => {
    const realNow = Date.now;
    let now = 1_000_000;
    Date.now = () => now;
    try {
      const { authorizer } = make({ authorizedTtlMs: 1000, unauthorizedTtlMs: 0 });
      await authorizer.authorize(attrs());
      now += 999;
      await authorizer.authorize(attrs());
      assert.equal(seen.length, 1, 'cached until its TTL');
      now += 1;
      await authorizer.authorize(attrs());
      assert.equal(seen.length, 2, 'expired at its TTL');

      otherwise = { code: 200, body: review({ allowed: false }) };
      seen.length = 0;
      await authorizer.authorize(attrs({ verb: 'delete' }));
      await authorizer.authorize(attrs({ verb: 'delete' }));
      assert.equal(seen.length, 2);
    } finally {
      Date.now = realNow;
    }
  });

  test('8192 answers at most: the least recently used goes first; a TTL of 0 takes no place', async () => {
    const { authorizer } = make({ authorizedTtlMs: 600_000, unauthorizedTtlMs: 0 });
    for (let i = 0; i < 8192; i++) await authorizer.authorize(attrs({ name: `n${i}` }));
    // Answers not cached (TTL 0) push nothing out.
    otherwise = { code: 200, body: review({ allowed: false }) };
    await authorizer.authorize(attrs({ verb: 'delete' }));
    otherwise = ALLOWED;
    seen.length = 0;
    await authorizer.authorize(attrs({ name: 'n0' }));
    assert.equal(seen.length, 0, 'the cache holds 8192 answers');
    // n0 was just used: one more answer pushes out n1, the least recently used.
    await authorizer.authorize(attrs({ name: 'n8192' }));
    await authorizer.authorize(attrs({ name: 'n0' }));
    assert.equal(seen.length, 1);
    await authorizer.authorize(attrs({ name: 'n1' }));
    assert.equal(seen.length, 2);
  });
});
