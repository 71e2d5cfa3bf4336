// A server whose build fails after its storage opened (here: a serving certificate that cannot
// be read) lets go of what it had started, so the same process can build one on the same data
// dir at once: the store's lock file, its writer thread, the caches and timers are released.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { buildServer } from '../../src/config/build-server.js';
import { parseFlags } from '../../src/config/flags.js';
import { SERVER_VERSION } from '../../src/version.js';

test('a build that fails after opening the store releases it; the next build on the same data dir succeeds', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-build-fail-'));
  const logger = pino({ level: 'silent' });
  const flags = (...extra: string[]) => parseFlags(['--data-dir', dataDir, '--bind-address', '127.0.0.1', '--secure-port', '0', '--log-level', 'silent', ...extra], SERVER_VERSION);
  try {
    await assert.rejects(
      buildServer(flags('--tls-cert-file', join(dataDir, 'missing.crt'), '--tls-private-key-file', join(dataDir, 'missing.key')), { logger }),
      /--tls-cert-file \S+missing\.crt: no such file or directory/,
    );
    const built = await buildServer(flags(), { logger });
    await built.release();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
