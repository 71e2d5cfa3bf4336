// The names the pages' prose gives are the server's (docs/docs-tests.md): a flag named in
// backticks is a flag of the server or one of its commands (or of the other program the page is
// about, listed here), and a metric named in backticks is one a running server exposes on
// /metrics. A renamed flag or metric breaks this test, not only the commands that run.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { join } from 'node:path';
import type { Command } from 'commander';
import { documentedCommands } from '../../scripts/gen-flags-doc.js';
import { startTestServer, type TestServer } from '../../src/testing/index.js';
import { allPages, repo } from './pages.js';

/** Flags of other programs the pages name, each with its program. */
const OTHER_PROGRAMS_FLAGS: Record<string, string> = {
  '--test-timeout': 'node --test',
  '--max-old-space-size': 'node',
  '--perf-basic-prof': 'node',
  '--log-file': 'h2load',
  '--max-request-bytes': 'etcd',
};
/** Names in backticks that look like metrics but are labels. */
const LABELS = new Set(['apiserver_id_hash']);

const pageTexts = (): [string, string][] => allPages().map((p) => [p, readFileSync(join(repo, p), 'utf8')]);

test('every flag the pages name is the server’s, a command’s, or another named program’s', () => {
  const withSubcommands = (c: Command): Command[] => [c, ...c.commands.flatMap(withSubcommands)];
  const help = documentedCommands().flatMap(withSubcommands).map((c) => c.helpInformation()).join('\n');
  const ours = new Set([...help.matchAll(/--[a-z][a-z0-9-]*[a-z0-9]/g)].map((m) => m[0]));
  assert.ok(ours.has('--token-auth-file') && ours.has('--to-etcd-servers'), 'the flags are read from --help');
  const unknown: string[] = [];
  for (const [page, text] of pageTexts()) {
    // `--flag`, `--flag VALUE`, `--flag=value`; a family (`--oidc-*`) is not a flag.
    for (const m of text.matchAll(/`(--[a-z][a-z0-9-]*[a-z0-9])(?![a-z0-9*-])[^`]*`/g)) {
      if (!ours.has(m[1]!) && !OTHER_PROGRAMS_FLAGS[m[1]!]) unknown.push(`${page}: ${m[1]}`);
    }
  }
  assert.deepEqual(unknown, []);
});

let server: TestServer;
before(async () => {
  server = await startTestServer({ controllers: false });
});
after(() => server?.stop());

function metricsText(): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = https.get(`${server.url}/metrics`, { ca: server.caCertPem, headers: { Authorization: `Bearer ${server.token}` }, timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks).toString()) : reject(new Error(`/metrics: ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('/metrics: no answer within 30 s')));
  });
}

test('every metric the pages name is on /metrics', async () => {
  const exposed = new Set([...(await metricsText()).matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
  assert.ok(exposed.has('apiserver_request_total'), 'the metric families are read from /metrics');
  const missing: string[] = [];
  for (const [page, text] of pageTexts()) {
    for (const m of text.matchAll(/`((?:apiserver|etcd|authentication|authorization|process|nodejs)_[a-z0-9_]*[a-z0-9])`/g)) {
      if (!exposed.has(m[1]!) && !LABELS.has(m[1]!)) missing.push(`${page}: ${m[1]}`);
    }
  }
  assert.deepEqual(missing, []);
});
