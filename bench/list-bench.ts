// Paged list of 10,000 objects (limit 500, following continue) through the registry and the
// watch cache, beside reading the same rows straight from the SQLite file with better-sqlite3
// (SELECT and JSON.parse of each row) in the same run. In process: this measures the read path,
// not HTTPS; run.ts times the same list over HTTPS for reference.

import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { internalContext, silentLogger } from '../src/apimachinery/request-context.js';
import { GenericStore, keyPrefixOf } from '../src/registry/generic-store.js';
import { serviceCIDRs } from '../src/resources/servicecidrs/index.js';
import type { ServiceCIDR } from '../src/resources/servicecidrs/types.js';
import { openSqliteStore } from '../src/storage/sqlite/sqlite-store.js';
import { WatchCache } from '../src/storage/cache/watch-cache.js';

export interface ListBenchResult {
  objects: number;
  pages: number;
  cacheMs: number;
  rawSqliteMs: number;
  /** cacheMs / rawSqliteMs: ≤ 1 means the cache is at least as fast. */
  ratio: number;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchListFromCache(objects = 10_000, limit = 500, rounds = 7): Promise<ListBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'platform-list-bench-'));
  const path = join(dir, 'state.db');
  const store = openSqliteStore({ path, durability: 'normal' });
  const ctx = internalContext({ username: 'bench', groups: ['system:masters'] }, silentLogger);
  try {
    const writer = new GenericStore<ServiceCIDR>({ definition: serviceCIDRs, strategy: serviceCIDRs.strategy, subresource: '', storage: store, admission: [] });
    for (let i = 0; i < objects; i += 200) {
      await Promise.all(
        Array.from({ length: Math.min(200, objects - i) }, (_, j) =>
          writer.create(
            ctx,
            { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: `list-bench-${String(i + j).padStart(6, '0')}`, labels: { bench: 'list' } }, spec: { cidrs: [`10.${(i + j) >> 8}.${(i + j) & 255}.0/24`] } },
            { fieldManager: 'bench' },
          ),
        ),
      );
    }
    const cache = await WatchCache.start({ store, prefix: keyPrefixOf(serviceCIDRs) });
    const reader = new GenericStore<ServiceCIDR>({ definition: serviceCIDRs, strategy: serviceCIDRs.strategy, subresource: '', storage: cache, admission: [] });

    const listAll = async (): Promise<number> => {
      let pages = 0;
      let seen = 0;
      let token: string | undefined;
      do {
        const page = await reader.list(ctx, { limit, continue: token });
        seen += page.items.length;
        pages++;
        token = page.continue;
      } while (token);
      if (seen !== objects) throw new Error(`listed ${seen} of ${objects}`);
      return pages;
    };
    const raw = new Database(path, { readonly: true });
    const select = raw.prepare<[string, string], { value: Buffer }>('SELECT l.value AS value FROM current AS c JOIN log AS l ON l.revision = c.revision WHERE c.key >= ? AND c.key < ? ORDER BY c.key');
    const prefix = keyPrefixOf(serviceCIDRs);
    const readRaw = (): number => {
      let n = 0;
      for (const row of select.iterate(prefix, `${prefix.slice(0, -1)}0`)) n += JSON.parse(row.value.toString('utf8')) ? 1 : 0;
      if (n !== objects) throw new Error(`read ${n} of ${objects}`);
      return n;
    };

    const pages = await listAll(); // warm both paths once
    readRaw();
    const cacheTimes: number[] = [];
    const rawTimes: number[] = [];
    for (let r = 0; r < rounds; r++) {
      let t = performance.now();
      await listAll();
      cacheTimes.push(performance.now() - t);
      t = performance.now();
      readRaw();
      rawTimes.push(performance.now() - t);
    }
    raw.close();
    await cache.close();
    const cacheMs = median(cacheTimes);
    const rawSqliteMs = median(rawTimes);
    return { objects, pages, cacheMs, rawSqliteMs, ratio: cacheMs / rawSqliteMs };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
