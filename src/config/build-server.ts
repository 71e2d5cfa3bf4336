// Builds the whole server from one parsed configuration: storage, the watch caches, the registry
// stores, the authenticator and authorizer chains, health, metrics, controllers, scheduled
// snapshots and the HTTPS server. src/main.ts and the tests' in-process server both call it, so
// a test exercises exactly the wiring the binary runs; listening and stopping stay with the caller.

import { followFiles } from './file-follow.js';
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import type { AdmissionPlugin } from '../apimachinery/admission.js';
import { startAdmission } from '../admission/admission-chain.js';
import { registrySources } from '../admission/informers.js';
import type { KubeObject } from '../apimachinery/object-meta.js';
import type { UserInfo } from '../apimachinery/request-context.js';
import { loadAuditPolicy, METADATA_FOR_ALL } from '../auth/audit/audit-policy.js';
import { observedAuthenticator } from '../auth/authentication-observer.js';
import { unionAuthenticator, type Authenticator } from '../auth/authenticator.js';
import type { Authorizer } from '../auth/authorizer.js';
import { CtbAttestAdmission } from '../auth/ctb-attest-admission.js';
import { loadPolicySource } from '../auth/rbac/policy-file.js';
import { loadTokenFile, TokenAuthenticator } from '../auth/token-authenticator.js';
import { X509Authenticator } from '../auth/x509-authenticator.js';
import { startControllers, type RunningControllers } from '../controllers/start-controllers.js';
import type { TrustBundleExpiryObserver } from '../controllers/trust-bundle-expiry.js';
import { AuditLog } from '../http/filters/audit-log.js';
import type { ResourceEndpoints } from '../http/endpoints/endpoint.js';
import type { HealthCheck } from '../http/routes/health.js';
import { selfReviewDiscovery } from '../http/endpoints/self-review.js';
import { createApiServer, type ApiServer } from '../http/server.js';
import { buildHealthChecks } from '../lifecycle/health-checks.js';
import type { MetricsResource } from '../metrics/request-metrics.js';
import { createServerMetrics } from '../metrics/server-metrics.js';
import { storageResourceLabel } from '../metrics/storage-metrics.js';
import { decodeShared } from '../registry/object-codec.js';
import { GenericStore, keyPrefixOf } from '../registry/generic-store.js';
import type { ResourceDefinition } from '../registry/resource-definition.js';
import type { RestStorage } from '../registry/rest-storage.js';
import type { ValidatingAdmissionPolicy } from '../resources/admissionregistration/types.js';
import { allResources } from '../resources/all.js';
import { earliestExpiry } from '../resources/clustertrustbundles/expiry.js';
import { clusterTrustBundles } from '../resources/clustertrustbundles/index.js';
import { serviceCIDRs } from '../resources/servicecidrs/index.js';
import { ipAddresses } from '../resources/ipaddresses/index.js';
import { coreEvents } from '../resources/events/index.js';
import { startCompactor, type Compactor } from '../storage/compactor.js';
import type { EtcdHealth } from '../storage/etcd/etcd-health.js';
import { MemoryStore } from '../storage/sqlite/memory-store.js';
import { timedStore, watchedStore } from '../storage/observed-store.js';
import type { RevisionedStore } from '../storage/revisioned-store.js';
import { startSnapshotSchedule, type SnapshotObserver, type SnapshotSchedule } from '../storage/sqlite/snapshot-schedule.js';
import { openSqliteStore } from '../storage/sqlite/sqlite-store.js';
import type { RebuiltStore } from '../storage/sqlite/store-rebuild.js';
import type { StorageSize } from '../metrics/storage-size-metrics.js';
import type { StorageObserver } from '../storage/storage-observer.js';
import { WatchCache } from '../storage/cache/watch-cache.js';
import { KUBERNETES_VERSION } from '../version.js';
import { ensureAdminToken } from './admin-token.js';
import { buildExternalAuthenticators } from './authn-wiring.js';
import { buildAuthorization } from './authorizer-chain.js';
import { ensureServingCertificates } from './certificates.js';
import type { ServerConfig } from './flags.js';
import { checkCABundle, checkPair, watchServingFiles, type ServingFilesWatch } from './serving-files.js';
import { readingFlagFile } from './start-up-errors.js';

