// The server's configuration, parsed once from kube-apiserver-style flags.

import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { resolve } from 'node:path';
import { parseGoDuration } from '../apimachinery/go-duration.js';
import { CONTROLLER_NAMES } from '../controllers/start-controllers.js';
import { parseServiceClusterIPRange, resolveControllers } from './service-ip-range.js';
import { addAuthenticationFlags, authenticationFlagsConfig, type AuthenticationFlagsConfig } from './authn-flags.js';
import { AUTHORIZATION_MODES, resolveAuthorization, type AuthorizationConfig } from './authorization-options.js';
import { resolveTls, type TlsOptions } from './tls-options.js';
import { COMMANDS, unknownCommandMessage } from '../cli/dispatch.js';
import { SQLITE_FILE_NAME } from '../storage/sqlite/snapshot-format.js';
import { checkCronExpression } from '../storage/sqlite/snapshot-schedule.js';

/** k3s's default for --etcd-snapshot-schedule-cron: at minute 0 past every 12th hour. */
export const DEFAULT_SNAPSHOT_CRON = '0 */12 * * *';

/** Scheduled snapshots of the SQLite store (absent: none, e.g. on etcd or with an empty cron). */
export interface SnapshotScheduleConfig {
  cron: string;
  retention: number;
  dir: string;
}

export type StorageConfig =
  | { kind: 'sqlite'; path: string; durability: 'full' | 'normal' }
  | { kind: 'memory' }
  | {
      kind: 'etcd';
      /** Client URLs of the etcd members (--etcd-servers). */
      servers: string[];
      /** Where the registry's tree lives in etcd (--etcd-prefix). */
      prefix: string;
      caFile?: string;
      certFile?: string;
      keyFile?: string;
    };

export interface ServerConfig {
  /** OIDC/JWT issuers and the token webhook (--oidc-*, --authentication-config, --authentication-token-webhook-*). */
  authentication: AuthenticationFlagsConfig;
  dataDir: string;
  bindAddress: string;
  securePort: number;
  storage: StorageConfig;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  tokenAuthFile?: string;
  clientCAFile?: string;
  serviceAccountKeyFiles: string[];
  serviceAccountIssuers: string[];
  apiAudiences: string[];
  authorizationPolicyFile?: string;
  /** --authorization-mode and the webhook flags, or --authorization-config. */
  authorization: AuthorizationConfig;
  /** --tls-min-version and --tls-cipher-suites. */
  tls: TlsOptions;
  auditLogPath?: string;
  auditPolicyFile?: string;
  maxRequestBodyBytes: number;
  /** --snapshot-schedule-cron, --snapshot-retention, --snapshot-dir (SQLite only). */
  snapshots?: SnapshotScheduleConfig;
  /** 0 disables periodic compaction. */
  compactionIntervalMs: number;
  /** --event-ttl: events are deleted this long after their last write (0: never). */
  eventTTLMs: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** --shutdown-delay-duration: /readyz fails this long before a stopping server stops serving. */
  shutdownDelayMs: number;
  /** --shutdown-timeout: the longest in-flight requests may take to finish on a graceful stop. */
  shutdownTimeoutMs: number;
  /** Canonical CIDRs of --service-cluster-ip-range, primary first (the default `kubernetes` ServiceCIDR). */
  serviceClusterIPRanges: string[];
  /** In-process controllers to run (--controllers). */
  controllers: Set<string>;
  // The front door (request limits).
  /** 0 disables the limit. */
  maxRequestsInflight: number;
  /** 0 disables the limit. */
  maxMutatingRequestsInflight: number;
  /** 0 disables the timeout. */
  requestTimeoutMs: number;
  /** Event-loop delay (ms) past which heavy users' requests are shed with 429; 0 disables shedding. */
  maxEventLoopDelayMs: number;
  /** --read-header-timeout: a connection's TLS handshake, and each request's headers, within it (kube's fixed 32 s). */
  readHeaderTimeoutMs: number;
}

const port = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('must be a port number (0-65535)');
  return n;
};

