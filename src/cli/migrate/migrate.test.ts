// `platform-apiserver migrate` over real SQLite files and a real etcd on loopback, without an API
// server: copies both ways with more keys than a page and a batch, the refusals (a prefix that
// holds keys, a data dir that is not empty, a dir a live process holds), bad input (no dir, a
// file that is not ours, an unreachable etcd, TLS to a plain etcd), and verification catching a
// target that differs, after which what was written is removed and what is left is named.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Etcd3 } from 'etcd3';
import { openSqliteStore } from '../../storage/sqlite/sqlite-store.js';
import { openSqliteExport } from '../../storage/sqlite/sqlite-export.js';
import { freePort, requireEtcd, startEtcdCluster, type EtcdCluster } from '../../../test/support/etcd-process.js';
import { runMigrate } from './command.js';
import { migrateToEtcd } from './to-etcd.js';
import { EtcdPrefix } from './etcd-range.js';
import { advanceRevision, GuardedWriter } from './etcd-writer.js';
import { ensureServingCertificates } from '../../config/certificates.js';
import { clientCertificate } from '../../../test/support/etcd-client-cert.js';

const haveEtcd = requireEtcd('migrations are tested against a real etcd') !== undefined;
const OBJECTS = 1234;

/** Runs the command; its exit code and what it printed. */
async function migrate(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runMigrate(argv, { stdout: (t) => void (out += t), stderr: (t) => void (err += t) });
  return { code, out, err };
}

/** A one-line error naming the command, and nothing else on stderr. */
function assertOneLineError(r: { code: number; err: string }, pattern: RegExp): void {
  assert.equal(r.code, 1, r.err);
  assert.match(r.err, /^platform-apiserver migrate: [^\n]+\n$/);
  assert.match(r.err, pattern);
}

