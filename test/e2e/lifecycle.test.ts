// Start and stop as a process manager does it: SIGTERM while writes and watches run stops the
// server gracefully (/readyz fails during the shutdown delay, in-flight requests are answered,
// watches end cleanly, every acknowledged write is there after a restart, exit 0); a second
// signal exits at once; SIGTERM sent to `npm start` reaches the server and frees the database.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer, type TestServer } from './harness.js';
import { bounded } from '../support/polling.js';
import { builtCopy } from '../support/built-copy.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SC = '/apis/networking.platform.io/v1/servicecidrs';
const body = (name: string, i: number) => JSON.stringify({ apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name }, spec: { cidrs: [`10.${(i >> 8) & 255}.${i & 255}.0/24`] } });

const exitOf = (child: ChildProcess): Promise<{ code: number | null; signal: string | null }> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve({ code: child.exitCode, signal: child.signalCode })
    : new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

interface Outcome {
  status?: number;
  /** Set when no (complete) response came. */
  error?: string;
  /** The TLS connection was up before the failure (the server had accepted it). */
  connected: boolean;
}

/** One request on its own connection (no keep-alive), so a refused connection is told apart from a dropped request. */
function send(server: TestServer, method: string, path: string, payload?: string): Promise<Outcome> {
  const url = new URL(server.url);
  return new Promise((resolve) => {
    let connected = false;
    const req = https.request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        ca: server.caCertPem,
        agent: false,
        headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json', ...(payload ? { 'Content-Length': String(Buffer.byteLength(payload)) } : {}) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode, connected }));
        res.on('error', (err) => resolve({ error: `response: ${err.message}`, connected }));
        res.on('aborted', () => resolve({ error: 'response aborted', connected }));
      },
    );
    req.on('socket', (s) => s.once('secureConnect', () => (connected = true)));
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message, connected }));
    req.end(payload);
  });
}

/** A watch; resolves how it ended: 'end' for a clean end of the response. */
function watch(server: TestServer): { ended: Promise<string>; started: Promise<void>; events: () => number } {
  const url = new URL(server.url);
  let events = 0;
  let onStart: () => void = () => {};
  const started = new Promise<void>((resolve) => (onStart = resolve));
  const ended = new Promise<string>((resolve) => {
    const req = https.request({ host: url.hostname, port: url.port, path: `${SC}?watch=true`, ca: server.caCertPem, agent: false, headers: { Authorization: `Bearer ${server.token}` } }, (res) => {
      onStart();
      res.on('data', (c: Buffer) => (events += c.toString().split('\n').filter(Boolean).length));
      res.on('end', () => resolve('end'));
      res.on('aborted', () => resolve('aborted'));
      res.on('error', (err) => resolve(`error: ${err.message}`));
    });
    req.on('error', (err) => resolve(`error: ${err.message}`));
    req.end();
  });
  return { ended, started, events: () => events };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits for `done` to hold (checked every 20 ms), failing after `ms`: waiting for an event, not for a guess at how long it takes. */
async function until(done: () => boolean | Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(20);
  }
}

/** The shutdown delay of the first test: long enough that a loaded machine still sees /readyz fail before it ends. */
const SHUTDOWN_DELAY = '5s';

