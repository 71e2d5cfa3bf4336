// What a build says it is: `platform-apiserver version`, `--version` and /version (kube 1.33's
// version.Info, field for field). The server here runs from source (no stamp): the git fields
// take kube's unstamped defaults; a build's stamp is checked by test/packaging/ on the packed package.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { runCli } from '../support/run-cli.js';
import { startServer, type TestServer } from './harness.js';
import { versionText } from '../../src/version.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

/** kube-apiserver 1.33's /version fields, in its order. */
const KUBE_FIELDS = ['major', 'minor', 'emulationMajor', 'emulationMinor', 'minCompatibilityMajor', 'minCompatibilityMinor', 'gitVersion', 'gitCommit', 'gitTreeState', 'buildDate', 'goVersion', 'compiler', 'platform'];

describe('version', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server?.stop());

  test('/version has kube 1.33 fields in its order; unstamped (from source) it says what kube says unstamped', async () => {
    const r = await server.request('GET', '/version', { anonymous: true });
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.json), KUBE_FIELDS);
    assert.deepEqual(
      { ...r.json, platform: undefined },
      {
        major: '1',
        minor: '33',
        emulationMajor: '1',
        emulationMinor: '33',
        minCompatibilityMajor: '1',
        minCompatibilityMinor: '32',
        gitVersion: `v1.33.0+platform-apiserver.${pkg.version}`,
        gitCommit: '',
        gitTreeState: '',
        buildDate: '1970-01-01T00:00:00Z',
        goVersion: `node${process.versions.node}`,
        compiler: 'tsc',
        platform: undefined,
      },
    );
    assert.match(r.json.platform, /^linux\/(amd64|arm64)$/);
  });

  test('`version` and `--version` print the version, and say a run from source has no commit or date stamped', async () => {
    const a = await runCli(['version']);
    assert.equal(a.code, 0, a.stderr);
    assert.equal(a.stderr, '');
    const lines = a.stdout.trimEnd().split('\n');
    assert.equal(lines[0], `platform-apiserver ${pkg.version}`);
    assert.match(a.stdout, /git commit: none stamped \(running from source; `npm run build` stamps dist\/\)/);
    assert.match(a.stdout, /API level:  Kubernetes 1\.33 \(v1\.33\.0\+platform-apiserver\./);
    const b = await runCli(['--version']);
    assert.equal(b.code, 0, b.stderr);
    assert.equal(b.stdout, a.stdout, '--version prints what `version` prints');
  });

  test('`version -o json` prints the /version document; -o yaml too; another format is a usage error', async () => {
    const served = (await server.request('GET', '/version', { anonymous: true })).json;
    const j = await runCli(['version', '-o', 'json']);
    assert.equal(j.code, 0, j.stderr);
    assert.deepEqual(JSON.parse(j.stdout), served);
    const y = await runCli(['version', '--output=yaml']);
    assert.equal(y.code, 0, y.stderr);
    assert.match(y.stdout, /^major: "1"\nminor: "33"\n/);
    const bad = await runCli(['version', '-o', 'wide']);
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr, `platform-apiserver version: --output must be '', json or yaml, not "wide"\n`);
  });

  test("a build's text names its commit, tree state and date", () => {
    const text = versionText({ version: '1.2.3', gitCommit: 'abc123', gitTreeState: 'dirty', buildDate: '2025-01-02T03:04:05Z', stamped: true });
    assert.equal(text.split('\n')[0], 'platform-apiserver 1.2.3');
    assert.match(text, /git commit: abc123 \(with uncommitted changes\)\n/);
    assert.match(text, /built: {6}2025-01-02T03:04:05Z\n/);
  });
});
