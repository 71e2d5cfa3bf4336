// The server assembled inside the test process by the binary's own builder
// (src/config/build-server.ts, from flags parsed as the binary parses them), so that a test can
// look at this process's own state afterwards, e.g. that no request changed Object.prototype.
// Talks over real HTTPS like the child-process harness and offers the same TestServer interface.

import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { AdmissionPlugin } from '../../src/apimachinery/admission.js';
import { buildServer } from '../../src/config/build-server.js';
import { parseFlags } from '../../src/config/flags.js';
import type { RevisionedStore } from '../../src/storage/revisioned-store.js';
import { SERVER_VERSION } from '../../src/version.js';
import { httpRequest, type TestServer } from './harness.js';

export interface InProcessOptions {
  /** Admission plugins besides the trust-bundle attest check. */
  admission?: AdmissionPlugin[];
  /** Wraps each kind's store as the registry sees it (to hold or fail a storage call). */
  wrapStorage?: (store: RevisionedStore) => RevisionedStore;
  /** Writes an audit log of every request's metadata to audit.log in the data dir. */
  audit?: boolean;
  requestTimeoutMs?: number;
  /** Go's IdleTimeout for connections (default 90 s), shortened. */
  idleTimeoutMs?: number;
  /** More server flags, as the binary takes them. */
  flags?: string[];
}

export async function startInProcessServer(opts: InProcessOptions = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-inproc-'));
  const config = parseFlags(
    [
      ...['--data-dir', dataDir, '--bind-address', '127.0.0.1', '--secure-port', '0', '--log-level', 'silent'],
      // A test's store need not survive a power cut; compaction runs more often than by default,
      // so that long runs keep a bounded history.
      ...['--storage-durability', 'normal', '--etcd-compaction-interval', '10s'],
      // What these tests look at is the API alone: no default ServiceCIDR, no scheduled snapshots.
      ...['--controllers', '-kubernetes-service-cidr-controller,-service-cidr-controller'],
      // (Scheduled snapshots are SQLite's: the flag is refused with another backend.)
      ...(opts.flags?.includes('--storage-backend') ? [] : ['--snapshot-schedule-cron', '']),
      ...(opts.audit ? ['--audit-log-path', join(dataDir, 'audit.log')] : []),
      ...(opts.requestTimeoutMs ? ['--request-timeout', `${opts.requestTimeoutMs}ms`] : []),
      ...(opts.flags ?? []),
    ],
    SERVER_VERSION,
  );
  const built = await buildServer(config, { logger: pino({ level: 'silent' }), admission: opts.admission, wrapStorage: opts.wrapStorage, idleTimeoutMs: opts.idleTimeoutMs });
  const { port } = await built.server.listen('127.0.0.1', 0);
  const url = new URL(`https://127.0.0.1:${port}`);
  const agent = new https.Agent({ ca: built.caCertPem, keepAlive: true });
  const token = built.adminToken;
  let stopped = false;
  return {
    url: url.href.replace(/\/$/, ''),
    port,
    kubeconfigPath: '',
    dataDir,
    token,
    caCertPem: built.caCertPem,
    log: () => '',
    request: (method, path, o = {}) => httpRequest(agent, url, method, path, o, token),
    async stop() {
      if (stopped) return;
      stopped = true;
      agent.destroy();
      await built.server.close();
      await built.release();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