describe('graceful stop', () => {
  test('SIGTERM under writes and watches: readyz fails first, in-flight requests are answered, acknowledged writes survive, exit 0', async () => {
    const server = await startServer({ args: ['--shutdown-delay-duration', SHUTDOWN_DELAY] });
    const dataDir = server.dataDir;
    try {
      const watches = Array.from({ length: 3 }, () => watch(server));
      await bounded(Promise.all(watches.map((w) => w.started)), 60_000, 'the watches start');
      // A request surely in flight at the signal: its body is still arriving.
      const slow = (() => {
        const url = new URL(server.url);
        const payload = body('slow-body', 4000);
        let finish: () => void = () => {};
        const result = new Promise<number | string>((resolve) => {
          const req = https.request(
            { host: url.hostname, port: url.port, method: 'POST', path: SC, ca: server.caCertPem, agent: false, headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(payload)) } },
            (res) => {
              res.resume();
              res.on('end', () => resolve(res.statusCode ?? 0));
            },
          );
          req.on('error', (err) => resolve(err.message));
          req.write(payload.slice(0, 20));
          finish = () => req.end(payload.slice(20));
        });
        return { result, finish: () => finish() };
      })();

      const acknowledged: string[] = [];
      const outcomes: Outcome[] = [];
      let stop = false;
      let n = 0;
      const writer = async () => {
        while (!stop) {
          const i = n++;
          const name = `w-${i}`;
          const o = await send(server, 'POST', SC, body(name, i));
          outcomes.push(o);
          if (o.status === 201) acknowledged.push(name);
          if (o.error && !o.connected) await sleep(20);
        }
      };
      const lister = async () => {
        while (!stop) {
          const o = await send(server, 'GET', SC);
          outcomes.push(o);
          if (o.error && !o.connected) await sleep(20);
        }
      };
      const load = [...Array.from({ length: 6 }, writer), lister()];
      await until(() => acknowledged.length > 0, 'a write acknowledged under load');
      const exited = exitOf(server.process!);
      server.process!.kill('SIGTERM');
      // During the shutdown delay: not ready (the shutdown check), still serving.
      await until(async () => (await send(server, 'GET', '/readyz')).status === 500, '/readyz failing after SIGTERM');
      const readyText = await server.request('GET', '/readyz?verbose');
      assert.equal(readyText.status, 500);
      assert.match(readyText.text, /\[-\]shutdown failed: reason withheld\n/);
      // Past the delay the server stops accepting (the load sees refused connections); the slow
      // request is still in flight.
      await until(() => outcomes.some((o) => o.error === 'ECONNREFUSED'), 'new connections refused after the shutdown delay');
      slow.finish();
      const { code, signal } = await exited;
      stop = true;
      await Promise.all(load);
      assert.equal(signal, null);
      assert.equal(code, 0, server.log());
      assert.equal(await slow.result, 201, 'the request in flight at the signal was answered');
      for (const w of watches) assert.equal(await w.ended, 'end', 'watches end cleanly');
      assert.ok(acknowledged.length > 0, 'writes were acknowledged under load');
      // Connections the server had accepted got whole responses; only new ones were refused.
      const dropped = outcomes.filter((o) => o.error && o.connected);
      assert.deepEqual(dropped, [], 'no accepted request went unanswered');
      assert.ok(outcomes.some((o) => o.error === 'ECONNREFUSED'), 'new connections are refused once stopped');

      const again = await startServer({ dataDir, removeOnStop: true });
      try {
        const list = await again.request('GET', SC);
        const names = new Set((list.json.items as { metadata: { name: string } }[]).map((o) => o.metadata.name));
        const missing = [...acknowledged, 'slow-body'].filter((name) => !names.has(name));
        assert.deepEqual(missing, [], 'every acknowledged write is there after the restart');
      } finally {
        await again.stop();
      }
    } finally {
      await server.stop({ keepData: true });
    }
  });

  test('a second signal exits at once, during the shutdown delay', async () => {
    const server = await startServer({ args: ['--shutdown-delay-duration', '60s'] });
    try {
      const exited = exitOf(server.process!);
      server.process!.kill('SIGTERM');
      await until(async () => (await send(server, 'GET', '/readyz')).status === 500, '/readyz failing after SIGTERM');
      const r = await server.request('GET', '/readyz');
      assert.equal(r.status, 500);
      assert.match(r.text, /\[-\]shutdown failed: reason withheld\nreadyz check failed\n$/);
      assert.equal((await server.request('GET', '/livez')).text, 'ok', 'still alive, only not ready');
      server.process!.kill('SIGTERM');
      assert.deepEqual(await exited, { code: 1, signal: null });
    } finally {
      await server.stop();
    }
  });
});

describe('npm start', () => {
  test('SIGTERM to npm reaches the server: it stops, npm exits 0 and the database lock is released', async () => {
    // A private copy of the build: `npm pack` (test/packaging) rebuilds dist/ in place meanwhile.
    const built = await builtCopy(repo);
    const dataDir = mkdtempSync(join(tmpdir(), 'npm-start-'));
    const npm = spawn('npm', ['start', '--silent', '--', '--data-dir', dataDir, '--secure-port', '0', '--log-level', 'warn'], { cwd: built.dir, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      let out = '';
      npm.stdout!.on('data', (c: Buffer) => (out += c.toString()));
      npm.stderr!.on('data', (c: Buffer) => (out += c.toString()));
      for (let i = 0; i < 600 && !/ready at/.test(out); i++) await sleep(100);
      assert.match(out, /ready at https:/);
      assert.ok(existsSync(join(dataDir, 'state.db.lock')), 'the running server holds the lock');
      const exited = exitOf(npm);
      npm.kill('SIGTERM');
      assert.deepEqual(await exited, { code: 0, signal: null }, out);
      assert.equal(existsSync(join(dataDir, 'state.db.lock')), false, 'the lock is released');
      // The next server takes the database at once.
      const next = await startServer({ dataDir, removeOnStop: true });
      await next.stop();
    } finally {
      if (npm.exitCode === null && npm.signalCode === null) npm.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
      built.remove();
    }
  });
});
