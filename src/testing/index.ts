// `import { startTestServer } from 'platform-apiserver/testing'`: the real server, built by the
// binary's own builder (src/config/build-server.ts) inside the caller's process, on a free
// loopback port over HTTPS, with in-memory storage and a temp dir for its certificates, for
// tests that need an API server (what envtest gives Go users). docs/testing-with.md shows it with
// @kubernetes/client-node. The types here are the package's published ones (dist/src/testing/index.d.ts):
// they name nothing from the rest of src/.

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { stringify } from 'yaml';
import { buildServer } from '../config/build-server.js';
import { parseFlags } from '../config/flags.js';
import { kubeconfigYaml } from '../config/kubeconfig.js';

/** A user besides the admin, authenticated by a bearer token (as `--token-auth-file` lists them). */
export interface TestUser {
  name: string;
  groups?: readonly string[];
  /** Default: the name. */
  uid?: string;
  /** Default: a random token. */
  token?: string;
}

export interface TestServerOptions {
  /** Users besides the admin; `kubeconfigFor(name)` gives each one's kubeconfig. */
  users?: readonly TestUser[];
  /**
   * RBAC policy added to the built-in roles (as `--authorization-policy-file`): multi-document
   * YAML text, or the objects (rbac.authorization.k8s.io/v1 ClusterRole, ClusterRoleBinding,
   * Role, RoleBinding). Without one a user may do what the built-in roles allow (read
   * ClusterTrustBundles); the admin may do everything.
   */
  policy?: string | readonly object[];
  /**
   * The in-process controllers (the default `kubernetes` ServiceCIDR, the ServiceCIDR finalizer
   * and Ready condition). On by default, as in the server; off, a test sees only what it writes.
   */
  controllers?: boolean;
  /** More server flags, as `platform-apiserver` takes them (docs/flags.md). */
  flags?: readonly string[];
  /** The server's log, to stderr. Default: silent. */
  logLevel?: 'debug' | 'info' | 'warn' | 'error' | 'silent';
}

export interface TestServer {
  /** `https://127.0.0.1:<port>`. */
  url: string;
  /** The admin's kubeconfig (system:masters) as YAML text, for client-node's `KubeConfig.loadFromString`. */
  kubeconfig: string;
  /** The kubeconfig of one of `users`, as YAML text. */
  kubeconfigFor(user: string): string;
  /** The admin's bearer token. */
  token: string;
  /** The CA (PEM) the serving certificate is verified against. */
  caCertPem: string;
  /** Stops the server and removes its temp dir; resolves once everything is released. Calling it again does nothing. */
  stop(): Promise<void>;
}

/** How long start waits for the controllers' first sync (the default ServiceCIDR), as the binary does before its ready line. */
const CONTROLLERS_START_WAIT_MS = 10_000;

/** A value written into the CSV token file: one field, so no quote, comma (but in groups' joined list) or line break. */
function csvField(value: string, what: string): string {
  if (value === '' || /[",\r\n]/.test(value)) throw new TypeError(`startTestServer: ${what} ${JSON.stringify(value)} must be non-empty, without quotes, commas or line breaks`);
  return value;
}

function tokenFile(users: readonly TestUser[]): { csv: string; tokens: Map<string, string> } {
  const tokens = new Map<string, string>();
  const lines = users.map((u) => {
    const name = csvField(u.name, 'user name');
    if (tokens.has(name)) throw new TypeError(`startTestServer: user ${JSON.stringify(name)} is listed twice`);
    const token = csvField(u.token ?? randomBytes(24).toString('base64url'), 'token');
    tokens.set(name, token);
    const groups = (u.groups ?? []).map((g) => csvField(g, 'group'));
    return `${token},${name},${csvField(u.uid ?? name, 'uid')}${groups.length ? `,"${groups.join(',')}"` : ''}`;
  });
  return { csv: `${lines.join('\n')}\n`, tokens };
}

function policyText(policy: string | readonly object[]): string {
  return typeof policy === 'string' ? policy : policy.map((doc) => stringify(doc)).join('---\n');
}

/** Starts a server; resolves once it accepts connections (and, with controllers, the default ServiceCIDR exists). */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'platform-apiserver-test-'));
  try {
    const users = tokenFile(options.users ?? []);
    const flags = [
      ...['--data-dir', dir, '--bind-address', '127.0.0.1', '--secure-port', '0', '--storage-backend', 'memory', '--log-level', options.logLevel ?? 'silent'],
      // A test process is busy with the test itself: no load shedding on its event loop's lag.
      ...['--max-event-loop-delay', '0'],
      ...(options.controllers === false ? ['--controllers', ''] : []),
    ];
    if (users.tokens.size) {
      writeFileSync(join(dir, 'tokens.csv'), users.csv, { mode: 0o600 });
      flags.push('--token-auth-file', join(dir, 'tokens.csv'));
    }
    if (options.policy !== undefined) {
      writeFileSync(join(dir, 'policy.yaml'), policyText(options.policy));
      flags.push('--authorization-policy-file', join(dir, 'policy.yaml'));
    }
    const config = parseFlags([...flags, ...(options.flags ?? [])], 'platform-apiserver/testing');
    // Silent makes no destination: nothing of the log is left open after stop().
    const logger = config.logLevel === 'silent' ? pino({ level: 'silent' }) : pino({ level: config.logLevel, base: { component: 'platform-apiserver' } }, pino.destination({ dest: 2, sync: true }));
    const built = await buildServer(config, { logger });
    let port: number;
    try {
      ({ port } = await built.server.listen('127.0.0.1', 0));
      if (config.controllers.size) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([built.controllersStarted, new Promise((resolve) => (timer = setTimeout(resolve, CONTROLLERS_START_WAIT_MS)))]);
        clearTimeout(timer);
      }
    } catch (err) {
      await built.server.close();
      await built.release();
      throw err;
    }
    const url = `https://127.0.0.1:${port}`;
    const kubeconfigOf = (user: string, token: string): string => kubeconfigYaml({ server: url, caCertPem: built.caCertPem, token, user });
    let stopping: Promise<void> | undefined;
    return {
      url,
      kubeconfig: kubeconfigOf('admin', built.adminToken),
      kubeconfigFor(user) {
        const token = users.tokens.get(user);
        if (token === undefined) throw new TypeError(`startTestServer: no user ${JSON.stringify(user)} (the users are ${[...users.tokens.keys()].join(', ') || 'none'})`);
        return kubeconfigOf(user, token);
      },
      token: built.adminToken,
      caCertPem: built.caCertPem,
      stop() {
        stopping ??= (async () => {
          await built.server.close();
          await built.release();
          rmSync(dir, { recursive: true, force: true });
        })();
        return stopping;
      },
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
