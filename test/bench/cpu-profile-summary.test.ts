// The etcd bench prints where a server's CPU went from a real V8 profile: this runs node
// --cpu-prof on a busy file laid out as one of our folders and reads the profile back.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatShares, frameGroup, summarizeCpuProfile } from '../../bench/lib/cpu-profile-summary.js';

test('frames are grouped by package, Node module, our folder or V8', () => {
  assert.equal(frameGroup('file:///w/node_modules/@grpc/grpc-js/build/src/call.js', 'x'), '@grpc/grpc-js');
  assert.equal(frameGroup('file:///w/node_modules/etcd3/lib/rpc.js', 'x'), 'etcd3');
  assert.equal(frameGroup('file:///w/dist/src/http/filters/max-in-flight.js', 'release'), 'src/http/filters');
  assert.equal(frameGroup('file:///w/dist/src/registry/generic-store.js', 'get'), 'src/registry');
  assert.equal(frameGroup('node:internal/http2/core', 'request'), 'node:http2');
  assert.equal(frameGroup('node:_http_server', 'x'), 'node:http');
  assert.equal(frameGroup('', '(garbage collector)'), '(garbage collector)');
  assert.equal(frameGroup('', 'writev'), 'native writev');
});

test('a real profile: the busy folder holds the samples of the window, and none outside it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'profile-summary-'));
  try {
    const folder = join(dir, 'dist', 'src', 'http', 'filters');
    mkdirSync(folder, { recursive: true });
    const script = join(folder, 'busy.mjs');
    writeFileSync(script, 'export function spin() { const end = Date.now() + 400; let x = 0; while (Date.now() < end) x += Math.sqrt(x + 1); return x; }\nspin();\n');
    execFileSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', dir, script], { timeout: 60_000 });
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    assert.ok(file, 'node wrote a profile');
    const all = summarizeCpuProfile(join(dir, file), { fromMs: 0, toMs: 1e9 }, ['src/http', 'etcd3']);
    assert.ok(all.busyMs > 200, `busy ${all.busyMs} ms`);
    assert.equal(all.self[0]![0], 'src/http/filters', formatShares(all.self));
    assert.ok(all.self[0]![1] > 0.5, formatShares(all.self));
    assert.ok(all.inclusive[0]![1] >= all.self[0]![1], 'inclusive counts at least the self samples');
    assert.deepEqual(all.inclusive[1], ['etcd3', 0]);
    const none = summarizeCpuProfile(join(dir, file), { fromMs: 1e8, toMs: 1e9 }, ['src/http']);
    assert.equal(none.busyMs, 0);
    assert.deepEqual(none.self, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
