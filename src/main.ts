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
import { loadTokenFile, TokenAuthenticator } from './auth/token-authenticator.js';
import { X509Authenticator } from './auth/x509-authenticator.js';
import type { Authenticator } from './auth/authenticator.js';
import { ensureAdminToken } from './config/admin-token.js';
import { buildExternalAuthenticators } from './config/authn-wiring.js';
import { ensureServingCertificates } from './config/certificates.js';
import { buildAuthorization } from './config/authorizer-chain.js';
import { watchServingFiles, type ServingFilesWatch } from './config/serving-files.js';
import type { HealthCheck } from './http/health.js';
import { parseFlags, type ServerConfig } from './config/flags.js';
import { writeAdminKubeconfig } from './config/kubeconfig.js';
import type { ResourceEndpoints } from './http/endpoint.js';
import { AuditLog } from './http/audit-log.js';
import { loadAuditPolicy, METADATA_FOR_ALL } from './auth/audit/audit-policy.js';
import { createApiServer } from './http/server.js';
import { GenericStore, keyPrefixOf } from './registry/generic-store.js';
import { decodeShared } from './registry/object-codec.js';
import type { ResourceDefinition } from './registry/resource-definition.js';
import { WatchCache } from './storage/watch-cache.js';
import type { Logger } from 'pino';
import { allResources } from './resources/all.js';
import { MemoryStore } from './storage/memory-store.js';
import type { RevisionedStore } from './storage/revisioned-store.js';
import { openSqliteStore } from './storage/sqlite-store.js';
import { startCompactor, type Compactor } from './storage/compactor.js';
import type { EtcdHealth } from './storage/etcd-health.js';
import { KUBERNETES_VERSION, SERVER_VERSION } from './version.js';
import { observedAuthenticator } from './auth/authentication-observer.js';
import { selfReviewDiscovery } from './http/self-review.js';
import { buildHealthChecks } from './lifecycle/health-checks.js';
import { installShutdown } from './lifecycle/shutdown.js';
import type { MetricsResource } from './metrics/request-metrics.js';
import { createServerMetrics } from './metrics/server-metrics.js';
import { storageResourceLabel } from './metrics/storage-metrics.js';
import { timedStore, watchedStore } from './storage/observed-store.js';
import type { StorageObserver } from './storage/storage-observer.js';
import { startControllers, type RunningControllers } from './controllers/start-controllers.js';
import { startSnapshotSchedule, type SnapshotObserver, type SnapshotSchedule } from './storage/snapshot-schedule.js';
import type { ServiceCIDRObject } from './controllers/service-cidr-api.js';
import type { TrustBundleExpiryObserver, TrustBundleObject } from './controllers/trust-bundle-expiry.js';
import { earliestExpiry } from './resources/clustertrustbundles/expiry.js';

/**
 * Start-up phases, in ms since the process started (performance.now()'s origin), logged at
 * debug level once ready: where start-up time goes (`--log-level debug`; `npm run bench -- startup` times the whole).
 */
const phases: Record<string, number> = {};
const phase = (name: string): void => {
  phases[name] = Math.round(performance.now());
};
phase('modules loaded');

/** How long the ready line waits for the controllers' first sync. */
const CONTROLLERS_START_WAIT_MS = 10_000;

const ADMIN: Omit<UserInfo, 'uid'> = { username: 'admin', groups: ['system:masters'] };

interface OpenedStorage {
  backend: RevisionedStore;
  /** Starts compaction of the (timed) store; etcd's replicas coordinate through etcd itself. */
  startCompaction(timed: RevisionedStore, onError: (err: unknown) => void): Compactor;
  /** etcd's health, probed in the background; SQLite and memory report their own (StoreHealth). */
  etcdHealth?: EtcdHealth;
}

/**
 * The backend. The etcd modules (etcd3, gRPC and its protobuf loading: about half a second of
 * start-up) are imported only when the backend is etcd.
 */
