#!/usr/bin/env node
// Composition root: parse the configuration once, build storage, registry, auth and the HTTPS
// server, then announce readiness (the kubeconfig exists only once connections are accepted).

import { CommanderError } from 'commander';
import { mkdirSync, readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { join } from 'node:path';
import { pino } from 'pino';
import type { KubeObject } from './apimachinery/object-meta.js';
import type { UserInfo } from './apimachinery/request-context.js';
import { unionAuthenticator } from './auth/authenticator.js';
import type { Authorizer } from './auth/authorizer.js';
import { CtbAttestAdmission } from './auth/ctb-attest-admission.js';
import { loadPolicySource } from './auth/rbac/policy-file.js';
import { privilegedGroupsAuthorizer, RbacAuthorizer, unionAuthorizer } from './auth/rbac/rbac-authorizer.js';
import { loadTokenFile, TokenAuthenticator } from './auth/token-authenticator.js';
import { loadServiceAccountKeys, ServiceAccountAuthenticator } from './auth/service-account-authenticator.js';
import { X509Authenticator } from './auth/x509-authenticator.js';
import type { Authenticator } from './auth/authenticator.js';
import { ensureAdminToken } from './config/admin-token.js';
import { ensureServingCertificates } from './config/certificates.js';
import { parseFlags, type ServerConfig } from './config/flags.js';
import { writeAdminKubeconfig } from './config/kubeconfig.js';
import type { ResourceEndpoints } from './http/endpoint.js';
import { AuditLog } from './http/audit-log.js';
import { loadAuditPolicy, METADATA_FOR_ALL } from './auth/audit/audit-policy.js';
import { createApiServer } from './http/server.js';
import { GenericStore, keyPrefixOf } from './registry/generic-store.js';
import { WatchCache } from './storage/watch-cache.js';
import type { Logger } from 'pino';
import { allResources } from './resources/all.js';
import { MemoryStore } from './storage/memory-store.js';
import type { RevisionedStore } from './storage/revisioned-store.js';
import { openSqliteStore } from './storage/sqlite-store.js';
import { EtcdStore } from './storage/etcd-store.js';
import { startCompaction } from './storage/etcd-compactor.js';
import { monitorEtcdHealth } from './storage/etcd-health.js';
import { KUBERNETES_VERSION, SERVER_VERSION } from './version.js';

const ADMIN: Omit<UserInfo, 'uid'> = { username: 'admin', groups: ['system:masters'] };

function openStorage(config: ServerConfig): RevisionedStore {
  const s = config.storage;
  if (s.kind === 'etcd') return new EtcdStore({ servers: s.servers, prefix: s.prefix, caFile: s.caFile, certFile: s.certFile, keyFile: s.keyFile });
  return s.kind === 'memory' ? new MemoryStore() : openSqliteStore({ path: s.path, durability: s.durability });
}

/** One watch cache per kind: lists and watches are served from memory, fed by one store watch. */
function startCaches(storage: RevisionedStore, logger: Logger): Promise<WatchCache[]> {
  return Promise.all(
    allResources.map((definition) =>
      WatchCache.start({ store: storage, prefix: keyPrefixOf(definition), onError: (err) => logger.error({ err, resource: definition.plural }, 'watch cache stopped following the store') }),
    ),
  );
}

function buildEndpoints(caches: readonly RevisionedStore[], authorizer: Authorizer): ResourceEndpoints[] {
  const admission = [new CtbAttestAdmission(authorizer)];
  return allResources.map((definition, i) => {
    const storage = caches[i]!;
    const status = definition.subresources.find((s) => s.name === 'status');
    return {
      definition,
      main: new GenericStore<KubeObject>({ definition, strategy: definition.strategy, subresource: '', storage, admission }),
      status: status ? new GenericStore<KubeObject>({ definition, strategy: status.strategy, subresource: 'status', storage, admission }) : undefined,
    };
  });
}

/** How clients reach the bound address (a wildcard bind is reached on loopback). */
function urlHost(bindAddress: string): string {
  if (bindAddress === '0.0.0.0' || bindAddress === '') return '127.0.0.1';
  if (bindAddress === '::') return '[::1]';
  return isIPv6(bindAddress) ? `[${bindAddress}]` : bindAddress;
}

async function main(): Promise<void> {
  let config: ServerConfig;
  try {
    config = parseFlags(process.argv.slice(2), SERVER_VERSION);
  } catch (err) {
    if (err instanceof CommanderError && (err.code === 'commander.helpDisplayed' || err.code === 'commander.version')) process.exit(0);
    process.stderr.write(`platform-apiserver: ${err instanceof Error ? err.message.replace(/^error: /, '') : String(err)}\n`);
    process.exit(2);
  }
  const logger = pino({ level: config.logLevel, base: { component: 'platform-apiserver' } }, pino.destination(2));
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });

  const storage = openStorage(config);
  const compactor = startCompaction(storage, config.compactionIntervalMs, (err) => logger.error({ err }, 'compaction failed'));
  const etcdHealth = storage instanceof EtcdStore ? monitorEtcdHealth(storage) : undefined;
  const caches = await startCaches(storage, logger);
  const policy = loadPolicySource(config.authorizationPolicyFile, logger.child({ component: 'rbac' }));
  // RBAC is always on, as in kube-apiserver: system:masters may do everything, the bootstrap roles
  // apply to everyone, and the policy file adds to them.
  const authorizer = unionAuthorizer([privilegedGroupsAuthorizer(['system:masters']), new RbacAuthorizer(policy.current)]);

  const adminToken = ensureAdminToken(config.dataDir);
  const tokens = config.tokenAuthFile ? loadTokenFile(config.tokenAuthFile) : new Map<string, UserInfo>();
  tokens.set(adminToken, { ...ADMIN, uid: 'admin' });

  const authenticators: Authenticator[] = [new TokenAuthenticator(tokens)];
  if (config.clientCAFile) authenticators.push(new X509Authenticator());
  if (config.serviceAccountKeyFiles.length) {
    const keys = loadServiceAccountKeys(config.serviceAccountKeyFiles);
    authenticators.push(new ServiceAccountAuthenticator({ keys, issuers: config.serviceAccountIssuers, audiences: config.apiAudiences }));
  }
  const clientCAPem = config.clientCAFile ? readFileSync(config.clientCAFile, 'utf8') : undefined;

  const tls = config.tlsCertFile
    ? (() => {
        const certPem = readFileSync(config.tlsCertFile!, 'utf8');
        return { certPem, keyPem: readFileSync(config.tlsPrivateKeyFile!, 'utf8'), caCertPem: certPem };
      })()
    : await ensureServingCertificates({ dir: config.dataDir, hosts: [config.bindAddress] });

  const audit = config.auditLogPath
    ? new AuditLog(config.auditLogPath, config.auditPolicyFile ? loadAuditPolicy(config.auditPolicyFile) : METADATA_FOR_ALL)
    : undefined;

  const server = createApiServer({
    audit,
    resources: buildEndpoints(caches, authorizer),
    authenticator: unionAuthenticator(authenticators),
    authorizer,
    tls: { ...tls, clientCAPem },
    logger,
    version: KUBERNETES_VERSION,
    maxBodyBytes: config.maxRequestBodyBytes,
    readinessProblems: () => [policy.health(), etcdHealth?.problem()].filter((p): p is string => Boolean(p)),
  });
  const { port } = await server.listen(config.bindAddress, config.securePort);
  const url = `https://${urlHost(config.bindAddress)}:${port}`;
  const kubeconfigPath = join(config.dataDir, 'admin.kubeconfig');
  writeAdminKubeconfig({ path: kubeconfigPath, server: url, caCertPem: tls.caCertPem, token: adminToken });
  process.stdout.write(`platform-apiserver ready at ${url} (kubeconfig: ${kubeconfigPath})\n`);

  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await server.close();
    compactor.stop();
    etcdHealth?.stop();
    await Promise.all(caches.map((c) => c.close()));
    await audit?.close();
    policy.close();
    await storage.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(`platform-apiserver: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
