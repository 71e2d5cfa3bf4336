// The server assembled inside the test process (same parts as src/main.ts: SQLite store, watch
// caches, generic stores, the HTTPS server, an admin token) so that a test can look at this
// process's own state afterwards, e.g. that no request changed Object.prototype. Talks over real
// HTTPS like the child-process harness and offers the same TestServer interface.

import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import type { AdmissionPlugin } from '../../src/apimachinery/admission.js';
import type { KubeObject } from '../../src/apimachinery/object-meta.js';
import { METADATA_FOR_ALL } from '../../src/auth/audit/audit-policy.js';
import { unionAuthenticator } from '../../src/auth/authenticator.js';
import { CtbAttestAdmission } from '../../src/auth/ctb-attest-admission.js';
import { privilegedGroupsAuthorizer, unionAuthorizer } from '../../src/auth/rbac/rbac-authorizer.js';
import { TokenAuthenticator } from '../../src/auth/token-authenticator.js';
import { ensureServingCertificates } from '../../src/config/certificates.js';
import { AuditLog } from '../../src/http/audit-log.js';
import { createApiServer } from '../../src/http/server.js';
import { GenericStore, keyPrefixOf } from '../../src/registry/generic-store.js';
import { allResources } from '../../src/resources/all.js';
import { startCompactor } from '../../src/storage/compactor.js';
import type { RevisionedStore } from '../../src/storage/revisioned-store.js';
import { openSqliteStore } from '../../src/storage/sqlite-store.js';
import { WatchCache } from '../../src/storage/watch-cache.js';
import { KUBERNETES_VERSION } from '../../src/version.js';
import { httpRequest, type TestServer } from './harness.js';

export interface InProcessOptions {
  /** Admission plugins besides the trust-bundle attest check. */
  admission?: AdmissionPlugin[];
  /** Wraps each kind's store as the registry sees it (to hold or fail a storage call). */
  wrapStorage?: (store: RevisionedStore) => RevisionedStore;
  /** Writes an audit log of every request's metadata to audit.log in the data dir. */
  audit?: boolean;
  requestTimeoutMs?: number;
}

export async function startInProcessServer(opts: InProcessOptions = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-inproc-'));
  const storage = openSqliteStore({ path: join(dataDir, 'state.db'), durability: 'normal' });
  // Compaction as the real server runs it (more often), so that long runs keep a bounded history.
  const compactor = startCompactor(storage, 10_000, () => {});
  const caches = await Promise.all(allResources.map((definition) => WatchCache.start({ store: storage, prefix: keyPrefixOf(definition), onError: () => {} })));
  const authorizer = unionAuthorizer([privilegedGroupsAuthorizer(['system:masters'])]);
  const token = randomBytes(16).toString('hex');
  const admission = [new CtbAttestAdmission(authorizer), ...(opts.admission ?? [])];
  const resources = allResources.map((definition, i) => {
    const status = definition.subresources.find((s) => s.name === 'status');
    const store = opts.wrapStorage ? opts.wrapStorage(caches[i]!) : caches[i]!;
    return {
      definition,
      main: new GenericStore<KubeObject>({ definition, strategy: definition.strategy, subresource: '', storage: store, admission }),
      status: status ? new GenericStore<KubeObject>({ definition, strategy: status.strategy, subresource: 'status', storage: store, admission }) : undefined,
    };
  });
  const tls = await ensureServingCertificates({ dir: dataDir, hosts: ['127.0.0.1'] });
  const audit = opts.audit ? new AuditLog(join(dataDir, 'audit.log'), METADATA_FOR_ALL) : undefined;
  const server = createApiServer({
    resources,
    authenticator: unionAuthenticator([new TokenAuthenticator(new Map([[token, { username: 'admin', uid: 'admin', groups: ['system:masters'] }]]))]),
    authorizer,
    tls,
    logger: pino({ level: 'silent' }),
    version: KUBERNETES_VERSION,
    ...(audit ? { audit } : {}),
    ...(opts.requestTimeoutMs ? { requestTimeoutMs: opts.requestTimeoutMs } : {}),
  });
  const { port } = await server.listen('127.0.0.1', 0);
  const url = new URL(`https://127.0.0.1:${port}`);
  const agent = new https.Agent({ ca: tls.caCertPem, keepAlive: true });
  let stopped = false;
  return {
    url: url.href.replace(/\/$/, ''),
    port,
    kubeconfigPath: '',
    dataDir,
    token,
    caCertPem: tls.caCertPem,
    log: () => '',
    request: (method, path, o = {}) => httpRequest(agent, url, method, path, o, token),
    async stop() {
      if (stopped) return;
      stopped = true;
      agent.destroy();
      await server.close();
      compactor.stop();
      await Promise.all(caches.map((c) => c.close()));
      await storage.close();
      await audit?.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
