// Start-up failures told as one line that says what to change: the cause, and the flag (with its
// file) that leads to it. main prints the line and exits 1; usage mistakes (exit 2) are commander's.
// The listen address is tried first, before the data dir is touched: a taken port must not leave
// a new data dir with a store and certificates behind.

import { createServer } from 'node:net';
import { resolve, sep } from 'node:path';
import type { ServerConfig } from './flags.js';

/** A start-up failure whose message is the whole line to print. */
export class StartupError extends Error {
  override name = 'StartupError';
}

type ErrnoError = Error & { code?: string; path?: string; syscall?: string };

/** Node's "ENOENT: no such file or directory, open '/x'" reduced to "no such file or directory". */
function systemReason(err: ErrnoError): string {
  const m = /^[A-Z0-9_]+: (.*?), [a-z_]+(?: '[^']*')*$/.exec(err.message);
  if (err.code === 'EEXIST' && err.syscall === 'mkdir') return 'exists and is not a directory';
  return m ? m[1]! : err.message;
}

/** The one line for a listen on --bind-address:--secure-port that failed, naming the flag to change. */
export function listenFailure(err: unknown, bindAddress: string, port: number): StartupError | undefined {
  const line = listenFailureLine(err, bindAddress, port);
  return line === undefined ? undefined : new StartupError(line, { cause: err });
}

function listenFailureLine(err: unknown, bindAddress: string, port: number): string | undefined {
  const code = (err as ErrnoError | undefined)?.code;
  const address = `${bindAddress.includes(':') ? `[${bindAddress}]` : bindAddress}:${port}`;
  switch (code) {
    case 'EADDRINUSE':
      return `cannot listen on ${address}: the port is already in use (another server?); stop what holds it, or choose another port with --secure-port (0 picks a free one)`;
    case 'EACCES':
      return `cannot listen on ${address}: permission denied (ports below 1024 need privileges); choose another port with --secure-port`;
    case 'EADDRNOTAVAIL':
      return `cannot listen on ${address}: no such address on this machine; choose one of its addresses with --bind-address (0.0.0.0 or :: for all)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot listen on ${address}: --bind-address ${JSON.stringify(bindAddress)} is not an address of this machine (give an IP address)`;
    default:
      return undefined;
  }
}

/**
 * Fails with the listen failure's line when --bind-address:--secure-port cannot be listened on
 * now (taken, privileged, not this machine's). The server listens for real only once built; a
 * port taken in between fails that listen, told the same way.
 */
export async function checkListenAddress(bindAddress: string, port: number): Promise<void> {
  const probe = createServer();
  try {
    await new Promise<void>((done, fail) => {
      probe.once('error', fail);
      probe.listen({ host: bindAddress, port }, done);
    });
  } catch (err) {
    throw listenFailure(err, bindAddress, port) ?? err;
  } finally {
    await new Promise<void>((done) => (probe.listening ? probe.close(() => done()) : done()));
  }
}

/** Runs a step that reads `flag`'s file; a failure becomes one line naming both (when it names neither already). */
export async function readingFlagFile<T>(flag: string, file: string, step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    throw flagFileFailure(flag, file, err);
  }
}

function flagFileFailure(flag: string, file: string, err: unknown): StartupError {
  const e = err as ErrnoError;
  const reason = e?.code && e.path ? systemReason(e) : oneLine(err);
  if (reason.includes(flag)) return new StartupError(reason, { cause: err });
  // A loader's message that starts with the file ("t.csv line 1: …") reads on after the flag.
  return new StartupError(reason.startsWith(file) ? `${flag} ${reason}` : `${flag} ${file}: ${reason}`, { cause: err });
}

/** Every flag that names a file or directory the server reads or writes at start, with its value. */
function fileFlags(config: ServerConfig): [flag: string, path: string][] {
  const a = config.authentication;
  const z = config.authorization;
  const s = config.storage;
  const pairs: [string, string | undefined][] = [
    ['--tls-cert-file', config.tlsCertFile],
    ['--tls-private-key-file', config.tlsPrivateKeyFile],
    ['--token-auth-file', config.tokenAuthFile],
    ['--client-ca-file', config.clientCAFile],
    ...config.serviceAccountKeyFiles.map((f): [string, string] => ['--service-account-key-file', f]),
    ['--authorization-policy-file', config.authorizationPolicyFile],
    ['--authorization-config', z.kind === 'file' ? z.path : undefined],
    ['--authorization-webhook-config-file', z.kind === 'modes' ? z.webhook?.configFile : undefined],
    ['--authentication-config', a.authenticationConfigFile],
    ['--authentication-token-webhook-config-file', a.tokenWebhook?.configFile],
    ['--audit-log-path', config.auditLogPath],
    ['--audit-policy-file', config.auditPolicyFile],
    ['--etcd-cafile', s.kind === 'etcd' ? s.caFile : undefined],
    ['--etcd-certfile', s.kind === 'etcd' ? s.certFile : undefined],
    ['--etcd-keyfile', s.kind === 'etcd' ? s.keyFile : undefined],
    ['--snapshot-dir', config.snapshots?.dir],
  ];
  return pairs.filter((p): p is [string, string] => p[1] !== undefined);
}

/**
 * The line main prints for a start-up failure: a StartupError's own; a system error on a path a
 * flag names (or one inside --data-dir) with that flag and path; anything else on one line.
 */
export function startupFailureLine(err: unknown, config?: ServerConfig): string {
  if (err instanceof StartupError) return err.message;
  const e = err as ErrnoError;
  if (config && e?.code && e.path) {
    const path = resolve(e.path);
    const named = fileFlags(config).find(([, p]) => resolve(p) === path);
    if (named) return flagFileFailure(named[0], named[1], err).message;
    if (path === config.dataDir || path.startsWith(config.dataDir + sep)) return `--data-dir ${config.dataDir}: ${path === config.dataDir ? '' : `${path}: `}${systemReason(e)}`;
    return `${e.path}: ${systemReason(e)}`;
  }
  return oneLine(err);
}

function oneLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).trim().replace(/\s*\n\s*/g, '; ');
}