async function openStorage(config: ServerConfig): Promise<OpenedStorage> {
  const s = config.storage;
  if (s.kind === 'etcd') {
    const [{ EtcdStore }, { startEtcdCompactor }, { monitorEtcdHealth }] = await Promise.all([
      import('./storage/etcd-store.js'),
      import('./storage/etcd-compactor.js'),
      import('./storage/etcd-health.js'),
    ]);
    const backend = new EtcdStore({ servers: s.servers, prefix: s.prefix, caFile: s.caFile, certFile: s.certFile, keyFile: s.keyFile });
    return { backend, startCompaction: (_timed, onError) => startEtcdCompactor(backend, config.compactionIntervalMs, onError), etcdHealth: monitorEtcdHealth(backend) };
  }
  const backend = s.kind === 'memory' ? new MemoryStore() : openSqliteStore({ path: s.path, durability: s.durability });
  return { backend, startCompaction: (timed, onError) => startCompactor(timed, config.compactionIntervalMs, onError) };
}

/**
 * One watch cache per kind: lists and watches are served from memory, fed by one store watch
 * (reported as the cache's feed to the observer). A store that cannot be reached now does not
 * stop the server: the caches start not ready (reported by /readyz) and keep re-trying with backoff.
 */
function startCaches(config: ServerConfig, storage: RevisionedStore, logger: Logger, observer: StorageObserver): Promise<WatchCache[]> {
  return Promise.all(
    allResources.map((definition) =>
      WatchCache.start({
        store: watchedStore(storage, observer, storageResourceLabel(definition), 'cache'),
        prefix: keyPrefixOf(definition),
        name: definition.plural,
        // etcd's current revision is a quorum read, as costly as the get: gets go to etcd (kube).
        consistentGets: config.storage.kind === 'etcd' ? 'store' : 'cache',
        // Lists selected by labels are served from a label index, built on first use (the shared decode).
        labelsOf: (kv) => decodeShared<KubeObject>(kv).metadata.labels,
        onError: (err) => logger.warn({ err, resource: definition.plural }, 'watch cache lost the store; re-initializing'),
        onRecovered: () => logger.info({ resource: definition.plural }, 'watch cache re-initialized'),
      }),
    ),
  );
}

/** What metrics know of the stored and served resources: label values outside these collapse to fixed ones. */
const storedResources: MetricsResource[] = allResources.map((d) => ({ group: d.group, version: d.version, kind: d.kind, plural: d.plural, subresources: d.subresources.map((s) => s.name) }));
const servedResources: MetricsResource[] = [
  ...storedResources,
  ...selfReviewDiscovery.map((d) => ({ group: d.group, version: d.version, kind: d.kind, plural: d.plural, subresources: [] })),
];

function buildEndpoints(caches: readonly RevisionedStore[], authorizer: Authorizer, observer: StorageObserver): ResourceEndpoints[] {
  const admission = [new CtbAttestAdmission(authorizer)];
  return allResources.map((definition, i) => {
    // Client watches are reported per resource (registered watchers, events sent).
    const storage = watchedStore(caches[i]!, observer, storageResourceLabel(definition), 'client');
    const status = definition.subresources.find((s) => s.name === 'status');
    return {
      definition,
      main: new GenericStore<KubeObject>({ definition, strategy: definition.strategy, subresource: '', storage, admission }),
      status: status ? new GenericStore<KubeObject>({ definition, strategy: status.strategy, subresource: 'status', storage, admission }) : undefined,
    };
  });
}

// ── controllers (issue #14) ─────────────────────────────────────────────────────────────────
/**
 * The in-process controllers (default `kubernetes` ServiceCIDR, ServiceCIDR finalizer and Ready
 * condition, ClusterTrustBundle expiry reporter feeding the metrics gauge) on their own registry stores over the watch caches: they read and write like any
 * client, so they see exactly what clients see. Resolves once their informers have synced;
 * `initialized` once the default ServiceCIDR exists (readiness waits for it, as kube's does).
 */
