#!/usr/bin/env node
// The binary: parse the flags (or dispatch a subcommand), check the listen address, build the
// server (src/config/build-server.ts), listen, announce readiness (the kubeconfig exists only once
// connections are accepted) and stop gracefully on a signal. A start-up failure is one line naming
// what to change (src/config/start-up-errors.ts): exit 1, or 2 for a usage mistake.

import { CommanderError } from 'commander';
import { mkdirSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { join } from 'node:path';
import { pino } from 'pino';
import { buildServer } from './config/build-server.js';
import { parseFlags, type ServerConfig } from './config/flags.js';
import { writeAdminKubeconfig } from './config/kubeconfig.js';
import { checkListenAddress, listenFailure, startupFailureLine } from './config/start-up-errors.js';
import { usageMessage } from './cli/usage-message.js';
import { installShutdown, type Shutdown } from './lifecycle/shutdown.js';
import { versionText } from './version.js';

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

/** `platform-apiserver trust-anchors|snapshot|migrate|version …`: a client-side command (src/cli/dispatch.ts), not the server. */
async function runSubcommand(argv: readonly string[]): Promise<boolean> {
  const { runCommand } = await import('./cli/dispatch.js');
  const code = await runCommand(argv);
  if (code === undefined) return false;
  // Exit explicitly: an HTTP client's keep-alive sockets would otherwise hold the process.
  process.exit(code);
}

/** How clients reach the bound address (a wildcard bind is reached on loopback). */
function urlHost(bindAddress: string): string {
  if (bindAddress === '0.0.0.0' || bindAddress === '') return '127.0.0.1';
  if (bindAddress === '::') return '[::1]';
  return isIPv6(bindAddress) ? `[${bindAddress}]` : bindAddress;
}

/** The configuration the failing start-up was given, for naming its flags (unset while parsing). */
let config: ServerConfig | undefined;

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (await runSubcommand(argv)) return;
  try {
    // `platform-apiserver help` is --help (`help <command>` is the command's, in dispatch).
    config = parseFlags(argv.length === 1 && argv[0] === 'help' ? ['--help'] : argv, versionText());
  } catch (err) {
    if (err instanceof CommanderError && (err.code === 'commander.helpDisplayed' || err.code === 'commander.version')) process.exit(0);
    process.stderr.write(`platform-apiserver: ${usageMessage(err)}\n`);
    process.exit(2);
  }
  // Before anything is written: a taken port must not leave a new data dir behind.
  await checkListenAddress(config.bindAddress, config.securePort);
  phase('listen address checked');
  const logger = pino({ level: config.logLevel, base: { component: 'platform-apiserver' } }, pino.destination(2));
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });

  let shutdown: Shutdown | undefined;
  const built = await buildServer(config, { logger, onPhase: phase, shuttingDown: () => shutdown?.shuttingDown ?? false });
  // Installed before listening: a signal during start-up stops the server too.
  shutdown = installShutdown({
    logger,
    delayMs: config.shutdownDelayMs,
    timeoutMs: config.shutdownTimeoutMs,
    // Under `npm start`, a parent that goes away without forwarding the signal stops us too.
    parentCheckMs: process.env.npm_lifecycle_event === 'start' ? 1000 : 0,
    stopServing: () => built.server.close(),
    release: () => built.release(),
  });
  const { port } = await built.server.listen(config.bindAddress, config.securePort).catch((err: unknown) => {
    throw listenFailure(err, config!.bindAddress, config!.securePort) ?? err;
  });
  phase('listening');
  // On a reachable store the default ServiceCIDR exists before the ready line (a client's first
  // `kubectl get` sees it); on an unreachable one the server announces itself not ready instead.
  await Promise.race([built.controllersStarted, new Promise((resolve) => setTimeout(resolve, CONTROLLERS_START_WAIT_MS).unref())]);
  const url = `https://${urlHost(config.bindAddress)}:${port}`;
  const kubeconfigPath = join(config.dataDir, 'admin.kubeconfig');
  writeAdminKubeconfig({ path: kubeconfigPath, server: url, caCertPem: built.caCertPem, token: built.adminToken });
  process.stdout.write(`platform-apiserver ready at ${url} (kubeconfig: ${kubeconfigPath})\n`);
  phase('ready');
  logger.debug({ phases }, 'start-up phases (ms since the process started)');
}

main().catch((err: unknown) => {
  process.stderr.write(`platform-apiserver: ${startupFailureLine(err, config)}\n`);
  process.exit(1);
});
