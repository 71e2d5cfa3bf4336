// A SubjectAccessReview webhook for tests: a real HTTPS server on loopback (its own CA and
// certificate), answering each review with what the test's `decide` returns, and remembering
// every request (URL, headers, exact body). Writes the kubeconfig kube's webhook flags read.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureServingCertificates } from '../../src/config/certificates.js';

export interface SarRequest {
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json: any;
}

/** What the webhook answers: a status (wrapped in a SubjectAccessReview), raw text, or nothing for a while. */
export type SarAnswer = { status: Record<string, unknown>; code?: number } | { raw: string; code?: number } | { delayMs: number; then: SarAnswer };

export interface SarWebhook {
  url: string;
  caPem: string;
  kubeconfigPath: string;
  requests: SarRequest[];
  /** Replaced by tests as they go. */
  decide: (review: any) => SarAnswer;
  /** Connections open to the webhook now (a client's kept-alive ones included). */
  openConnections(): number;
  close(): Promise<void>;
}

export async function startSarWebhook(
  decide: (review: any) => SarAnswer,
  /** keepIdleConnections: never time out a client's idle kept-alive connection (Node's default closes it after 5 s). */
  opts: { token?: string; keepIdleConnections?: boolean } = {},
): Promise<SarWebhook> {
  const dir = mkdtempSync(join(tmpdir(), 'platform-sar-webhook-'));
  const tls = await ensureServingCertificates({ dir, hosts: ['127.0.0.1'] });
  const requests: SarRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const hook: SarWebhook = { url: '', caPem: tls.caCertPem, kubeconfigPath: join(dir, 'webhook.kubeconfig'), requests, decide, openConnections: () => sockets.size, close: async () => {} };
  const server = https.createServer({ cert: tls.certPem, key: tls.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: any;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      requests.push({ url: req.url ?? '', headers: req.headers, body, json });
      const answer = (a: SarAnswer): void => {
        if ('delayMs' in a) {
          const t = setTimeout(() => {
            timers.delete(t);
            if (!res.destroyed) answer(a.then);
          }, a.delayMs);
          timers.add(t);
          return;
        }
        const text = 'raw' in a ? a.raw : JSON.stringify({ apiVersion: json?.apiVersion, kind: 'SubjectAccessReview', status: a.status });
        res.writeHead(a.code ?? 200, { 'Content-Type': 'application/json' }).end(text);
      };
      answer(hook.decide(json));
    });
  });
  if (opts.keepIdleConnections) server.keepAliveTimeout = 0;
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hook.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/authorize`;
  writeFileSync(hook.kubeconfigPath, webhookKubeconfig(hook.url, tls.caCertPem, opts.token));
  hook.close = async () => {
    for (const t of timers) clearTimeout(t);
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  };
  return hook;
}

/** A webhook kubeconfig as kube's documentation shows it (certificate authority inline). */
export function webhookKubeconfig(server: string, caPem: string, token?: string): string {
  const user = token ? `\n    token: ${token}` : ' {}';
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: authz',
    '  cluster:',
    `    server: ${server}`,
    `    certificate-authority-data: ${Buffer.from(caPem).toString('base64')}`,
    'users:',
    '- name: apiserver',
    `  user:${user}`,
    'contexts:',
    '- name: webhook',
    '  context: {cluster: authz, user: apiserver}',
    'current-context: webhook',
    '',
  ].join('\n');
}
