// `platform-apiserver trust-anchors` finds its kubeconfig as kubectl does, run as a user runs it
// (its own process, with its own environment): --kubeconfig alone when given; else the files
// $KUBECONFIG lists, missing ones skipped, merged with the first definition of a name winning;
// else ~/.kube/config; --context picks a context. Errors are one line.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml, stringify } from 'yaml';
import { runCli, type CliResult } from '../support/run-cli.js';
import { startServer, type TestServer } from './harness.js';
import { makeCACert } from '../fixtures/certs.js';

const CTB = '/apis/certificates.platform.io/v1beta1/clustertrustbundles';

describe('trust-anchors: the kubeconfig, found as kubectl finds it', () => {
  let server: TestServer;
  let dir: string;
  let expected: string;
  /** Kubeconfig files: the admin's; one with only a current-context; one whose definitions point nowhere; a relative CA path. */
  let admin: string, contextOnly: string, nowhere: string, relative: string, twoContexts: string;

  const run = (args: string[], env: Record<string, string>): Promise<CliResult> => runCli(['trust-anchors', '--name', 'plain', ...args], { env: { HOME: join(dir, 'empty-home'), KUBECONFIG: '', ...env } });
  const write = (name: string, config: object): string => {
    const path = join(dir, name);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, stringify(config));
    return path;
  };
  const assertPrinted = (r: CliResult): void => {
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, expected);
  };

  before(async () => {
    server = await startServer();
    dir = mkdtempSync(join(tmpdir(), 'platform-kubeconfigs-'));
    mkdirSync(join(dir, 'empty-home'));
    const cert = await makeCACert({ commonName: 'kubeconfig-anchor' });
    assert.equal((await server.request('POST', CTB, { body: { apiVersion: 'certificates.platform.io/v1beta1', kind: 'ClusterTrustBundle', metadata: { name: 'plain' }, spec: { trustBundle: cert.pem } } })).status, 201);
    expected = (await runCli(['trust-anchors', '--kubeconfig', server.kubeconfigPath, '--name', 'plain'])).stdout;
    assert.match(expected, /^-----BEGIN CERTIFICATE-----/);
    admin = server.kubeconfigPath;
    const config = parseYaml(readFileSync(admin, 'utf8'));
    contextOnly = write('context-only.yaml', { apiVersion: 'v1', kind: 'Config', 'current-context': config['current-context'] });
    // The same names as the admin kubeconfig's, pointing at a port nothing listens on.
    nowhere = write('nowhere.yaml', { ...config, clusters: [{ name: config.clusters[0].name, cluster: { ...config.clusters[0].cluster, server: 'https://127.0.0.1:1' } }] });
    // The CA as a path relative to the kubeconfig's own directory (kubectl resolves it there).
    writeFileSync(join(dir, 'sub-ca.crt'), server.caCertPem);
    relative = write('sub/relative.yaml', { ...config, clusters: [{ name: config.clusters[0].name, cluster: { server: server.url, 'certificate-authority': '../sub-ca.crt' } }] });
    twoContexts = write('two.yaml', {
      ...config,
      clusters: [...config.clusters, { name: 'elsewhere', cluster: { server: 'https://127.0.0.1:1' } }],
      contexts: [...config.contexts, { name: 'elsewhere', context: { cluster: 'elsewhere', user: config.users[0].name } }],
      'current-context': 'elsewhere',
    });
  });
  after(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('without --kubeconfig: $KUBECONFIG; a list is merged (missing files skipped), the first definition of a name winning', async () => {
    const [one, merged, firstWins, firstLoses] = await Promise.all([
      run([], { KUBECONFIG: admin }),
      run([], { KUBECONFIG: [join(dir, 'missing.yaml'), contextOnly, admin].join(':') }),
      run([], { KUBECONFIG: [admin, nowhere].join(':') }),
      run([], { KUBECONFIG: [nowhere, admin].join(':') }),
    ]);
    assertPrinted(one);
    assertPrinted(merged);
    assertPrinted(firstWins);
    assert.equal(firstLoses.code, 1, "the first file's cluster, pointing nowhere, is the one used");
    assert.match(firstLoses.stderr, /^platform-apiserver trust-anchors: .*ECONNREFUSED.*\n$/);
  });

  test('without either: ~/.kube/config; a relative CA path is relative to its file', async () => {
    const home = join(dir, 'home');
    mkdirSync(join(home, '.kube'), { recursive: true });
    writeFileSync(join(home, '.kube', 'config'), readFileSync(relative));
    writeFileSync(join(home, 'sub-ca.crt'), server.caCertPem);
    const [fromHome, fromEnv] = await Promise.all([run([], { HOME: home }), run([], { KUBECONFIG: relative })]);
    assertPrinted(fromHome);
    assertPrinted(fromEnv);
  });

  test('--kubeconfig alone when given; --context picks a context; what cannot be found is one line, exit 1', async () => {
    const [flag, context, noContext, none, noList, missingFlag] = await Promise.all([
      run(['--kubeconfig', admin], { KUBECONFIG: nowhere }),
      run(['--kubeconfig', twoContexts, '--context', parseYaml(readFileSync(admin, 'utf8'))['current-context']], {}),
      run(['--context', 'nope'], { KUBECONFIG: admin }),
      run([], {}),
      run([], { KUBECONFIG: `${join(dir, 'a.yaml')}:${join(dir, 'b.yaml')}` }),
      run(['--kubeconfig', join(dir, 'missing.yaml')], { KUBECONFIG: admin }),
    ]);
    assertPrinted(flag);
    assertPrinted(context);
    assert.deepEqual([noContext.code, noContext.stderr], [1, 'platform-apiserver trust-anchors: context "nope" does not exist\n']);
    assert.deepEqual([none.code, none.stderr], [1, `platform-apiserver trust-anchors: no kubeconfig: ${join(dir, 'empty-home', '.kube', 'config')} does not exist; pass --kubeconfig FILE or set KUBECONFIG\n`]);
    assert.deepEqual([noList.code, noList.stderr], [1, `platform-apiserver trust-anchors: no kubeconfig: $KUBECONFIG (${join(dir, 'a.yaml')}:${join(dir, 'b.yaml')}) names no file that exists; pass --kubeconfig FILE or set KUBECONFIG\n`]);
    assert.deepEqual([missingFlag.code, missingFlag.stderr], [1, `platform-apiserver trust-anchors: --kubeconfig ${join(dir, 'missing.yaml')}: no such file\n`]);
  });

  test('a mistyped flag is one usage line (2) naming the nearest', async () => {
    const r = await run(['--kubeconfg', admin], {});
    assert.deepEqual([r.code, r.stdout, r.stderr], [2, '', "platform-apiserver trust-anchors: unknown option '--kubeconfg' (Did you mean --kubeconfig?)\n"]);
  });
});