export interface BuildOptions {
  logger: Logger;
  /** Start-up phases, reported as they pass (main logs them at debug level). */
  onPhase?: (name: string) => void;
  /** Whether the server is stopping: /readyz fails while it is. */
  shuttingDown?: () => boolean;
  /** Admission plugins after the trust-bundle attest check (tests). */
  admission?: AdmissionPlugin[];
  /** Wraps each kind's store as the registry sees it (tests: to hold or fail a storage call). */
  wrapStorage?: (store: RevisionedStore) => RevisionedStore;
  /** Go's IdleTimeout for connections (default 90 s, as kube's; tests shorten it). */
  idleTimeoutMs?: number;
}

export interface BuiltServer {
  server: ApiServer;
  /** The admin token (system:masters) written into the admin kubeconfig. */
  adminToken: string;
  /** The CA that clients verify the serving certificate against. */
  caCertPem: string;
  /** Settles once the controllers synced and the default ServiceCIDR exists, or failed to start (logged). */
  controllersStarted: Promise<void>;
  /** Stops everything the server was built on; call after the server stopped serving. */
  release(): Promise<void>;
}

const ADMIN: Omit<UserInfo, 'uid'> = { username: 'admin', groups: ['system:masters'] };

interface OpenedStorage {
  backend: RevisionedStore;
  /** The store's size on disk and in use (apiserver_storage_size_bytes); absent in memory. */
  size?: () => Promise<StorageSize | undefined>;
  /** Starts compaction of the (timed) store; etcd's replicas coordinate through etcd itself. */
  startCompaction(timed: RevisionedStore, onError: (err: unknown) => void): Compactor;
  /** etcd's health, probed in the background; SQLite and memory report their own (StoreHealth). */
  etcdHealth?: EtcdHealth;
}

/**
 * The backend. The etcd modules (etcd3, gRPC and its protobuf loading: about half a second of
 * start-up) are imported only when the backend is etcd.
 */
async function openStorage(config: ServerConfig, logger: Logger): Promise<OpenedStorage> {
  const s = config.storage;
  if (s.kind === 'etcd') {
    const [{ EtcdStore }, { startEtcdCompactor }, { etcdHealthChecks }] = await Promise.all([
      import('../storage/etcd/etcd-store.js'),
      import('../storage/etcd/etcd-compactor.js'),
      import('../storage/etcd/etcd-health.js'),
    ]);
    const backend = new EtcdStore({ servers: s.servers, prefix: s.prefix, caFile: s.caFile, certFile: s.certFile, keyFile: s.keyFile });
    // A prefix a migration has not finished filling is never served.
    await backend.refuseUnfinished().catch(async (err: unknown) => {
      await backend.close();
      throw err;
    });
    return {
      backend,
      size: () => backend.size(),
      startCompaction: (_timed, onError) => startEtcdCompactor(backend, config.compactionIntervalMs, onError),
      etcdHealth: etcdHealthChecks(backend),
    };
  }
  const onUpgrade = (r: RebuiltStore): void =>
    logger.info({ fromSchema: r.fromSchema, objects: r.objects, beforeBytes: r.beforeBytes, afterBytes: r.afterBytes, ms: Math.round(r.durationMs) }, 'store file rewritten in the current format (once)');
  const backend = s.kind === 'memory' ? new MemoryStore() : openSqliteStore({ path: s.path, durability: s.durability, onUpgrade });
  return { backend, size: async () => backend.size(), startCompaction: (timed, onError) => startCompactor(timed, config.compactionIntervalMs, onError) };
}

