// Credentials across restarts, end to end: a restart on the same data dir keeps the CA and the
// admin token, so a kubeconfig handed out before still works against the restarted server; a
// corrupt serving certificate on disk is replaced at start under the same CA (the old kubeconfig
// still works too).

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { httpRequest, startServer, type TestServer } from './harness.js';

interface Kubeconfig {
  clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
  users: { user: { token: string } }[];
}

const readKubeconfig = (path: string): Kubeconfig => parseYaml(readFileSync(path, 'utf8')) as Kubeconfig;

/** GET /api/… with an old kubeconfig's CA and token against a (restarted) server's address. */
async function getWith(old: Kubeconfig, server: TestServer, path: string): Promise<number> {
  const agent = new https.Agent({ ca: Buffer.from(old.clusters[0]!.cluster['certificate-authority-data'], 'base64').toString() });
  try {
    return (await httpRequest(agent, new URL(server.url), 'GET', path, { timeoutMs: 30_000 }, old.users[0]!.user.token)).status;
  } finally {
    agent.destroy();
  }
}

describe('credentials across restarts', () => {
  const servers: TestServer[] = [];
  after(async () => {
    for (const s of servers) await s.stop();
    if (servers[0]) rmSync(servers[0].dataDir, { recursive: true, force: true });
  });

  test('the CA and token survive a restart; the old kubeconfig works; a corrupt serving certificate is replaced', async () => {
    const first = await startServer({ removeOnStop: false });
    servers.push(first);
    const old = readKubeconfig(first.kubeconfigPath);
    const path = '/apis/networking.platform.io/v1/servicecidrs/kubernetes';
    assert.equal(await getWith(old, first, path), 200);
    await first.stop({ keepData: true });

    const second = await startServer({ dataDir: first.dataDir });
    servers.push(second);
    const renewed = readKubeconfig(second.kubeconfigPath);
    assert.equal(renewed.clusters[0]!.cluster['certificate-authority-data'], old.clusters[0]!.cluster['certificate-authority-data']);
    assert.equal(renewed.users[0]!.user.token, old.users[0]!.user.token);
    assert.equal(await getWith(old, second, path), 200);
    const servingBefore = readFileSync(join(first.dataDir, 'apiserver.crt'), 'utf8');
    await second.stop({ keepData: true });

    writeFileSync(join(first.dataDir, 'apiserver.crt'), '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    const third = await startServer({ dataDir: first.dataDir, removeOnStop: true });
    servers.push(third);
    assert.notEqual(readFileSync(join(first.dataDir, 'apiserver.crt'), 'utf8'), servingBefore, 'a new serving certificate was written');
    assert.equal(await getWith(old, third, path), 200, 'the old kubeconfig trusts the new serving certificate');
  });
});
