// Runs the real kubectl against a test server: its own discovery cache per server, a bounded
// time per command, and stdout/stderr/exit code returned for exact assertions.

import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface KubectlStream {
  /** Resolves with all stdout so far once `pattern` appears in it (bounded by `ms`). */
  waitFor(pattern: RegExp, ms?: number): Promise<string>;
  /** Stops the process and resolves with its exit code and output. */
  stop(): Promise<KubectlResult>;
  /** Resolves when the process ends by itself. */
  exited: Promise<KubectlResult>;
}

export interface Kubectl {
  (args: string[], opts?: { stdin?: string; env?: Record<string, string> }): Promise<KubectlResult>;
  /** Writes `content` to a temp manifest file and returns its path. */
  manifest(name: string, content: string | object): string;
  /** Starts a long-running command (e.g. `get -w`) and reads its output as it comes. */
  stream(args: string[]): KubectlStream;
}

export function kubectlFor(binary: string, kubeconfigPath: string): Kubectl {
  const scratch = mkdtempSync(join(tmpdir(), 'platform-kubectl-'));
  const cacheDir = join(scratch, 'cache');
  const run = ((args: string[], opts: { stdin?: string; env?: Record<string, string> } = {}) =>
    new Promise<KubectlResult>((resolve) => {
      const child = execFile(
        binary,
        ['--kubeconfig', kubeconfigPath, ...args],
        { timeout: 60_000, env: { ...process.env, KUBECACHEDIR: cacheDir, HOME: scratch, ...opts.env }, maxBuffer: 16 * 1024 * 1024 },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
          resolve({ code, stdout: String(stdout), stderr: String(stderr) });
        },
      );
      if (opts.stdin !== undefined) child.stdin?.end(opts.stdin);
    })) as Kubectl;
  run.stream = (args) => {
    const child = spawn(binary, ['--kubeconfig', kubeconfigPath, ...args], { env: { ...process.env, KUBECACHEDIR: cacheDir, HOME: scratch } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<KubectlResult>((resolve) => child.on('exit', (code) => resolve({ code: code ?? 1, stdout, stderr })));
    const killer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    void exited.then(() => clearTimeout(killer));
    return {
      exited,
      async waitFor(pattern, ms = 30_000) {
        const deadline = Date.now() + ms;
        while (!pattern.test(stdout)) {
          if (Date.now() > deadline || child.exitCode !== null) throw new Error(`kubectl output never matched ${pattern}: ${stdout}${stderr}`);
          await new Promise((r) => setTimeout(r, 50));
        }
        return stdout;
      },
      async stop() {
        child.kill('SIGTERM');
        return exited;
      },
    };
  };
  let counter = 0;
  run.manifest = (name, content) => {
    const path = join(scratch, `${counter++}-${name}`);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
    return path;
  };
  return run;
}

/** Splits kubectl's table output into rows of whitespace-separated cells (header first). */
export function tableRows(stdout: string): string[][] {
  return stdout
    .trim()
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => l.trim().split(/\s{2,}/));
}

/** Writes a kubeconfig at `path` that reaches `server` (its URL and CA) with a bearer token; returns the path. */
export function writeTokenKubeconfig(path: string, server: { url: string; caCertPem: string }, token: string): string {
  writeFileSync(
    path,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server: server.url, 'certificate-authority-data': Buffer.from(server.caCertPem).toString('base64') } }],
      users: [{ name: 'u', user: { token } }],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'c',
    }),
  );
  return path;
}