/** A duration that must be above zero (a deadline of 0 would close every connection at once). */
function positiveDuration(text: string, flag: string): number {
  const ms = duration(text, flag);
  if (ms <= 0) throw new InvalidArgumentError(`${flag}: must be above zero, not ${JSON.stringify(text)}`);
  return ms;
}

/** A Go duration, as kube's flags take them (`5m`, `1h30m`, `250ms`, `0`); never negative. */
function duration(text: string, flag: string): number {
  let ms: number;
  try {
    ms = parseGoDuration(text);
  } catch (err) {
    throw new InvalidArgumentError(`${flag}: ${(err as Error).message}`);
  }
  if (ms < 0) throw new InvalidArgumentError(`${flag}: must not be negative, not ${JSON.stringify(text)}`);
  return ms;
}

/** A flag value's own error, as commander reports invalid arguments. */
function checked<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

const collect = (v: string, previous: string[]): string[] => [...previous, v];

const nonNegative = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a non-negative integer');
  return n;
};

const positive = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('must be a positive integer');
  return n;
};

/**
 * The server's command line: every flag with its description and default. parseFlags parses
 * with it, and scripts/gen-flags-doc.ts generates docs/flags.md from it. `version` is what
 * --version prints (src/version.ts's versionText()).
 */
export function serverCommand(version: string): Command {
  const program = new Command('platform-apiserver')
    .description('A Kubernetes-style API server for ClusterTrustBundle and ServiceCIDR')
    .version(version, '-V, --version', 'print the version, git commit and build date')
    .option('--data-dir <dir>', 'database, generated certificates, admin token and kubeconfig', './data')
    .option('--bind-address <address>', 'address to listen on', '127.0.0.1')
    .option('--secure-port <port>', 'HTTPS port (0 picks a free one)', port, 6443)
    .option('--storage-backend <backend>', 'sqlite, memory or etcd (etcd3)', 'sqlite')
    .option('--etcd-servers <urls>', 'etcd: comma-separated client URLs of the members (http:// or https://)')
    .option('--etcd-prefix <prefix>', 'etcd: the key prefix of every object', '/registry')
    .option('--etcd-cafile <file>', 'etcd: CA bundle (PEM) that etcd\'s serving certificates are verified against')
    .option('--etcd-certfile <file>', 'etcd: client certificate (PEM) for TLS to etcd')
    .option('--etcd-keyfile <file>', 'etcd: client key (PEM) for TLS to etcd')
    .option('--storage-durability <mode>', 'sqlite: full (sync each commit) or normal', 'full')
    .option('--tls-cert-file <file>', 'serving certificate (PEM); generated when absent')
    .option('--tls-private-key-file <file>', 'serving key (PEM)')
    .option('--token-auth-file <file>', 'static tokens, CSV: token,user,uid,"group1,group2"')
    .option('--client-ca-file <file>', 'CA bundle (PEM) that client certificates are verified against (user = CN, groups = O)')
    .option('--service-account-key-file <file>', 'PEM public keys that verify service-account tokens (repeatable)', collect, [])
    .option('--service-account-issuer <issuer>', 'accepted service-account token issuer (repeatable)', collect, [])
    .option('--api-audiences <list>', 'accepted token audiences, comma-separated (default: the issuers)')
    .option('--authorization-policy-file <file>', 'RBAC policy (multi-document YAML) added to the built-in roles, used with --authorization-mode=RBAC; re-read when it changes')
    .option('--authorization-mode <modes>', `ordered list of authorizers, comma-separated, of: ${AUTHORIZATION_MODES.filter((m) => m !== 'ABAC').join(',')} (default RBAC; system:masters is always allowed first)`)
    .option('--authorization-webhook-config-file <file>', 'kubeconfig of the SubjectAccessReview webhook, used with --authorization-mode=Webhook')
    .option('--authorization-webhook-version <version>', 'the authorization.k8s.io SubjectAccessReview version sent to and expected from the webhook: v1beta1 or v1', 'v1beta1')
    .option('--authorization-webhook-cache-authorized-ttl <duration>', "how long the webhook's 'authorized' answers are cached (0: not cached)", '5m')
    .option('--authorization-webhook-cache-unauthorized-ttl <duration>', "how long the webhook's other answers are cached (0: not cached)", '30s')
    .option('--authorization-config <file>', 'AuthorizationConfiguration (apiserver.config.k8s.io/v1) file: the authorizer chain, webhooks with timeouts, failure policies and CEL match conditions; re-read when it changes. Excludes --authorization-mode and --authorization-webhook-*')
    .option('--tls-min-version <version>', 'minimum TLS version served: VersionTLS10, VersionTLS11, VersionTLS12 or VersionTLS13 (default VersionTLS12)')
    .option('--tls-cipher-suites <list>', "comma-separated TLS 1.0-1.2 cipher suites, by Go's names (e.g. TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256); default: Go's secure suites. TLS 1.3 suites are not configurable")
    .option('--audit-log-path <file>', 'append audit.k8s.io/v1 Event JSON lines here')
    .option('--audit-policy-file <file>', 'audit.k8s.io/v1 Policy deciding what is audited (default with a log path: Metadata for everything)')
    .option('--etcd-compaction-interval <duration>', 'how often history older than one interval is compacted (0 disables)', '5m')
    .option('--event-ttl <duration>', 'how long an event is kept after its last write (0: kept until deleted)', '1h0m0s')
    .option('--max-request-body-bytes <n>', 'largest accepted request body', positive, 3 * 1024 * 1024)
    .option('--log-level <level>', 'debug, info, warn, error or silent', 'info')
    .option('--shutdown-delay-duration <duration>', 'on SIGTERM, how long /readyz fails while the server keeps serving', '0s')
    .option('--shutdown-timeout <duration>', 'on SIGTERM, the longest in-flight requests may take to finish', '60s')
    .option('--service-cluster-ip-range <cidrs>', 'one CIDR, or an IPv4 and an IPv6 CIDR comma-separated: the default ServiceCIDR "kubernetes"', '10.0.0.0/24')
    .option('--controllers <list>', `in-process controllers: '*' for all, 'name' to enable, '-name' to disable (${CONTROLLER_NAMES.join(', ')})`, '*')
    .option('--snapshot-schedule-cron <expression>', `sqlite: when to save a snapshot of the store into --snapshot-dir (cron: five fields, or six with seconds first; '' disables; etcd: use etcdctl snapshot save)`, DEFAULT_SNAPSHOT_CRON)
    .option('--snapshot-retention <n>', 'sqlite: scheduled snapshots to keep, the newest (older ones are removed after each save; 0 keeps all)', nonNegative, 5)
    .option('--snapshot-dir <dir>', 'sqlite: where scheduled snapshots go (default: DATA_DIR/snapshots)')
    .addHelpText('after', `\nCommands:\n${COMMANDS.map((c) => `  ${c.name.padEnd(14)} ${c.summary}; see ${c.name} --help`).join('\n')}`)
    // The front door (request limits).
    .option('--max-requests-inflight <n>', 'non-mutating requests served at once; past it 429 (0: no limit)', nonNegative, 400)
    .option('--max-mutating-requests-inflight <n>', 'mutating requests served at once; past it 429 (0: no limit)', nonNegative, 200)
    .option('--request-timeout <duration>', 'a non-watch request not answered within it gets 504 (0: none)', '1m')
    .option('--max-event-loop-delay <duration>', "while the event loop lags more than this, each user's requests past its allowance get 429 (0: never)", '100ms')
    .option('--read-header-timeout <duration>', "a new connection's TLS handshake, and then each request's headers, must be in within it (kube-apiserver's fixed ReadHeaderTimeout; tests shorten it)", '32s')
    .exitOverride()
    // Errors are printed once, by main (with the program's name); commander only throws them.
    .configureOutput({ writeErr: (s) => process.stderr.write(s), outputError: () => undefined });
  addAuthenticationFlags(program);
  return program;
}