/**
 * The kinds that own their storage (a kind stored as another, events.k8s.io's Event, shares that
 * kind's prefix, watch cache and metrics).
 */
const storedResourceDefs = allResources.filter((d) => !d.storedAs);

/**
 * One watch cache per stored kind, by key prefix: lists and watches are served from memory, fed by one store
 * watch (reported as the cache's feed to the observer). A store that cannot be reached now does
 * not stop the server: the caches start not ready (reported by /readyz) and keep re-trying with backoff.
 */
async function startCaches(config: ServerConfig, storage: RevisionedStore, logger: Logger, observer: StorageObserver): Promise<ReadonlyMap<string, WatchCache>> {
  const caches = await Promise.all(
    storedResourceDefs.map((definition) =>
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
  return new Map(storedResourceDefs.map((d, i) => [keyPrefixOf(d), caches[i]!]));
}

/** The watch cache of one kind's storage (every served kind has one: startCaches makes them by prefix). */
function cacheOf(caches: ReadonlyMap<string, WatchCache>, definition: ResourceDefinition): WatchCache {
  const cache = caches.get(keyPrefixOf(definition));
  if (!cache) throw new Error(`no watch cache for ${definition.plural}`);
  return cache;
}

/** What metrics know of the stored and served resources: label values outside these collapse to fixed ones. */
const storedResources: MetricsResource[] = storedResourceDefs.map((d) => ({ group: d.group, version: d.version, kind: d.kind, plural: d.plural, subresources: d.subresources.map((s) => s.name) }));
const servedResources: MetricsResource[] = [
  ...allResources.map((d) => ({ group: d.group, version: d.version, kind: d.kind, plural: d.plural, subresources: d.subresources.map((s) => s.name) })),
  ...selfReviewDiscovery.map((d) => ({ group: d.group, version: d.version, kind: d.kind, plural: d.plural, subresources: [] })),
];

/** A kind's main and status registry stores over one storage. */
function registryStores<T extends KubeObject>(definition: ResourceDefinition<T>, storage: RevisionedStore, admission: readonly AdmissionPlugin[]): { main: GenericStore<T>; status?: GenericStore<T> } {
  const status = definition.subresources.find((s) => s.name === 'status');
  return {
    main: new GenericStore<T>({ definition, strategy: definition.strategy, subresource: '', storage, admission: [...admission] }),
    status: status ? new GenericStore<T>({ definition, strategy: status.strategy, subresource: 'status', storage, admission: [...admission] }) : undefined,
  };
}

function buildEndpoints(caches: ReadonlyMap<string, WatchCache>, admission: readonly AdmissionPlugin[], observer: StorageObserver, wrap: (s: RevisionedStore) => RevisionedStore): ResourceEndpoints[] {
  return allResources.map((definition) => {
    // Client watches are reported per resource (registered watchers, events sent).
    const storage = wrap(watchedStore(cacheOf(caches, definition), observer, storageResourceLabel(definition.storedAs?.definition ?? definition), 'client'));
    return { definition, ...registryStores(definition, storage, admission) };
  });
}

/**
 * The in-process controllers (default `kubernetes` ServiceCIDR, ServiceCIDR finalizer and Ready
 * condition, ClusterTrustBundle expiry reporter feeding the metrics gauge) on their own registry
 * stores over the watch caches: they read and write like any client, so they see exactly what
 * clients see. Resolves once their informers have synced; `initialized` once the default
 * ServiceCIDR exists (readiness waits for it, as kube's does).
 */
function runControllers(config: ServerConfig, caches: ReadonlyMap<string, WatchCache>, logger: Logger, expiryObserver: TrustBundleExpiryObserver): Promise<RunningControllers> {
  const cidrs = registryStores(serviceCIDRs, cacheOf(caches, serviceCIDRs), []);
  return startControllers({
    // Always on (not one of --controllers): it only reads, and feeds the expiry gauge.
    trustBundleExpiry: { source: registryStores(clusterTrustBundles, cacheOf(caches, clusterTrustBundles), []).main, earliestExpiry, observer: expiryObserver },
    serviceCIDRs: { main: cidrs.main, status: cidrs.status! },
    ipAddresses: registryStores(ipAddresses, cacheOf(caches, ipAddresses), []).main,
    events: registryStores(coreEvents, cacheOf(caches, coreEvents), []).main,
    eventTTLMs: config.eventTTLMs,
    serviceClusterIPRanges: config.serviceClusterIPRanges,
    enabled: config.controllers,
    logger: logger.child({ component: 'controllers' }),
  });
}

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

/** The authenticators in kube's order: static and admin tokens, client certificates, service accounts, then OIDC/JWT and the webhook. */
async function buildAuthenticators(config: ServerConfig, adminToken: string): Promise<Authenticator[]> {
  const file = config.tokenAuthFile;
  const tokens = file ? await readingFlagFile('--token-auth-file', file, () => loadTokenFile(file)) : new Map<string, UserInfo>();
  tokens.set(adminToken, { ...ADMIN, uid: 'admin' });
  const authenticators: Authenticator[] = [new TokenAuthenticator(tokens)];
  if (config.clientCAFile) authenticators.push(new X509Authenticator());
  if (config.serviceAccountKeyFiles.length) {
    // Loaded only when configured: jose costs tens of milliseconds of every start otherwise.
    const { loadServiceAccountKeys, ServiceAccountAuthenticator } = await import('../auth/service-account-authenticator.js');
    const keys = (await Promise.all(config.serviceAccountKeyFiles.map((f) => readingFlagFile('--service-account-key-file', f, () => loadServiceAccountKeys([f]))))).flat();
    authenticators.push(new ServiceAccountAuthenticator({ keys, issuers: config.serviceAccountIssuers, audiences: config.apiAudiences }));
  }
  return authenticators;
}

/** The serving certificate and key: the given files (checked: a pair that matches), or ones generated (and reused) in the data dir. */
async function servingMaterial(config: ServerConfig): Promise<{ certPem: string; keyPem: string; caCertPem: string }> {
  const certFile = config.tlsCertFile;
  const keyFile = config.tlsPrivateKeyFile!;
  if (!certFile) return ensureServingCertificates({ dir: config.dataDir, hosts: [config.bindAddress] });
  const certPem = await readingFlagFile('--tls-cert-file', certFile, () => readFileSync(certFile, 'utf8'));
  const keyPem = await readingFlagFile('--tls-private-key-file', keyFile, () => readFileSync(keyFile, 'utf8'));
  await readingFlagFile('--tls-cert-file', certFile, () => checkPair(certPem, keyPem));
  return { certPem, keyPem, caCertPem: certPem };
}

/** --client-ca-file's bundle, checked as a reload checks it (at least one whole certificate). */
async function clientCA(file: string | undefined): Promise<string | undefined> {
  if (!file) return undefined;
  return readingFlagFile('--client-ca-file', file, () => {
    const pem = readFileSync(file, 'utf8');
    checkCABundle(pem);
    return pem;
  });
}

export async function buildServer(config: ServerConfig, options: BuildOptions): Promise<BuiltServer> {
  const { logger } = options;
  const phase = options.onPhase ?? (() => undefined);
  let caches: ReadonlyMap<string, WatchCache> = new Map();
  let storageSize: OpenedStorage['size'];
  const metrics = createServerMetrics({
    storageSize: { clusterId: `${config.storage.kind === 'etcd' ? 'etcd' : 'sqlite'}-0`, read: async () => storageSize?.() },
    resources: servedResources,
    stored: storedResources,
    countObjects: (label) => {
      const definition = storedResourceDefs.find((d) => storageResourceLabel(d) === label)!;
      return cacheOf(caches, definition).count(keyPrefixOf(definition));
    },
  });
  phase('configured');
  const { backend, startCompaction, etcdHealth, size } = await openStorage(config, logger);
  storageSize = size;
  phase('storage opened');
  // What is started is let go in reverse order, by release() or, when a later step of the
  // build fails (a broken configuration file, a certificate that cannot be read), at once: an
  // embedding process (the tests' in-process server) must not keep a store, caches or timers.
  const started: (() => unknown)[] = [() => backend.close(), () => etcdHealth?.stop()];
  const releaseStarted = async (): Promise<void> => {
    for (const stop of started.splice(0).reverse()) await stop();
  };
  try {
    return await assemble();
  } catch (err) {
    await releaseStarted().catch((closeErr: unknown) => logger.error({ err: closeErr }, 'releasing a server that failed to build failed'));
    throw err;
  }

  async function assemble(): Promise<BuiltServer> {
    // Every store request is timed (etcd_request_duration_seconds), whatever the backend.
    const storage = timedStore(backend, metrics.storage, { prefixes: storedResourceDefs.map((d) => ({ prefix: keyPrefixOf(d), type: storageResourceLabel(d) })), fallback: 'unknown' });
    const compactor = startCompaction(storage, (err) => logger.error({ err }, 'compaction failed'));
    started.push(() => compactor.stop());
    caches = await startCaches(config, storage, logger, metrics.storage);
    started.push(() => Promise.all([...caches.values()].map((c) => c.close())));
    phase('watch caches filled');
    const snapshots = startSnapshots(config, logger, metrics.snapshots);
    started.push(() => snapshots?.stop());
    const policy = await readingFlagFile('--authorization-policy-file', config.authorizationPolicyFile ?? '', () =>
      loadPolicySource(config.authorizationPolicyFile, logger.child({ component: 'rbac' }), (onChange) => followFiles({ paths: [config.authorizationPolicyFile!], onChange })),
    );
    started.push(() => policy.close());
    // system:masters may do everything, then the configured modes in order (RBAC by default: the
    // bootstrap roles apply to everyone, and the policy file adds to them).
    const authorization = await buildAuthorization(config.authorization, { policy: policy.current, observer: metrics.authorization, logger: logger.child({ component: 'authorization' }) });
    started.push(() => authorization.close());
    const authorizer: Authorizer = authorization.authorizer;

    const adminToken = ensureAdminToken(config.dataDir);
    const authenticators = await buildAuthenticators(config, adminToken);
    // OIDC/JWT issuers and the token webhook come after the built-in token kinds, as in kube.
    const external = await buildExternalAuthenticators(config, logger, metrics.authn);
    started.push(() => external.close());
    authenticators.push(...external.authenticators);
    const clientCAPem = await clientCA(config.clientCAFile);
    // Client certificates are verified per request against the bundle in force (kube's x509 authenticator).
    const x509 = authenticators.find((a): a is X509Authenticator => a instanceof X509Authenticator);
    x509?.setClientCA(clientCAPem);
    for (const name of config.tls.insecure) logger.warn({ cipher: name }, `Use of insecure cipher '${name}' detected.`);
    const tls = await servingMaterial(config);
    phase('certificates ready');

    const auditPolicyFile = config.auditPolicyFile;
    const auditPolicy = config.auditLogPath && auditPolicyFile ? await readingFlagFile('--audit-policy-file', auditPolicyFile, () => loadAuditPolicy(auditPolicyFile)) : METADATA_FOR_ALL;
    const audit = config.auditLogPath ? new AuditLog(config.auditLogPath, auditPolicy, metrics.audit) : undefined;
    started.push(() => audit?.close());

    // Controllers start beside the server, never before it: with storage out of reach they keep
    // trying, and readiness (poststarthook/start-service-cidr-controllers) waits for them.
    let controllers: RunningControllers | undefined;
    let controllersReady = false;
    let released = false;
    const controllersStarted = runControllers(config, caches, logger, metrics.trustBundleExpiry)
      .then(async (c) => {
        // Released while they were starting (storage slow to answer): they stop at once.
        if (released) return void (await c.stop());
        controllers = c;
        phase('controllers synced');
        await c.initialized;
        phase('controllers initialized');
        controllersReady = true;
      })
      .catch((err: unknown) => logger.error({ err }, 'controllers failed to start'));
    started.push(() => {
      released = true;
      return controllers?.stop();
    });
    let servingFiles: ServingFilesWatch | undefined;
    // Admission reads the served kinds (policies, webhooks, params) through stores of its own
    // that admit nothing, as kube's plugins read informers over the API.
    const readOnly = allResources.map((d) => registryStores(d, cacheOf(caches, d), []));
    const admissionChain = startAdmission({
      sources: registrySources(readOnly.map((r) => r.main), logger.child({ component: 'admission' })),
      authorizer,
      observer: metrics.admission,
      builtIn: [new CtbAttestAdmission(authorizer), ...(options.admission ?? [])],
      policyStatus: readOnly.find((r) => r.main.definition.kind === 'ValidatingAdmissionPolicy')?.status as RestStorage<ValidatingAdmissionPolicy> | undefined,
    });
    started.push(() => admissionChain.stop());
    const admission = [admissionChain.plugin];
    const server = createApiServer({
      audit,
      resources: buildEndpoints(caches, admission, metrics.storage, options.wrapStorage ?? ((s) => s)),
      authenticator: observedAuthenticator(unionAuthenticator(authenticators), metrics.authentication),
      authorizer,
      tls: { certPem: tls.certPem, keyPem: tls.keyPem, clientCAPem, minVersion: config.tls.minVersion, ciphers: config.tls.ciphers },
      logger,
      version: KUBERNETES_VERSION,
      maxBodyBytes: config.maxRequestBodyBytes,
      health: buildHealthChecks({
        // etcd is asked when a check runs (rate-limited); SQLite reports its own (StoreHealth).
        store: etcdHealth ?? backend,
        caches: () => [...caches.values()].map((c) => c.health()),
        policyFileProblem: config.authorizationPolicyFile ? () => policy.health() : undefined,
        shuttingDown: options.shuttingDown ?? (() => false),
        extra: config.controllers.size ? [{ name: 'poststarthook/start-service-cidr-controllers', check: () => (controllersReady ? undefined : 'the ServiceCIDR controllers have not synced yet') }] : [],
        readinessOnly: [...external.healthChecks, ...servingFileChecks(config, () => servingFiles), ...(authorization.configProblem ? [{ name: 'authorization-config', check: () => authorization.configProblem!() || undefined }] : [])],
      }),
      onHealthFailure: (check, reason) => logger.info({ check, reason }, 'health check failed'),
      metrics: () => metrics.render(),
      observer: metrics.requests,
      limits: { maxRequestsInflight: config.maxRequestsInflight, maxMutatingRequestsInflight: config.maxMutatingRequestsInflight },
      requestTimeoutMs: config.requestTimeoutMs,
      maxEventLoopDelayMs: config.maxEventLoopDelayMs,
      idleTimeoutMs: options.idleTimeoutMs,
      readHeaderTimeoutMs: config.readHeaderTimeoutMs,
    });
    // Given serving files and the client CA are followed as they change (generated ones are ours).
    if (config.tlsCertFile || config.clientCAFile) {
      servingFiles = watchServingFiles({
        files: { certFile: config.tlsCertFile, keyFile: config.tlsPrivateKeyFile, clientCAFile: config.clientCAFile },
        initial: { certPem: tls.certPem, keyPem: tls.keyPem, clientCAPem },
        apply: (m) => {
          server.setServingMaterial(m);
          x509?.setClientCA(m.clientCAPem);
        },
        logger: logger.child({ component: 'serving-certificates' }),
      });
    }
    started.push(() => servingFiles?.close());
    phase('server built');
    return {
      server,
      adminToken,
      caCertPem: tls.caCertPem,
      controllersStarted,
      release: releaseStarted,
    };
  }
}