async function runControllers(config: ServerConfig, caches: readonly RevisionedStore[], logger: Logger, expiryObserver: TrustBundleExpiryObserver): Promise<RunningControllers> {
  const i = allResources.findIndex((d) => d.plural === 'servicecidrs');
  const definition = allResources[i]! as unknown as ResourceDefinition<ServiceCIDRObject>;
  const statusStrategy = definition.subresources.find((s) => s.name === 'status')!.strategy;
  const storage = caches[i]!;
  const t = allResources.findIndex((d) => d.plural === 'clustertrustbundles');
  const ctbDefinition = allResources[t]! as unknown as ResourceDefinition<TrustBundleObject>;
  return startControllers({
    // Always on (not one of --controllers): it only reads, and feeds the expiry gauge.
    trustBundleExpiry: {
      source: new GenericStore<TrustBundleObject>({ definition: ctbDefinition, strategy: ctbDefinition.strategy, subresource: '', storage: caches[t]!, admission: [] }),
      earliestExpiry,
      observer: expiryObserver,
    },
    serviceCIDRs: {
      main: new GenericStore<ServiceCIDRObject>({ definition, strategy: definition.strategy, subresource: '', storage, admission: [] }),
      status: new GenericStore<ServiceCIDRObject>({ definition, strategy: statusStrategy, subresource: 'status', storage, admission: [] }),
    },
    serviceClusterIPRanges: config.serviceClusterIPRanges,
    enabled: config.controllers,
    logger: logger.child({ component: 'controllers' }),
  });
}
/** `platform-apiserver trust-anchors|snapshot|migrate …`: a client-side command (src/cli/dispatch.ts), not the server. */
async function runSubcommand(argv: readonly string[]): Promise<boolean> {
  const { runCommand } = await import('./cli/dispatch.js');
  const code = await runCommand(argv);
  if (code === undefined) return false;
  // Exit explicitly: an HTTP client's keep-alive sockets would otherwise hold the process.
  process.exit(code);
}
// ── end controllers ─────────────────────────────────────────────────────────────────────────

/**
 * Scheduled snapshots of the SQLite store (--snapshot-schedule-cron): each saved or failed one
 * logged and counted; a failure never stops the server.
 */
function startSnapshots(config: ServerConfig, logger: Logger, observer: SnapshotObserver): SnapshotSchedule | undefined {
  const s = config.snapshots;
  if (!s || config.storage.kind !== 'sqlite') return undefined;
  const log = logger.child({ component: 'snapshots' });
  const schedule = startSnapshotSchedule({
    ...s,
    dbPath: config.storage.path,
    observer,
    onSaved: (saved, pruned) => log.info({ file: saved.file, revision: saved.revision, bytes: saved.sizeBytes, ms: Math.round(saved.durationMs), pruned: pruned.map((p) => p.name) }, 'snapshot saved'),
    onError: (err) => log.error({ err }, 'scheduled snapshot failed'),
  });
  log.debug({ cron: s.cron, dir: s.dir, retention: s.retention, next: schedule.next() }, 'snapshots scheduled');
  return schedule;
}

/** /readyz checks named after kube's dynamic certificate controllers: a reloaded file that is broken. */
function servingFileChecks(config: ServerConfig, watch: () => ServingFilesWatch | undefined): HealthCheck[] {
  const checks: HealthCheck[] = [];
  if (config.tlsCertFile) checks.push({ name: 'serving-cert', check: () => watch()?.servingCertProblem() || undefined });
  if (config.clientCAFile) checks.push({ name: 'client-ca-bundle', check: () => watch()?.clientCAProblem() || undefined });
  return checks;
}

/** How clients reach the bound address (a wildcard bind is reached on loopback). */
function urlHost(bindAddress: string): string {
  if (bindAddress === '0.0.0.0' || bindAddress === '') return '127.0.0.1';
  if (bindAddress === '::') return '[::1]';
  return isIPv6(bindAddress) ? `[${bindAddress}]` : bindAddress;
}