describe('platform-apiserver migrate', { skip: !haveEtcd }, () => {
  const root = mkdtempSync(join(tmpdir(), 'migrate-test-'));
  const source = join(root, 'source');
  let etcd: EtcdCluster;
  let client: Etcd3;
  const expected = new Map<string, string>();

  before(async () => {
    const store = openSqliteStore({ path: join(source, 'state.db'), durability: 'normal' });
    for (let i = 0; i < OBJECTS; i++) {
      // Names as the server makes them, signer-linked ones with ':' among them.
      const key = i % 3 === 0 ? `/registry/certificates.platform.io/clustertrustbundles/example.com:signer:b${i}` : `/registry/networking.platform.io/servicecidrs/c${i}`;
      const value = JSON.stringify({ metadata: { name: key.split('/').pop(), uid: `uid-${i}` }, spec: { i } });
      await store.optimisticPut(key, Buffer.from(value), 0);
      expected.set(key, value);
    }
    // History the copy must not carry: an update and a deletion.
    const first = (await store.get('/registry/networking.platform.io/servicecidrs/c1')).kv!;
    await store.optimisticPut(first.key, Buffer.from('{"updated":true}'), first.modRevision);
    expected.set(first.key, '{"updated":true}');
    const gone = (await store.get('/registry/networking.platform.io/servicecidrs/c2')).kv!;
    await store.optimisticDelete(gone.key, gone.modRevision);
    expected.delete(gone.key);
    await store.close();
    etcd = await startEtcdCluster();
    client = new Etcd3({ hosts: etcd.endpoints.split(',') });
  });
  after(async () => {
    client?.close();
    await etcd?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  /** Every key under an etcd prefix, with its value, as the server would name it. */
  const etcdContents = async (prefix: string): Promise<Map<string, string>> => {
    const all = await client.getAll().prefix(`${prefix}/`).strings();
    return new Map(Object.entries(all).map(([k, v]) => [`/registry${k.slice(prefix.length)}`, v]));
  };

  test('to etcd and back: every live key with its bytes, the new store compacted above the old revisions', async () => {
    const to = await migrate('--data-dir', source, '--to-etcd-servers', etcd.endpoints, '--etcd-prefix', '/one/');
    assert.equal(to.code, 0, to.err);
    assert.match(to.out, new RegExp(`^migrated ${expected.size} objects from .* verified key by key`));
    assert.deepEqual(await etcdContents('/one'), expected);
    // The data dir as it was: the lock released again (a server can start on it), no WAL files left.
    assert.deepEqual(readdirSync(source), ['state.db']);

    const back = join(root, 'back');
    const from = await migrate('--from-etcd-servers', etcd.endpoints, '--etcd-prefix', '/one', '--data-dir', back);
    assert.equal(from.code, 0, from.err);
    assert.deepEqual(readdirSync(back), ['state.db']);
    const copy = openSqliteExport(join(back, 'state.db'));
    try {
      const got = new Map<string, string>();
      for (let page = copy.page('', 10_000); page.length; page = copy.page(page[page.length - 1]!.key, 10_000)) for (const kv of page) got.set(kv.key, kv.value.toString());
      assert.deepEqual(got, expected);
    } finally {
      copy.close();
    }
    // Opened by the store: its revision is past etcd's, and everything below it is compacted.
    const etcdRevision = Number((await client.get('x').exec()).header.revision);
    const store = openSqliteStore({ path: join(back, 'state.db') });
    try {
      const revision = await store.currentRevision();
      assert.ok(revision > etcdRevision, `${revision} > ${etcdRevision}`);
      assert.equal(await store.compactedRevision(), revision);
      await assert.rejects(store.list('/registry/', { revision: etcdRevision }), { code: 'Compacted' });
      // And it takes writes.
      await store.optimisticPut('/registry/networking.platform.io/servicecidrs/new', Buffer.from('{}'), 0);
    } finally {
      await store.close();
    }
  });

  test('a prefix that already holds keys is refused, and nothing is written', async () => {
    await client.put('/busy/networking.platform.io/servicecidrs/mine').value('theirs');
    const r = await migrate('--data-dir', source, '--to-etcd-servers', etcd.endpoints, '--etcd-prefix', '/busy');
    assertOneLineError(r, /etcd prefix \/busy\/ already holds 1 key: .*nothing was written/);
    assert.deepEqual([...(await etcdContents('/busy')).values()], ['theirs']);
  });

  test('a data dir that is not empty, or an etcd prefix with nothing in it, is refused, and nothing is written', async () => {
    const dir = join(root, 'not-empty');
    mkdirSync(dir);
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    const r = await migrate('--from-etcd-servers', etcd.endpoints, '--etcd-prefix', '/one', '--data-dir', dir);
    assertOneLineError(r, /data dir .*not-empty is not empty \(notes\.txt\)/);
    assert.deepEqual(readdirSync(dir), ['notes.txt']);
    // A prefix with nothing in it (a wrong --etcd-prefix): refused, and the dir it made is gone again.
    const fresh = join(root, 'from-nothing');
    assertOneLineError(await migrate('--from-etcd-servers', etcd.endpoints, '--etcd-prefix', '/nothing-here', '--data-dir', fresh), /etcd prefix \/nothing-here\/ holds no objects/);
    assert.ok(!existsSync(fresh));
  });

  test('a data dir a live process holds is refused; --force copies it at one revision', async () => {
    // This process's pid in the lock: a live owner, as a running server is.
    writeFileSync(join(source, 'state.db.lock'), `${process.pid}\n`);
    try {
      const r = await migrate('--data-dir', source, '--to-etcd-servers', etcd.endpoints, '--etcd-prefix', '/held');
      assertOneLineError(r, new RegExp(`a running server \\(pid ${process.pid}\\) holds .*state\\.db: stop it first`));
      assert.equal((await etcdContents('/held')).size, 0);
      const forced = await migrate('--data-dir', source, '--to-etcd-servers', etcd.endpoints, '--etcd-prefix', '/held', '--force');
      assert.equal(forced.code, 0, forced.err);
      assert.match(forced.err, /warning: a running server holds .*; writes after revision \d+ are not in this copy/);
      assert.deepEqual(await etcdContents('/held'), expected);
      // The server's lock is the server's: left in place.
      assert.ok(existsSync(join(source, 'state.db.lock')));
    } finally {
      rmSync(join(source, 'state.db.lock'), { force: true });
    }
  });

  test('a missing data dir, an empty one, and files that are not our database: one-line errors', async () => {
    assertOneLineError(await migrate('--data-dir', join(root, 'nowhere'), '--to-etcd-servers', etcd.endpoints), /data dir .*nowhere cannot be read: ENOENT/);
    const empty = join(root, 'empty');
    mkdirSync(empty);
    assertOneLineError(await migrate('--data-dir', empty, '--to-etcd-servers', etcd.endpoints), /holds no database \(state\.db\)/);
    const text = join(root, 'text');
    mkdirSync(text);
    writeFileSync(join(text, 'state.db'), 'not a database at all, just text '.repeat(200));
    assertOneLineError(await migrate('--data-dir', text, '--to-etcd-servers', etcd.endpoints), /state\.db is not a platform-apiserver database: file is not a database/);
    const other = join(root, 'other');
    mkdirSync(other);
    const db = new Database(join(other, 'state.db'));
    db.exec('CREATE TABLE songs (title TEXT)');
    db.close();
    assertOneLineError(await migrate('--data-dir', other, '--to-etcd-servers', etcd.endpoints), /is not a platform-apiserver database \(no current, log, meta tables\)/);
    for (const dir of [empty, text, other]) assert.ok(!existsSync(join(dir, 'state.db.lock')), 'the lock is released');
  });

  test('an unreachable etcd and TLS to a plain etcd fail at once, one line, nothing written', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const t0 = Date.now();
    assertOneLineError(await migrate('--data-dir', source, '--to-etcd-servers', closed), /etcd \(http:\/\/127\.0\.0\.1:\d+\): could not count the keys under the prefix: .*ECONNREFUSED/);
    const target = join(root, 'unreachable', 'data');
    assertOneLineError(await migrate('--from-etcd-servers', closed, '--data-dir', target), /could not read the prefix: .*ECONNREFUSED/);
    assert.ok(!existsSync(join(root, 'unreachable')), 'the dirs the migration created are removed again');
    assert.ok(Date.now() - t0 < 60_000, 'bounded by the dial timeout');
    const tls = etcd.endpoints.replace('http://', 'https://');
    assertOneLineError(await migrate('--data-dir', source, '--to-etcd-servers', tls, '--etcd-prefix', '/tls'), /etcd \(https:.*\): could not count the keys under the prefix/);
    assert.equal((await etcdContents('/tls')).size, 0);
  });

  test('verification catches a target that differs; what was written is removed and what is left is named', async () => {
    const victim = '/registry/networking.platform.io/servicecidrs/c4';
    await assert.rejects(
      migrateToEtcd({
        dataDir: source,
        target: { servers: etcd.endpoints.split(','), prefix: '/tampered' },
        afterCopy: async (t) => void (await t.client.put(t.keys.toEtcd(victim)).value('{"tampered":true}')),
      }),
      (err: Error) => {
        assert.match(err.message, /^verification failed: \/registry\/networking\.platform\.io\/servicecidrs\/c4 differs between the source and the target; \d+ keys written and removed again, but 1 key remain under \/tampered\/ \(e\.g\. \/tampered\/networking\.platform\.io\/servicecidrs\/c4\)/);
        return true;
      },
    );
    assert.deepEqual([...(await etcdContents('/tampered')).keys()], [victim]);

    await assert.rejects(
      migrateToEtcd({
        dataDir: source,
        target: { servers: etcd.endpoints.split(','), prefix: '/lost' },
        afterCopy: async (t) => void (await t.client.delete().key(t.keys.toEtcd(victim))),
      }),
      /^MigrationError: verification failed: \/registry\/networking\.platform\.io\/servicecidrs\/c4 is missing from the target; the etcd prefix was left as it was found/,
    );
    assert.equal((await etcdContents('/lost')).size, 0);
  });

  test('a guarded batch never overwrites a key that appeared meanwhile: the whole batch writes nothing', async () => {
    const target = new EtcdPrefix({ servers: etcd.endpoints.split(','), prefix: '/raced' });
    try {
      await client.put('/raced/g/things/b').value('theirs');
      const writer = new GuardedWriter(target);
      for (const name of ['a', 'b', 'c']) await writer.add(`/registry/g/things/${name}`, Buffer.from('ours'));
      await assert.rejects(writer.flush(), /key \/raced\/g\/things\/b already exists in etcd: something else is writing under the prefix; nothing was overwritten/);
      assert.deepEqual(Object.fromEntries(await etcdContents('/raced')), { '/registry/g/things/b': 'theirs' });
    } finally {
      target.close();
    }
  });

  test('advancing the revision stops at its first failure: no padding write goes on after it is reported', async () => {
    let calls = 0;
    let reported = -1;
    class FailingPrefix extends EtcdPrefix {
      override call<T>(doing: string, fn: () => Promise<T>): Promise<T> {
        calls++;
        if (calls === 20) return Promise.reject(new Error('etcd refused the 20th write'));
        return super.call(doing, fn);
      }
    }
    const target = new FailingPrefix({ servers: etcd.endpoints.split(','), prefix: '/padding' });
    try {
      const { revision } = await target.count();
      await assert.rejects(advanceRevision(target, revision, revision + 5000, 16), /refused the 20th write/);
      reported = calls;
      // Two round trips to etcd: writers still running would have sent more writes meanwhile.
      await target.count();
      await target.count();
      assert.equal(calls, reported + 2, 'no padding write after the failure was reported');
      const after = await target.count();
      await target.count();
      assert.equal((await target.count()).revision, after.revision, "etcd's revision no longer moves");
    } finally {
      target.close();
    }
  });

  test('etcd lost midway: the message says which keys are the migration\'s and how to remove them', async () => {
    const member = etcd.members[0]!;
    await assert.rejects(
      migrateToEtcd({ dataDir: source, target: { servers: etcd.endpoints.split(','), prefix: '/midway' }, afterCopy: () => member.stop() }),
      (err: Error) => {
        assert.match(err.message, /^etcd \(http:.*\): could not read the prefix: .*; removing what was written also failed \(.*\): keys under \/midway\/ created after etcd revision \d+ are this migration's, and the prefix stays marked unfinished \(no server serves it\); once etcd answers, run the same command again \(it removes them first\) or remove them with `etcdctl del --prefix \/midway\/`$/);
        assert.doesNotMatch(err.message, /\n/);
        return true;
      },
    );
    await member.start();
    // As it said: the copy is there, under the prefix.
    assert.equal((await etcdContents('/midway')).size, expected.size);
  });

  test('usage mistakes exit 2', async () => {
    assert.equal((await migrate('--data-dir', source)).code, 2);
    assert.equal((await migrate('--data-dir', source, '--to-etcd-servers', 'etcd:2379')).code, 2);
    assert.equal((await migrate('--from-etcd-servers', etcd.endpoints, '--data-dir', join(root, 'x'), '--force')).code, 2);
    assert.equal((await migrate('--to-etcd-servers', etcd.endpoints)).code, 2);
  });
});

describe('platform-apiserver migrate over TLS to etcd', { skip: !haveEtcd }, () => {
  const root = mkdtempSync(join(tmpdir(), 'migrate-tls-'));
  const certs = join(root, 'certs');
  let etcd: EtcdCluster | undefined;
  after(async () => {
    await etcd?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  test('--etcd-cafile, --etcd-certfile and --etcd-keyfile reach an etcd that requires client certificates; without them, one line and nothing written', async () => {
    await ensureServingCertificates({ dir: certs, hosts: ['127.0.0.1'] });
    const client = await clientCertificate(certs);
    const ca = join(certs, 'ca.crt');
    etcd = await startEtcdCluster({ tls: { certFile: join(certs, 'apiserver.crt'), keyFile: join(certs, 'apiserver.key'), caFile: ca, clientCertFile: client.certFile, clientKeyFile: client.keyFile } });
    const source = join(root, 'source');
    const store = openSqliteStore({ path: join(source, 'state.db'), durability: 'normal' });
    await store.optimisticPut('/registry/networking.platform.io/servicecidrs/over-tls', Buffer.from('{"tls":true}'), 0);
    await store.close();
    const tlsFlags = ['--etcd-cafile', ca, '--etcd-certfile', client.certFile, '--etcd-keyfile', client.keyFile];

    // No client certificate: etcd refuses the handshake.
    assertOneLineError(await migrate('--data-dir', source, '--to-etcd-servers', etcd.endpoints, '--etcd-cafile', ca), /etcd \(https:.*\): could not count the keys under the prefix/);
    // etcd's certificate checked against another CA: refused.
    const other = join(root, 'other');
    await ensureServingCertificates({ dir: other, hosts: ['127.0.0.1'] });
    assertOneLineError(await migrate('--data-dir', source, '--to-etcd-servers', etcd.endpoints, ...tlsFlags.slice(2), '--etcd-cafile', join(other, 'ca.crt')), /could not count the keys under the prefix/);

    // A TLS file that cannot be read: named by its flag.
    assertOneLineError(await migrate('--data-dir', source, '--to-etcd-servers', etcd.endpoints, ...tlsFlags, '--etcd-cafile', join(root, 'nope.crt')), /--etcd-cafile .*nope\.crt cannot be read: ENOENT/);

    const to = await migrate('--data-dir', source, '--to-etcd-servers', etcd.endpoints, ...tlsFlags);
    assert.equal(to.code, 0, to.err);
    const back = join(root, 'back');
    assertOneLineError(await migrate('--from-etcd-servers', etcd.endpoints, '--data-dir', back, '--etcd-cafile', ca), /could not read the prefix/);
    assert.ok(!existsSync(back));
    const from = await migrate('--from-etcd-servers', etcd.endpoints, '--data-dir', back, ...tlsFlags);
    assert.equal(from.code, 0, from.err);
    const copy = openSqliteExport(join(back, 'state.db'));
    try {
      assert.equal(copy.get('/registry/networking.platform.io/servicecidrs/over-tls')?.toString(), '{"tls":true}');
    } finally {
      copy.close();
    }
  });
});