export function parseFlags(argv: readonly string[], version: string): ServerConfig {
  const program = serverCommand(version);
  try {
    program.parse(argv as string[], { from: 'user' });
  } catch (err) {
    // The server takes no operands: a word among the flags is a mistyped command (or a value
    // without its flag), told as commander tells an unknown command, with the nearest one.
    if (err instanceof CommanderError && err.code === 'commander.excessArguments') throw new CommanderError(2, 'commander.unknownCommand', unknownCommandMessage(program.args[0] ?? ''));
    throw err;
  }
  const o = program.opts<Record<string, string | number | string[] | undefined>>();
  const dataDir = resolve(String(o.dataDir));
  const backend = String(o.storageBackend);
  if (backend !== 'sqlite' && backend !== 'memory' && backend !== 'etcd' && backend !== 'etcd3') {
    throw new InvalidArgumentError(`--storage-backend must be sqlite, memory or etcd, not ${JSON.stringify(backend)}`);
  }
  const durability = String(o.storageDurability);
  if (durability !== 'full' && durability !== 'normal') throw new InvalidArgumentError('--storage-durability must be full or normal');
  if (Boolean(o.tlsCertFile) !== Boolean(o.tlsPrivateKeyFile)) throw new InvalidArgumentError('--tls-cert-file and --tls-private-key-file go together');
  if ((o.serviceAccountKeyFile as string[]).length && !(o.serviceAccountIssuer as string[]).length) {
    throw new InvalidArgumentError('--service-account-key-file needs at least one --service-account-issuer');
  }
  const logLevel = String(o.logLevel);
  if (!['debug', 'info', 'warn', 'error', 'silent'].includes(logLevel)) throw new InvalidArgumentError('--log-level must be debug, info, warn, error or silent');
  const storage: StorageConfig = backend === 'memory' ? { kind: 'memory' } : backend.startsWith('etcd') ? etcdConfig(o) : { kind: 'sqlite', path: resolve(dataDir, SQLITE_FILE_NAME), durability };
  return {
    authentication: authenticationFlagsConfig(program),
    dataDir,
    snapshots: snapshotSchedule(program, o, storage, dataDir),
    bindAddress: String(o.bindAddress),
    securePort: Number(o.securePort),
    storage,
    tlsCertFile: o.tlsCertFile as string | undefined,
    tlsPrivateKeyFile: o.tlsPrivateKeyFile as string | undefined,
    tokenAuthFile: o.tokenAuthFile as string | undefined,
    clientCAFile: o.clientCaFile as string | undefined,
    serviceAccountKeyFiles: o.serviceAccountKeyFile as string[],
    serviceAccountIssuers: o.serviceAccountIssuer as string[],
    apiAudiences: o.apiAudiences ? String(o.apiAudiences).split(',').map((a) => a.trim()).filter(Boolean) : (o.serviceAccountIssuer as string[]),
    authorizationPolicyFile: o.authorizationPolicyFile as string | undefined,
    authorization: checked(() =>
      resolveAuthorization({
        mode: o.authorizationMode as string | undefined,
        modeSet: program.getOptionValueSource('authorizationMode') === 'cli',
        webhookConfigFile: o.authorizationWebhookConfigFile as string | undefined,
        webhookVersion: String(o.authorizationWebhookVersion),
        webhookVersionSet: program.getOptionValueSource('authorizationWebhookVersion') === 'cli',
        authorizedTtl: String(o.authorizationWebhookCacheAuthorizedTtl),
        authorizedTtlSet: program.getOptionValueSource('authorizationWebhookCacheAuthorizedTtl') === 'cli',
        unauthorizedTtl: String(o.authorizationWebhookCacheUnauthorizedTtl),
        unauthorizedTtlSet: program.getOptionValueSource('authorizationWebhookCacheUnauthorizedTtl') === 'cli',
        policyFile: o.authorizationPolicyFile as string | undefined,
        configFile: o.authorizationConfig as string | undefined,
      }),
    ),
    tls: checked(() => resolveTls(o.tlsMinVersion as string | undefined, o.tlsCipherSuites as string | undefined)),
    auditLogPath: o.auditLogPath as string | undefined,
    auditPolicyFile: o.auditPolicyFile as string | undefined,
    maxRequestBodyBytes: Number(o.maxRequestBodyBytes),
    compactionIntervalMs: duration(String(o.etcdCompactionInterval), '--etcd-compaction-interval'),
    eventTTLMs: duration(String(o.eventTtl), '--event-ttl'),
    logLevel: logLevel as ServerConfig['logLevel'],
    shutdownDelayMs: duration(String(o.shutdownDelayDuration), '--shutdown-delay-duration'),
    shutdownTimeoutMs: duration(String(o.shutdownTimeout), '--shutdown-timeout'),
    serviceClusterIPRanges: checked(() => parseServiceClusterIPRange(String(o.serviceClusterIpRange))),
    controllers: checked(() => resolveControllers(String(o.controllers), CONTROLLER_NAMES)),
    maxRequestsInflight: Number(o.maxRequestsInflight),
    maxMutatingRequestsInflight: Number(o.maxMutatingRequestsInflight),
    requestTimeoutMs: duration(String(o.requestTimeout), '--request-timeout'),
    maxEventLoopDelayMs: duration(String(o.maxEventLoopDelay), '--max-event-loop-delay'),
    readHeaderTimeoutMs: positiveDuration(String(o.readHeaderTimeout), '--read-header-timeout'),
  };
}

