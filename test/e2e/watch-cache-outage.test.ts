// The watch cache losing its store, seen through real HTTPS: a server composed in-process (as
// src/main.ts composes it) over a store that fails on demand (test/support/storage/fault-injecting-store.ts),
// since a real server on SQLite has no network stream to lose. During the outage a watch ends
// cleanly, lists and gets answer promptly from the store, a new watch gets 429 with Retry-After,
// /readyz names the cache; afterwards the server serves and watches again by itself.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { pino } from 'pino';
import type { KubeObject } from '../../src/apimachinery/object-meta.js';
import { TokenAuthenticator } from '../../src/auth/token-authenticator.js';
import { privilegedGroupsAuthorizer } from '../../src/auth/rbac/rbac-authorizer.js';
import { ensureServingCertificates } from '../../src/config/certificates.js';
import { createApiServer, type ApiServer } from '../../src/http/server.js';
import { GenericStore, keyPrefixOf } from '../../src/registry/generic-store.js';
import { allResources } from '../../src/resources/all.js';
import { FaultInjectingStore } from '../support/storage/fault-injecting-store.js';
import { MemoryStore } from '../../src/storage/sqlite/memory-store.js';
import { WatchCache } from '../../src/storage/cache/watch-cache.js';
import { buildHealthChecks } from '../../src/lifecycle/health-checks.js';
import { httpRequest, type HttpResult } from './harness.js';
import { KUBERNETES_VERSION } from '../../src/version.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const TOKEN = 'outage-test-token';
const scidr = (name: string) => ({ apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name }, spec: { cidrs: ['10.0.0.0/24'] } });

describe('watch cache outage through HTTPS', () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-outage-'));
  const inner = new MemoryStore();
  const store = new FaultInjectingStore(inner);
  let caches: WatchCache[] = [];
  let server: ApiServer;
  let agent: https.Agent;
  let port = 0;

  // Bounded: an answer that does not come within timeoutMs fails the test instead of hanging it.
  const request = (method: string, path: string, body?: object, timeoutMs = 10_000): Promise<HttpResult> =>
    httpRequest(agent, new URL(`https://127.0.0.1:${port}`), method, path, { body, timeoutMs }, TOKEN);

  /** Opens a watch; `events` fills as lines arrive, `ended` resolves when the server ends the response. */
  const openWatch = (path: string) =>
    new Promise<{ events: any[]; ended: Promise<void>; close(): void }>((resolve, reject) => {
      const events: any[] = [];
      const req = https.get({ agent: new https.Agent({ ca: agentCa }), host: '127.0.0.1', port, path, headers: { Authorization: `Bearer ${TOKEN}` } }, (res) => {
        assert.equal(res.statusCode, 200);
        let buf = '';
        const ended = new Promise<void>((done, fail) => {
          res.on('data', (c: Buffer) => {
            buf += c.toString();
            for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
              events.push(JSON.parse(buf.slice(0, nl)));
              buf = buf.slice(nl + 1);
            }
          });
          res.on('end', () => done());
          res.on('error', fail);
        });
        // Closing it ourselves aborts the response: not a failure of the test.
        ended.catch(() => {});
        resolve({ events, ended, close: () => req.destroy() });
      });
      req.on('error', reject);
    });

  let agentCa = '';

  const waitFor = async (what: string, cond: () => Promise<boolean>, ms = 15_000): Promise<void> => {
    for (const end = Date.now() + ms; !(await cond()); ) {
      if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
      await delay(20);
    }
  };

  const within = <T>(p: Promise<T>, ms: number, what: string): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)))]).finally(() => clearTimeout(timer));
  };

  before(async () => {
    const tls = await ensureServingCertificates({ dir, hosts: ['127.0.0.1'] });
    agentCa = tls.caCertPem;
    caches = await Promise.all(
      allResources.map((definition) => WatchCache.start({ store, prefix: keyPrefixOf(definition), name: definition.plural, backoff: { initialMs: 20, maxMs: 200 } })),
    );
    server = createApiServer({
      resources: allResources.map((definition, i) => ({
        definition,
        main: new GenericStore<KubeObject>({ definition, strategy: definition.strategy, subresource: '', storage: caches[i]!, admission: [] }),
        status: undefined,
      })),
      authenticator: new TokenAuthenticator(new Map([[TOKEN, { username: 'admin', uid: 'admin', groups: ['system:masters'] }]])),
      authorizer: privilegedGroupsAuthorizer(['system:masters']),
      tls: { certPem: tls.certPem, keyPem: tls.keyPem },
      logger: pino({ level: 'silent' }),
      version: KUBERNETES_VERSION,
      health: buildHealthChecks({ store: inner, caches: () => caches.map((c) => c.health()), shuttingDown: () => false }),
    });
    port = (await server.listen('127.0.0.1', 0)).port;
    agent = new https.Agent({ ca: tls.caCertPem, keepAlive: true });
  });

  after(async () => {
    agent?.destroy();
    await server?.close();
    await Promise.all(caches.map((c) => c.close()));
    await inner.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a watch ends cleanly, reads answer promptly, watches get 429, /readyz names the cache; then the server recovers', async () => {
    assert.equal((await request('GET', '/readyz')).status, 200);
    const created = await request('POST', SC, scidr('before'));
    assert.equal(created.status, 201, created.text);
    const rv = created.json.metadata.resourceVersion as string;

    const watch = await openWatch(`${SC}?watch=true&resourceVersion=${rv}`);
    // Every re-watch the cache tries is dropped until the store is "back".
    store.failNextWatches(1_000_000);
    store.breakWatches('Unavailable');
    await within(watch.ended, 10_000, 'the client watch ending');
    assert.deepEqual(watch.events, [], 'ended cleanly: no ERROR event, nothing lost');

    const ready = await request('GET', '/readyz?verbose');
    assert.equal(ready.status, 500);
    assert.match(ready.text, /\[-\]watch-cache\/servicecidrs failed/);

    const list = await request('GET', SC);
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(list.json.items.map((o: KubeObject) => o.metadata.name), ['before']);
    assert.equal((await request('GET', `${SC}/before`)).status, 200);
    const during = await request('POST', SC, scidr('during'));
    assert.equal(during.status, 201, 'writes go to the store, which is up');

    const refused = await request('GET', `${SC}?watch=true&resourceVersion=${rv}`);
    assert.equal(refused.status, 429, refused.text);
    assert.equal(refused.json.reason, 'TooManyRequests');
    assert.match(refused.json.message, /storage is \(re\)initializing/);
    assert.ok(Number(refused.headers['retry-after']) >= 1, 'Retry-After');

    store.failNextWatches(0);
    await waitFor('/readyz ok again', async () => (await request('GET', '/readyz')).status === 200);

    // A client resuming from the resourceVersion it last saw misses nothing.
    const resumed = await openWatch(`${SC}?watch=true&resourceVersion=${rv}`);
    const after = await request('POST', SC, scidr('after'));
    assert.equal(after.status, 201);
    await waitFor('the resumed watch sees both writes', async () => resumed.events.length >= 2);
    resumed.close();
    assert.deepEqual(
      resumed.events.map((e) => `${e.type} ${e.object.metadata.name}`),
      ['ADDED during', 'ADDED after'],
    );
    const listed = await request('GET', SC);
    assert.deepEqual(listed.json.items.map((o: KubeObject) => o.metadata.name), ['after', 'before', 'during']);
  });
});
