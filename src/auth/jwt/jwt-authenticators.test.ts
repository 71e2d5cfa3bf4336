// --authentication-config followed as it changes: every failure (invalid, then unreadable) is
// logged and counted once, and a good file afterwards is a success with the readiness problem gone.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadAuthenticationConfigSource } from './jwt-authenticators.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const GOOD = 'apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\njwt: []\n';

test('an invalid file, then a missing one, then a good one: each change logged and counted once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-authn-config-'));
  const path = join(dir, 'authn.yaml');
  writeFileSync(path, GOOD);
  const reloads: string[] = [];
  const errors: string[] = [];
  const logger = pino({ level: 'error' }, { write: (line: string) => void errors.push(JSON.parse(line).msg) });
  const source = loadAuthenticationConfigSource(path, [], { logger, observer: { attempt: () => {}, configReload: (r) => reloads.push(r) }, pollMs: 10 });
  // Each step waits until the poll has seen it (bounded), then a few more polls that must change nothing.
  const settle = async (done: () => boolean) => {
    for (let i = 0; i < 500 && !done(); i++) await sleep(10);
    await sleep(100);
  };
  try {
    writeFileSync(path, `${GOOD}bogus: 1\n`);
    await settle(() => reloads.length >= 1);
    assert.deepEqual(reloads, ['failure']);
    assert.match(source.health(), /is invalid, keeping the last good configuration: strict decoding error: unknown field "bogus"/);
    unlinkSync(path);
    await settle(() => reloads.length >= 2);
    assert.deepEqual(reloads, ['failure', 'failure']);
    assert.match(source.health(), /is unreadable, keeping the last good configuration: ENOENT/);
    assert.equal(errors.length, 2);
    assert.match(errors[1]!, /is unreadable/);
    writeFileSync(path, GOOD);
    await settle(() => reloads.length >= 3);
    assert.deepEqual(reloads, ['failure', 'failure', 'success']);
    assert.equal(source.health(), '');
  } finally {
    source.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