async function main(): Promise<void> {
  if (await runSubcommand(process.argv.slice(2))) return; // issue #14
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

  const metrics = createServerMetrics({
    resources: servedResources,
    stored: storedResources,
    countObjects: (label) => {
      const i = allResources.findIndex((d) => storageResourceLabel(d) === label);
      return caches[i]!.count(keyPrefixOf(allResources[i]!));
    },
  });
  phase('configured');
  const { backend, startCompaction, etcdHealth } = await openStorage(config);
  phase('storage opened');
  // Every store request is timed (etcd_request_duration_seconds), whatever the backend.
  const storage = timedStore(backend, metrics.storage, { prefixes: allResources.map((d) => ({ prefix: keyPrefixOf(d), type: storageResourceLabel(d) })), fallback: 'unknown' });
  const compactor = startCompaction(storage, (err) => logger.error({ err }, 'compaction failed'));
  const caches = await startCaches(config, storage, logger, metrics.storage);
  phase('watch caches filled');
  const snapshots = startSnapshots(config, logger, metrics.snapshots);
  const policy = loadPolicySource(config.authorizationPolicyFile, logger.child({ component: 'rbac' }));
  // system:masters may do everything, then the configured modes in order (RBAC by default: the
  // bootstrap roles apply to everyone, and the policy file adds to them).
  const authorization = await buildAuthorization(config.authorization, { policy: policy.current, observer: metrics.authorization, logger: logger.child({ component: 'authorization' }) });
  const authorizer = authorization.authorizer;

  const adminToken = ensureAdminToken(config.dataDir);
  const tokens = config.tokenAuthFile ? loadTokenFile(config.tokenAuthFile) : new Map<string, UserInfo>();
  tokens.set(adminToken, { ...ADMIN, uid: 'admin' });

  const authenticators: Authenticator[] = [new TokenAuthenticator(tokens)];
  if (config.clientCAFile) authenticators.push(new X509Authenticator());
  if (config.serviceAccountKeyFiles.length) {
    // Loaded only when configured: jose costs tens of milliseconds of every start otherwise.
    const { loadServiceAccountKeys, ServiceAccountAuthenticator } = await import('./auth/service-account-authenticator.js');
    const keys = loadServiceAccountKeys(config.serviceAccountKeyFiles);
    authenticators.push(new ServiceAccountAuthenticator({ keys, issuers: config.serviceAccountIssuers, audiences: config.apiAudiences }));
  }
  // OIDC/JWT issuers and the token webhook come after the built-in token kinds, as in kube.
  const external = await buildExternalAuthenticators(config, logger, metrics.authn);
  authenticators.push(...external.authenticators);
  const clientCAPem = config.clientCAFile ? readFileSync(config.clientCAFile, 'utf8') : undefined;
  for (const name of config.tls.insecure) logger.warn({ cipher: name }, `Use of insecure cipher '${name}' detected.`);

  const tls = config.tlsCertFile
    ? (() => {
        const certPem = readFileSync(config.tlsCertFile!, 'utf8');
        return { certPem, keyPem: readFileSync(config.tlsPrivateKeyFile!, 'utf8'), caCertPem: certPem };
      })()
    : await ensureServingCertificates({ dir: config.dataDir, hosts: [config.bindAddress] });
  phase('certificates ready');

  const audit = config.auditLogPath
    ? new AuditLog(config.auditLogPath, config.auditPolicyFile ? loadAuditPolicy(config.auditPolicyFile) : METADATA_FOR_ALL, metrics.audit)
    : undefined;

  // Controllers start beside the server, never before it: with storage out of reach they keep
  // trying, and readiness (poststarthook/start-service-cidr-controllers) waits for them.
  let controllers: RunningControllers | undefined; // issue #14
  let controllersReady = false;
  const controllersStarted = runControllers(config, caches, logger, metrics.trustBundleExpiry)
    .then(async (c) => {
      controllers = c;
      phase('controllers synced');
      await c.initialized;
      phase('controllers initialized');
      controllersReady = true;
    })
    .catch((err: unknown) => logger.error({ err }, 'controllers failed to start'));
  const server = createApiServer({
    audit,
    resources: buildEndpoints(caches, authorizer, metrics.storage),
    authenticator: observedAuthenticator(unionAuthenticator(authenticators), metrics.authentication),
    authorizer,
    tls: { certPem: tls.certPem, keyPem: tls.keyPem, clientCAPem, minVersion: config.tls.minVersion, ciphers: config.tls.ciphers },
    logger,
    version: KUBERNETES_VERSION,
    maxBodyBytes: config.maxRequestBodyBytes,
    health: buildHealthChecks({
      // etcd's health is probed in the background; SQLite reports its own (StoreHealth).
      store: etcdHealth ? { liveness: () => etcdHealth.problem(), readiness: () => etcdHealth.problem() } : backend,
      caches: () => caches.map((c) => c.health()),
      policyFileProblem: config.authorizationPolicyFile ? () => policy.health() : undefined,
      shuttingDown: () => shutdown.shuttingDown,
      extra: config.controllers.size ? [{ name: 'poststarthook/start-service-cidr-controllers', check: () => (controllersReady ? undefined : 'the ServiceCIDR controllers have not synced yet') }] : [],
      readinessOnly: [...external.healthChecks, ...servingFileChecks(config, () => servingFiles), ...(authorization.configProblem ? [{ name: 'authorization-config', check: () => authorization.configProblem!() || undefined }] : [])],
    }),
    onHealthFailure: (check, reason) => logger.info({ check, reason }, 'health check failed'),
    metrics: () => metrics.render(),
    observer: metrics.requests,
    limits: { maxRequestsInflight: config.maxRequestsInflight, maxMutatingRequestsInflight: config.maxMutatingRequestsInflight },
    requestTimeoutMs: config.requestTimeoutMs,
    maxEventLoopDelayMs: config.maxEventLoopDelayMs,
  });
  // Installed before listening: a signal during start-up stops the server too.
  const shutdown = installShutdown({
    logger,
    delayMs: config.shutdownDelayMs,
    timeoutMs: config.shutdownTimeoutMs,
    // Under `npm start`, a parent that goes away without forwarding the signal stops us too.
    parentCheckMs: process.env.npm_lifecycle_event === 'start' ? 1000 : 0,
    stopServing: () => server.close(),
    async release() {
      servingFiles?.close();
      authorization.close();
      await controllers?.stop(); // issue #14
      compactor.stop();
      await snapshots?.stop();
      etcdHealth?.stop();
      await Promise.all(caches.map((c) => c.close()));
      await audit?.close();
      policy.close();
      external.close();
      await storage.close();
    },
  });
  phase('server built');
  // Given serving files and the client CA are followed as they change (generated ones are ours).
  const servingFiles: ServingFilesWatch | undefined =
    config.tlsCertFile || config.clientCAFile
      ? watchServingFiles({
          files: { certFile: config.tlsCertFile, keyFile: config.tlsPrivateKeyFile, clientCAFile: config.clientCAFile },
          initial: { certPem: tls.certPem, keyPem: tls.keyPem, clientCAPem },
          apply: (m) => server.setServingMaterial(m),
          logger: logger.child({ component: 'serving-certificates' }),
        })
      : undefined;
  const { port } = await server.listen(config.bindAddress, config.securePort);
  phase('listening');
  // On a reachable store the default ServiceCIDR exists before the ready line (a client's first
  // `kubectl get` sees it); on an unreachable one the server announces itself not ready instead.
  await Promise.race([controllersStarted, new Promise((resolve) => setTimeout(resolve, CONTROLLERS_START_WAIT_MS).unref())]);
  const url = `https://${urlHost(config.bindAddress)}:${port}`;
  const kubeconfigPath = join(config.dataDir, 'admin.kubeconfig');
  writeAdminKubeconfig({ path: kubeconfigPath, server: url, caCertPem: tls.caCertPem, token: adminToken });
  process.stdout.write(`platform-apiserver ready at ${url} (kubeconfig: ${kubeconfigPath})\n`);
  phase('ready');
  logger.debug({ phases }, 'start-up phases (ms since the process started)');
}

main().catch((err: unknown) => {
  process.stderr.write(`platform-apiserver: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
