// Start-up failures say what to change, on one line: the cause and the flag (with its file), exit
// code 1, or 2 for a usage mistake (an unknown command or flag, with the nearest one suggested). A
// taken port is found before the data dir is touched.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, type CliResult } from '../support/run-cli.js';

/** One line on stderr, nothing on stdout, the exit code. */
function assertOneLine(r: CliResult, code: number, line: RegExp | string): void {
  assert.equal(r.code, code, `exit code; stderr: ${r.stderr}`);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr.split('\n').length, 2, `one line: ${JSON.stringify(r.stderr)}`);
  if (typeof line === 'string') assert.equal(r.stderr, `${line}\n`);
  else assert.match(r.stderr.trimEnd(), line);
}

describe('start-up errors', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'platform-start-up-errors-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('a taken port fails before the data dir is made, naming --secure-port', async () => {
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      const dataDir = join(dir, 'fresh');
      const r = await runCli(['--data-dir', dataDir, '--secure-port', String(port)]);
      assertOneLine(r, 1, `platform-apiserver: cannot listen on 127.0.0.1:${port}: the port is already in use (another server?); stop what holds it, or choose another port with --secure-port (0 picks a free one)`);
      assert.equal(existsSync(dataDir), false, 'the data dir was not made');
    } finally {
      holder.close();
    }
  });

  test('an address not on this machine fails before the data dir is made, naming --bind-address', async () => {
    const dataDir = join(dir, 'elsewhere');
    // 192.0.2.0/24 is TEST-NET-1: never an address of this machine.
    const r = await runCli(['--data-dir', dataDir, '--bind-address', '192.0.2.1', '--secure-port', '0']);
    assertOneLine(r, 1, /^platform-apiserver: cannot listen on 192\.0\.2\.1:0: no such address on this machine; choose one of its addresses with --bind-address/);
    assert.equal(existsSync(dataDir), false);
  });

  test('a mistyped command or flag is a usage error (2) suggesting the nearest', async () => {
    const [versoin, snapshots, late, far, flag, helpTypo] = await Promise.all([
      runCli(['versoin']),
      runCli(['snapshots', 'ls']),
      runCli(['--secure-port', '0', 'versoin']),
      runCli(['frobnicate']),
      runCli(['--secure-prot', '0']),
      runCli(['help', 'snapshots']),
    ]);
    assertOneLine(versoin, 2, "platform-apiserver: unknown command 'versoin' (Did you mean version?)");
    assertOneLine(snapshots, 2, "platform-apiserver: unknown command 'snapshots' (Did you mean snapshot?)");
    assertOneLine(late, 2, "platform-apiserver: unknown command 'versoin' (Did you mean version?)");
    assertOneLine(far, 2, "platform-apiserver: unknown command 'frobnicate' (the commands are trust-anchors, snapshot, migrate, defrag, version; the server takes flags only, see --help)");
    assertOneLine(flag, 2, "platform-apiserver: unknown option '--secure-prot' (Did you mean --secure-port?)");
    assertOneLine(helpTypo, 2, "platform-apiserver: unknown command 'snapshots' (Did you mean snapshot?)");
  });

  test('`help` is --help; `help <command>` is the command\'s --help', async () => {
    const [help, flagHelp, commandHelp] = await Promise.all([runCli(['help']), runCli(['--help']), runCli(['help', 'version'])]);
    assert.equal(help.code, 0, help.stderr);
    assert.equal(help.stdout, flagHelp.stdout);
    assert.match(help.stdout, /^Usage: platform-apiserver \[options\]/);
    assert.equal(commandHelp.code, 0, commandHelp.stderr);
    assert.match(commandHelp.stdout, /^Usage: platform-apiserver version \[options\]/);
  });

  test("each file a flag names that cannot be used fails with one line naming the flag and the file", async () => {
    const file = (name: string, text: string): string => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    };
    const missing = join(dir, 'missing');
    const junk = file('junk.pem', 'not a certificate\n');
    const cases: [args: string[], line: RegExp][] = [
      [['--token-auth-file', missing], /^platform-apiserver: --token-auth-file \S+\/missing: no such file or directory$/],
      [['--token-auth-file', file('tokens.csv', 'a,b\n')], /^platform-apiserver: --token-auth-file (\S+\/tokens\.csv): token file '\1' must have at least 3 columns \(token, user name, user uid\), found 2$/],
      [['--authorization-policy-file', file('policy.yaml', 'x\n')], /^platform-apiserver: --authorization-policy-file \S+\/policy\.yaml: document 0 must be an object$/],
      [['--authorization-policy-file', missing], /^platform-apiserver: --authorization-policy-file \S+\/missing: no such file or directory$/],
      [['--tls-cert-file', missing, '--tls-private-key-file', junk], /^platform-apiserver: --tls-cert-file \S+\/missing: no such file or directory$/],
      [['--tls-cert-file', junk, '--tls-private-key-file', junk], /^platform-apiserver: --tls-cert-file \S+\/junk\.pem: /],
      [['--client-ca-file', junk], /^platform-apiserver: --client-ca-file \S+\/junk\.pem: no certificate in the bundle$/],
      [['--audit-log-path', join(dir, 'audit.log'), '--audit-policy-file', file('audit.yaml', 'kind: Nope\n')], /^platform-apiserver: --audit-policy-file \S+\/audit\.yaml: /],
      [['--service-account-key-file', missing, '--service-account-issuer', 'https://issuer'], /^platform-apiserver: --service-account-key-file \S+\/missing: no such file or directory$/],
      [['--authorization-config', missing], /^platform-apiserver: --authorization-config \S+\/missing: no such file or directory$/],
      [['--storage-backend', 'etcd', '--etcd-servers', 'http://127.0.0.1:1', '--etcd-cafile', missing], /^platform-apiserver: --etcd-cafile \S+\/missing: no such file or directory$/],
    ];
    const results = await Promise.all(cases.map(([args], i) => runCli(['--data-dir', join(dir, `data-${i}`), '--secure-port', '0', '--log-level', 'error', ...args])));
    results.forEach((r, i) => assertOneLine(r, 1, cases[i]![1]));
    const notDir = file('a-file', '');
    assertOneLine(await runCli(['--data-dir', notDir, '--secure-port', '0']), 1, `platform-apiserver: --data-dir ${notDir}: exists and is not a directory`);
  });
});
