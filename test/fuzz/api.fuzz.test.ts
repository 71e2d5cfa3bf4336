// Property-based fuzzing of the API over real HTTPS against a server in this process (so that
// prototype pollution would be seen): every endpoint of both kinds, every body and patch type,
// hostile keys and values, odd headers and query parameters (see arbitraries.ts), checked by
// properties.ts after every request. `npm test` runs a short fixed-seed pass; `npm run fuzz`
// a long one (FUZZ_RUNS, FUZZ_SEED; FUZZ_TIMEOUT_MS bounds each request).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startInProcessServer } from '../e2e/in-process-server.js';
import type { TestServer } from '../e2e/harness.js';
import { frontdoorRequest, fuzzRequest, SC, type FuzzRequest } from './arbitraries.js';
import { FuzzClient } from './client.js';
import { checkExchange } from './properties.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const RUNS = Number(process.env.FUZZ_RUNS ?? 3000);
const TIMEOUT_MS = Number(process.env.FUZZ_TIMEOUT_MS ?? 15_000);
/** How often a long run reports how far it got. */
const PROGRESS_EVERY = Number(process.env.FUZZ_PROGRESS_EVERY ?? 10_000);
/** The store is emptied when it holds more than this, so that listing it stays cheap. */
const MAX_OBJECTS = 40;

/** Whether any object appeared, went, or has another resourceVersion. */
function changedStore(before: Map<string, any>, after: Map<string, any>): boolean {
  if (before.size !== after.size) return true;
  for (const [k, v] of before) if (after.get(k)?.metadata.resourceVersion !== v.metadata.resourceVersion) return true;
  return false;
}

describe('API fuzzing', () => {
  let server: TestServer;
  let client: FuzzClient;
  before(async () => {
    server = await startInProcessServer();
    client = new FuzzClient(server, TIMEOUT_MS);
  });
  after(async () => {
    client?.close();
    await server?.stop();
  });

  /** A few objects for writes to meet. */
  async function seed(): Promise<void> {
    for (const name of ['a', 'b']) {
      const body = Buffer.from(JSON.stringify({ apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name }, spec: { cidrs: ['10.0.0.0/24'] } })).toString('base64');
      const r = await client.send({ method: 'POST', path: SC, headers: { 'Content-Type': 'application/json' }, body });
      assert.ok(r.status === 201 || r.status === 409, r.text);
    }
  }

  async function emptyStore(state: Map<string, any>): Promise<void> {
    for (const [key, obj] of state) {
      const path = key.replace(/\/([^/]+)$/, (_, name: string) => `/${encodeURIComponent(name)}`);
      if (obj.metadata.finalizers?.length) {
        const r = await client.send({ method: 'PATCH', path, headers: { 'Content-Type': 'application/merge-patch+json' }, body: Buffer.from('{"metadata":{"finalizers":null}}').toString('base64') });
        assert.equal(r.status, 200, r.text);
      }
      const d = await client.send({ method: 'DELETE', path, headers: {} });
      assert.ok(d.status === 200 || d.status === 404, d.text);
    }
  }

  test(`${RUNS} hostile requests (seed ${SEED}): Status answers, no stray writes, state as answered, prototypes intact`, { timeout: Math.max(600_000, RUNS * 200) }, async () => {
    await seed();
    let state = await client.state();
    const started = Date.now();
    let requests = 0;
    const statuses = new Map<number, number>();
    /** Answers a write accepted (2xx to POST, PUT, PATCH, DELETE), and exchanges after which the store had changed. */
    let acceptedWrites = 0;
    let storeChanges = 0;
    const arbitrary: fc.Arbitrary<FuzzRequest> = fc.oneof({ weight: 20, arbitrary: fuzzRequest }, { weight: 1, arbitrary: frontdoorRequest });
    const property = fc.asyncProperty(arbitrary, async (req) => {
      if (state.size > MAX_OBJECTS) {
        await emptyStore(state);
        await seed();
        state = await client.state();
      } else if (!state.has(`${SC}/a`) || !state.has(`${SC}/b`)) {
        await seed();
        state = await client.state();
      }
      const before = state;
      let res;
      try {
        res = await client.send(req);
      } catch (err) {
        state = await client.state().catch(() => state);
        throw new Error(`no answer: ${(err as Error).message}\nrequest: ${JSON.stringify(req)}`);
      }
      requests++;
      if (requests % PROGRESS_EVERY === 0) {
        (globalThis as { gc?: () => void }).gc?.();
        const { rss, heapUsed } = process.memoryUsage();
        process.stdout.write(`# fuzz progress: ${requests} cases in ${((Date.now() - started) / 1000).toFixed(0)} s, RSS ${Math.round(rss / 2 ** 20)} MiB, heap ${Math.round(heapUsed / 2 ** 20)} MiB\n`);
      }
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      state = await client.state();
      if (res.status >= 200 && res.status < 300 && ['POST', 'PUT', 'PATCH', 'DELETE'].includes(req.method)) acceptedWrites++;
      if (changedStore(before, state)) storeChanges++;
      const problems = checkExchange(req, res, before, state);
      if (problems.length) {
        const body = req.body === undefined ? '' : Buffer.from(req.body, 'base64').toString('utf8').slice(0, 2000);
        const report = `${problems.join('\n')}\nrequest: ${req.method} ${req.path} ${JSON.stringify(req.headers)}\nbody: ${body}\nanswer: ${res.status} ${res.text.slice(0, 1500)}`;
        // fast-check reports the failing case; the reason is written here so it is never lost.
        process.stderr.write(`# fuzz failure:\n${report.replace(/^/gm, '#   ')}\n`);
        throw new Error(report);
      }
    });
    // No shrinking: the server keeps state between cases, so a shrunk case may not replay; the
    // failing request is printed whole instead, with the seed and path to rerun the same cases.
    await fc.assert(property, { seed: SEED, numRuns: RUNS, endOnFailure: true });
    const seconds = (Date.now() - started) / 1000;
    const summary = [...statuses].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}×${n}`).join(' ');
    process.stdout.write(`# fuzz: ${RUNS} cases, seed ${SEED}, ${requests} requests in ${seconds.toFixed(1)} s; answers ${summary}; ${acceptedWrites} writes accepted, ${storeChanges} changed the store\n`);
    assert.equal(requests, RUNS);
    // Every exchange was checked above (a Status-shaped 2xx or 4xx, the store as answered); these
    // make sure the checks had something to check: a run whose requests all bounced (every
    // answer a 401, say) passes them trivially.
    const ok = [...statuses].filter(([s]) => s >= 200 && s < 300).reduce((n, [, c]) => n + c, 0);
    assert.ok(ok >= RUNS / 20, `only ${ok} of ${RUNS} answers were 2xx`);
    assert.ok(acceptedWrites >= RUNS / 50, `only ${acceptedWrites} of ${RUNS} answers accepted a write`);
    assert.ok(storeChanges >= RUNS / 100, `only ${storeChanges} of ${RUNS} requests changed the store`);
  });
});
