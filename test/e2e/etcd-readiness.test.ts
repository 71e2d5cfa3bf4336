// /readyz asks etcd when it is asked, as kube's etcd check does (rate-limited to one probe a
// second, each with a 2 s deadline): an etcd that stops answering (frozen with SIGSTOP, or gone)
// fails the first /readyz after the rate window, not up to 5 s later; back, it is ready again
// on the next probe.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from './harness.js';
import { eventually } from '../support/polling.js';
import { requireEtcd, startEtcdCluster, type EtcdCluster } from '../support/etcd-process.js';

const haveEtcd = requireEtcd('the readiness check is tested against a real etcd') !== undefined;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/** One probe a second: a /readyz this long after the last one probes etcd afresh. */
const RATE_WINDOW_MS = 1100;

describe('/readyz on etcd', { skip: !haveEtcd }, () => {
  let etcd: EtcdCluster;
  let server: TestServer;
  before(async () => {
    etcd = await startEtcdCluster();
    server = await startServer({ args: ['--storage-backend', 'etcd', '--etcd-servers', etcd.endpoints] });
  });
  after(async () => {
    etcd?.members[0]?.unpause();
    await server?.stop();
    await etcd?.stop();
  });

  const readyz = async () => {
    const started = Date.now();
    const r = await server.request('GET', '/readyz?verbose', { timeoutMs: 10_000 });
    return { ...r, ms: Date.now() - started };
  };

  for (const fault of ['frozen (SIGSTOP)', 'stopped'] as const) {
    test(`etcd ${fault}: the first /readyz after the rate window fails its etcd check, within the probe deadline`, async () => {
      const member = etcd.members[0]!;
      assert.equal((await eventually(readyz, (r) => r.status === 200, 30_000)).status, 200, 'ready to begin with');
      if (fault === 'stopped') await member.stop();
      else member.pause();
      try {
        await sleep(RATE_WINDOW_MS);
        const r = await readyz();
        assert.equal(r.status, 500, `the first /readyz ${RATE_WINDOW_MS} ms after etcd ${fault}: ${r.text}`);
        assert.match(r.text, /\[-\]etcd failed: reason withheld\n/);
        assert.ok(r.ms < 4000, `answered within the 2 s probe deadline (and some slack): ${r.ms} ms`);
      } finally {
        if (fault === 'stopped') await member.start();
        else member.unpause();
      }
      const back = await eventually(readyz, (r) => r.status === 200, 30_000, 200);
      assert.equal(back.status, 200, `ready again once etcd answers: ${back.text}`);
    });
  }
});
