// kill -9 of `snapshot save` mid-way (the real bin): whatever it leaves behind is never taken for
// a snapshot (`ls` does not list it, `status` and `restore` refuse it, a target that was never
// finished does not exist), the previous snapshot restores, and the next save clears the remains.
// Once deterministically (a test hook pauses the save after the copy, before it is finished),
// and once on a store big enough that the kill lands while SQLite is still copying.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../src/storage/sqlite/sqlite-store.js';
import { runCli, spawnCli } from '../support/run-cli.js';

const PREFIX = '/registry/networking.platform.io/servicecidrs/';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function addObjects(dataDir: string, from: number, count: number, bytes: number): Promise<number> {
  const store = openSqliteStore({ path: join(dataDir, 'state.db'), durability: 'normal' });
  const pad = 'x'.repeat(bytes);
  for (let i = from; i < from + count; i += 500) {
    await Promise.all(Array.from({ length: Math.min(500, from + count - i) }, (_, j) => store.optimisticPut(`${PREFIX}sc-${i + j}`, Buffer.from(JSON.stringify({ i: i + j, pad })), 0)));
  }
  const revision = await store.currentRevision();
  await store.close();
  return revision;
}

const partials = (dir: string) => readdirSync(dir).filter((n) => n.endsWith('.partial'));

function exited(child: ReturnType<typeof spawnCli>): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
}

describe('snapshot save killed mid-way', () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-snapcrash-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('the unfinished file is never a snapshot; the previous one restores', { timeout: 180_000 }, async () => {
    const data = join(dir, 'data');
    const snaps = join(dir, 'snaps');
    mkdirSync(snaps, { recursive: true });
    const firstRevision = await addObjects(data, 0, 200, 100);
    assert.equal((await runCli(['snapshot', 'save', join(snaps, 'previous.db'), '--data-dir', data])).code, 0);
    await addObjects(data, 200, 100, 100);

    const child = spawnCli(['snapshot', 'save', join(snaps, 'next.db'), '--data-dir', data], { PLATFORM_APISERVER_TEST_PAUSE_AT: 'save:copied' });
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    for (let i = 0; i < 600 && !stderr.includes('paused at'); i++) await sleep(50);
    assert.match(stderr, /paused at save:copied/);
    child.kill('SIGKILL');
    await exited(child);

    assert.equal(existsSync(join(snaps, 'next.db')), false, 'the target of the killed save does not exist');
    const [partial] = partials(snaps);
    assert.ok(partial, 'the killed save left its temporary file');
    const ls = await runCli(['snapshot', 'ls', '--snapshot-dir', snaps, '-o', 'json']);
    assert.deepEqual((JSON.parse(ls.stdout) as { name: string }[]).map((s) => s.name), ['previous.db'], 'ls lists only the finished snapshot');
    const status = await runCli(['snapshot', 'status', join(snaps, partial)]);
    assert.equal(status.code, 1);
    assert.match(status.stderr, /is the temporary file of an unfinished save, not a snapshot/);
    // Even renamed by hand, the copy lacks the snapshot metadata a finished save writes last.
    const renamed = join(dir, 'renamed.db');
    copyFileSync(join(snaps, partial), renamed);
    const renamedStatus = await runCli(['snapshot', 'status', renamed]);
    assert.equal(renamedStatus.code, 1);
    assert.match(renamedStatus.stderr, /not a platform-apiserver snapshot|not a snapshot|is damaged/);
    for (const file of [join(snaps, partial), renamed]) {
      const target = join(dir, `from-${file.endsWith('.partial') ? 'partial' : 'renamed'}`);
      const r = await runCli(['snapshot', 'restore', file, '--data-dir', target]);
      assert.equal(r.code, 1, r.stdout);
      assert.equal(existsSync(target), false, 'a refused restore writes nothing');
    }

    const restoredDir = join(dir, 'restored');
    const restore = await runCli(['snapshot', 'restore', join(snaps, 'previous.db'), '--data-dir', restoredDir, '--bump-revision', '100']);
    assert.equal(restore.code, 0, restore.stderr);
    const store = openSqliteStore({ path: join(restoredDir, 'state.db') });
    try {
      assert.equal(await store.count(PREFIX), 200, 'the previous snapshot holds what was written before it');
      assert.equal(await store.currentRevision(), firstRevision + 100);
    } finally {
      await store.close();
    }

    // The next save into the directory clears what the killed one left.
    assert.equal((await runCli(['snapshot', 'save', join(snaps, 'next.db'), '--data-dir', data])).code, 0);
    assert.deepEqual(partials(snaps), []);
    assert.deepEqual(readdirSync(snaps).sort(), ['next.db', 'previous.db']);
  });

  test('killed while SQLite copies a large store: nothing it left is taken for a snapshot', { timeout: 180_000 }, async () => {
    const data = join(dir, 'big');
    const snaps = join(dir, 'big-snaps');
    mkdirSync(snaps, { recursive: true });
    await addObjects(data, 0, 6000, 8000);
    const child = spawnCli(['snapshot', 'save', join(snaps, 'big.db'), '--data-dir', data]);
    // Killed as soon as the copy has begun.
    for (let i = 0; i < 2000 && partials(snaps).length === 0 && child.exitCode === null; i++) await sleep(5);
    child.kill('SIGKILL');
    await exited(child);
    const left = partials(snaps);
    const finished = existsSync(join(snaps, 'big.db'));
    process.stdout.write(`# killed save: ${left.length ? 'mid-copy (a temporary file left)' : 'after it finished'}${finished ? ', target finished' : ''}\n`);
    assert.ok(left.length === 1 || finished, 'either the copy was under way or the save had finished');
    const ls = JSON.parse((await runCli(['snapshot', 'ls', '--snapshot-dir', snaps, '-o', 'json'])).stdout) as { name: string }[];
    assert.deepEqual(ls.map((s) => s.name), finished ? ['big.db'] : []);
    for (const p of left) assert.equal((await runCli(['snapshot', 'status', join(snaps, p)])).code, 1);
    if (finished) assert.equal((await runCli(['snapshot', 'status', join(snaps, 'big.db')])).code, 0, 'a finished target is whole');
  });
});
