// The server's checks as wired: a full database fails readiness (etcd-readiness) but not
// liveness; a watch cache off its feed fails informer-sync; a stop fails shutdown.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { healthResponse } from '../http/routes/health.js';
import { openSqliteStore } from '../storage/sqlite/sqlite-store.js';
import { buildHealthChecks } from './health-checks.js';

test('a full disk fails /readyz (etcd-readiness) and not /livez; lagging caches and a stop fail /readyz', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'health-checks-'));
  const store = openSqliteStore({ path: join(dir, 'state.db') });
  let servicecidrsReady = true;
  let stopping = false;
  const checks = buildHealthChecks({ store, caches: () => [{ name: 'servicecidrs', ready: servicecidrsReady, lastError: servicecidrsReady ? undefined : 'store unavailable' }], shuttingDown: () => stopping });
  const q = new URLSearchParams('verbose');
  try {
    assert.equal((await healthResponse(checks, 'readyz', '', q))?.code, 200);
    await store.writerPragma(`max_page_count = ${(await store.writerPragma('page_count')) as number}`);
    await assert.rejects(store.optimisticPut('/k/big', new Uint8Array(1024 * 1024), 0));
    const ready = await healthResponse(checks, 'readyz', '', q);
    assert.equal(ready?.code, 500);
    assert.match(ready!.body, /^\[\+\]ping ok\n\[\+\]log ok\n\[\+\]etcd ok\n\[-\]etcd-readiness failed: reason withheld\n/);
    assert.deepEqual(await healthResponse(checks, 'readyz', 'etcd-readiness', q), { code: 500, body: 'internal server error: last write failed: database or disk is full\n' });
    assert.equal((await healthResponse(checks, 'livez', '', q))?.code, 200, 'alive: a restart would not free the disk');
    await store.writerPragma('max_page_count = 1073741823');
    await store.optimisticPut('/k/small', new Uint8Array(10), 0);
    assert.equal((await healthResponse(checks, 'readyz', '', q))?.code, 200, 'ready again once a write commits');

    servicecidrsReady = false;
    const lagging = (await healthResponse(checks, 'readyz', '', q))!.body;
    assert.match(lagging, /\[-\]informer-sync failed: reason withheld\n\[-\]watch-cache\/servicecidrs failed: reason withheld\n/);
    assert.deepEqual(await healthResponse(checks, 'readyz', 'watch-cache/servicecidrs', q), { code: 500, body: 'internal server error: store unavailable\n' });
    servicecidrsReady = true;
    stopping = true;
    assert.match((await healthResponse(checks, 'readyz', '', q))!.body, /\[-\]shutdown failed: reason withheld\nreadyz check failed\n$/);
    assert.equal((await healthResponse(checks, 'livez', '', q))?.code, 200);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
