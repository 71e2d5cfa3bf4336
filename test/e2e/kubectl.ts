// Runs the real kubectl against a test server: its own discovery cache per server, a bounded
// time per command, and stdout/stderr/exit code returned for exact assertions.

import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface Kubectl {
  (args: string[], opts?: { stdin?: string; env?: Record<string, string> }): Promise<KubectlResult>;
  /** Writes `content` to a temp manifest file and returns its path. */
  manifest(name: string, content: string | object): string;
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
