// kill -9 of the real server process (src/main.ts in its own node process, as `npm start` runs
// it) in the middle of concurrent writes, then a restart on the same data dir: every write the
// server acknowledged is there, and SQLite's integrity check passes. A few bounded rounds.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startServer, type TestServer } from './harness.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';
const ROUNDS = 3;
const WRITERS = 8;
/** Acknowledged writes per round before the kill (the kill comes sooner if time runs out). */
const WRITES_BEFORE_KILL = 120;
const LOAD_MS_MAX = 20_000;

interface Acked {
  resourceVersion: bigint;
  labels: Record<string, string>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits (bounded) until the killed process is gone, so that its lock on the data dir is free. */
async function waitGone(pid: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await sleep(50);
  }
  assert.fail(`process ${pid} still exists after kill -9`);
}

function integrityCheck(path: string): string {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return (db.pragma('integrity_check', { simple: true }) as string) ?? '';
  } finally {
    db.close();
  }
}

describe('crash recovery', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-crash-'));
  let server: TestServer | undefined;
  after(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test(`kill -9 under ${WRITERS} concurrent writers, ${ROUNDS} rounds: every acknowledged write survives, integrity ok`, { timeout: 300_000 }, async () => {
    const acked = new Map<string, Acked>();
    let total = 0;
    for (let round = 0; round < ROUNDS; round++) {
      server = await startServer({ dataDir, removeOnStop: false });
      const s = server;
      let stop = false;
      let ackedThisRound = 0;
      const record = (name: string, obj: { metadata: { resourceVersion: string; labels?: Record<string, string> } }) => {
        const rv = BigInt(obj.metadata.resourceVersion);
        const prev = acked.get(name);
        if (!prev || prev.resourceVersion < rv) acked.set(name, { resourceVersion: rv, labels: obj.metadata.labels ?? {} });
        ackedThisRound++;
        total++;
      };
      const writer = async (w: number): Promise<void> => {
        for (let i = 0; !stop && i < 10_000; i++) {
          const name = `crash-r${round}-w${w}-${Math.floor(i / 2)}`;
          try {
            if (i % 2 === 0) {
              const r = await s.request('POST', SC, { body: { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name, labels: { step: '0' } }, spec: { cidrs: ['10.0.0.0/24'] } } });
              if (r.status === 201) record(name, r.json);
            } else {
              const r = await s.request('PATCH', `${SC}/${name}`, { body: { metadata: { labels: { step: String(i) } } }, headers: { 'Content-Type': 'application/merge-patch+json' } });
              if (r.status === 200) record(name, r.json);
            }
          } catch {
            return; // the connection died with the server
          }
        }
      };
      const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
      const started = Date.now();
      while (ackedThisRound < WRITES_BEFORE_KILL && Date.now() - started < LOAD_MS_MAX) await sleep(10);
      assert.ok(ackedThisRound > 0, `no write was acknowledged in round ${round}\n${s.log()}`);
      // The server process itself, mid-load (requests are in flight on every writer).
      process.kill(s.pid!, 'SIGKILL');
      stop = true;
      await Promise.all(writers);
      await waitGone(s.pid!);
      await s.stop({ keepData: true });
      server = undefined;
    }

    server = await startServer({ dataDir, removeOnStop: false });
    const list = await server.request('GET', SC);
    assert.equal(list.status, 200, list.text);
    const stored = new Map<string, any>((list.json.items as any[]).map((o) => [o.metadata.name, o]));
    const lost: string[] = [];
    for (const [name, a] of acked) {
      const o = stored.get(name);
      if (!o) {
        lost.push(`${name} (acknowledged at ${a.resourceVersion}) is missing`);
        continue;
      }
      const rv = BigInt(o.metadata.resourceVersion);
      // A write in flight at the kill may have committed after the last acknowledged one.
      if (rv < a.resourceVersion) lost.push(`${name} is at ${rv}, older than the acknowledged ${a.resourceVersion}`);
      else if (rv === a.resourceVersion) assert.deepEqual(o.metadata.labels, a.labels, `${name} holds what was acknowledged`);
    }
    assert.deepEqual(lost, [], `${lost.length} of ${acked.size} acknowledged objects lost (${total} acknowledged writes)`);
    assert.ok(acked.size >= ROUNDS, 'writes were acknowledged');
    assert.equal(integrityCheck(join(dataDir, 'state.db')), 'ok');
    await server.stop({ keepData: true });
    server = undefined;
    assert.equal(integrityCheck(join(dataDir, 'state.db')), 'ok');
    process.stdout.write(`# crash: ${ROUNDS} kills, ${total} acknowledged writes to ${acked.size} objects, none lost, integrity ok\n`);
  });
});