/**
 * The snapshot schedule: on by default for SQLite (as k3s schedules etcd snapshots by default).
 * On etcd and memory there is none; naming a schedule flag there is an error rather than silently
 * doing nothing (etcd's own tooling, `etcdctl snapshot save`, backs up etcd).
 */
function snapshotSchedule(program: Command, o: Record<string, string | number | string[] | undefined>, storage: StorageConfig, dataDir: string): SnapshotScheduleConfig | undefined {
  const named = ['snapshotScheduleCron', 'snapshotRetention', 'snapshotDir'].filter((k) => program.getOptionValueSource(k) === 'cli');
  if (storage.kind !== 'sqlite') {
    if (named.length) {
      const flag = `--${named[0]!.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
      throw new InvalidArgumentError(`${flag}: scheduled snapshots are for the sqlite backend; back up etcd with etcdctl snapshot save`);
    }
    return undefined;
  }
  const cron = String(o.snapshotScheduleCron).trim();
  if (cron === '') return undefined;
  checked(() => {
    try {
      checkCronExpression(cron);
    } catch (err) {
      throw new Error(`--snapshot-schedule-cron: ${JSON.stringify(cron)} is not a cron expression (${(err as Error).message})`);
    }
  });
  return { cron, retention: Number(o.snapshotRetention), dir: o.snapshotDir ? resolve(String(o.snapshotDir)) : resolve(dataDir, 'snapshots') };
}

/** The etcd storage flags, checked: servers are required, TLS files go together. */
function etcdConfig(o: Record<string, string | number | string[] | undefined>): StorageConfig {
  const servers = String(o.etcdServers ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (servers.length === 0) throw new InvalidArgumentError('--storage-backend etcd needs --etcd-servers');
  for (const s of servers) {
    if (!/^https?:\/\/[^/]+\/?$/.test(s)) throw new InvalidArgumentError(`--etcd-servers: ${JSON.stringify(s)} is not an http:// or https:// URL of a member`);
  }
  if (Boolean(o.etcdCertfile) !== Boolean(o.etcdKeyfile)) throw new InvalidArgumentError('--etcd-certfile and --etcd-keyfile go together');
  const prefix = String(o.etcdPrefix);
  if (!prefix.startsWith('/')) throw new InvalidArgumentError('--etcd-prefix must start with /');
  return {
    kind: 'etcd',
    servers: servers.map((s) => s.replace(/\/$/, '')),
    // kube accepts a trailing slash; keys are prefix + '/<group>/...'.
    prefix: prefix.replace(/\/+$/, ''),
    caFile: o.etcdCafile as string | undefined,
    certFile: o.etcdCertfile as string | undefined,
    keyFile: o.etcdKeyfile as string | undefined,
  };
}
