// Request bodies past --max-request-body-bytes (3 MiB by default), from every kind of client:
// each must read the 413 RequestEntityTooLarge Status, however it writes its body (Content-Length
// or chunked, JSON or YAML, HTTP/1.1 or HTTP/2) and whether or not it reads while it writes. Go's
// server reads to the limit, answers 413, and closes with a lingering close (it stops writing,
// then waits before closing) so that the client has read the answer before the connection goes;
// before the fix an HTTP/1.1 client sometimes got EPIPE or a reset instead: the connection was
// closed while it was still writing, and the reset discarded the answer it had not yet read.

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify as toYaml } from 'yaml';
import type { TestServer } from '../../e2e/harness.js';
import { measureAttack, type AttackFigures } from '../support/measure.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';
export const OVER_LIMIT_BYTES = 4 * 1024 * 1024;

/** A ServiceCIDR carrying `bytes` of annotation: a body past the limit, valid in every other way. */
export const bigServiceCIDR = (name: string, bytes = OVER_LIMIT_BYTES) => ({
  apiVersion: 'networking.platform.io/v1',
  kind: 'ServiceCIDR',
  metadata: { name, annotations: { 'attack.platform.io/filler': 'x'.repeat(bytes) } },
  spec: { cidrs: ['10.99.0.0/24'] },
});

/** What one attempt got: '413' when it read the RequestEntityTooLarge Status, else what happened. */
export type Outcome = string;

const isTooLarge = (status: number | undefined, body: string): boolean => status === 413 && /"reason":"RequestEntityTooLarge"/.test(body);

/** Node's https client (HTTP/1.1), a body with Content-Length or chunked, JSON or YAML. */
export function nodeHttps(server: TestServer, o: { chunked?: boolean; yaml?: boolean; name: string }): Promise<Outcome> {
  const obj = bigServiceCIDR(o.name);
  const body = Buffer.from(o.yaml ? toYaml(obj) : JSON.stringify(obj));
  return new Promise((resolve) => {
    let settled = false;
    const done = (outcome: Outcome): void => {
      if (!settled) (settled = true), resolve(outcome);
    };
    const headers: Record<string, string> = { authorization: `Bearer ${server.token}`, 'content-type': o.yaml ? 'application/yaml' : 'application/json' };
    if (!o.chunked) headers['content-length'] = String(body.length);
    const req = https.request({ host: '127.0.0.1', port: server.port, method: 'POST', path: SC, ca: server.caCertPem, agent: false, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => done(isTooLarge(res.statusCode, text) ? '413' : `${res.statusCode} ${text.slice(0, 200)}`));
      res.on('error', (e) => done(`response error ${(e as NodeJS.ErrnoException).code ?? e.message}`));
    });
    // An error after the answer was read (the server closed while the rest was being written) is no failure.
    req.on('error', (e) => setTimeout(() => done(`${(e as NodeJS.ErrnoException).code ?? e.message} before the answer`), 100));
    req.setTimeout(30_000, () => req.destroy(new Error('no answer within 30 s')));
    if (o.chunked) for (let at = 0; at < body.length; at += 256 * 1024) req.write(body.subarray(at, at + 256 * 1024));
    req.end(o.chunked ? undefined : body);
  });
}

/** Node's HTTP/2 client. */
export function nodeHttp2(server: TestServer, name: string): Promise<Outcome> {
  const body = JSON.stringify(bigServiceCIDR(name));
  const session = http2.connect(server.url, { ca: server.caCertPem });
  session.on('error', () => undefined);
  return new Promise<Outcome>((resolve) => {
    const stream = session.request({ ':method': 'POST', ':path': SC, authorization: `Bearer ${server.token}`, 'content-type': 'application/json' });
    let status: number | undefined;
    let text = '';
    stream.on('response', (h) => (status = Number(h[':status'])));
    stream.on('data', (c: Buffer) => (text += c.toString()));
    stream.on('end', () => resolve(isTooLarge(status, text) ? '413' : `${status} ${text.slice(0, 200)}`));
    stream.on('error', (e) => resolve(status === 413 && isTooLarge(status, text) ? '413' : `${(e as NodeJS.ErrnoException).code ?? e.message}`));
    stream.end(body);
  }).finally(() => session.destroy());
}

/** @kubernetes/client-node (either major: its module is passed in). */
export async function clientNode(server: TestServer, k8s: typeof import('@kubernetes/client-node'), name: string): Promise<Outcome> {
  const kc = new k8s.KubeConfig();
  kc.loadFromFile(server.kubeconfigPath);
  const objects = k8s.KubernetesObjectApi.makeApiClient(kc);
  try {
    await objects.create(bigServiceCIDR(name));
    return 'created';
  } catch (err) {
    const e = err as { code?: number; body?: unknown; message?: string };
    const body = typeof e.body === 'string' ? e.body : JSON.stringify(e.body ?? '');
    return isTooLarge(e.code, body) ? '413' : `${e.code ?? ''} ${String(e.message ?? err).slice(0, 200)}`;
  }
}

/** kubectl create -f with a 4 MiB manifest (HTTP/2, as kubectl speaks it). */
export function kubectlCreate(server: TestServer, kubectl: string, name: string): Promise<Outcome> {
  const dir = mkdtempSync(join(tmpdir(), 'platform-attack-kubectl-'));
  const file = join(dir, 'big.yaml');
  writeFileSync(file, toYaml(bigServiceCIDR(name)));
  return new Promise<Outcome>((resolve) => {
    execFile(kubectl, ['--kubeconfig', server.kubeconfigPath, 'create', '-f', file], { timeout: 60_000, env: { ...process.env, KUBECACHEDIR: join(dir, 'cache'), HOME: dir }, maxBuffer: 16 * 1024 * 1024 }, (error, _stdout, stderr) => {
      const text = String(stderr);
      resolve(error && /RequestEntityTooLarge/.test(text) && /limit is 3145728/.test(text) ? '413' : `exit ${error ? error.code : 0}: ${text.slice(0, 300)}`);
    });
  }).finally(() => rmSync(dir, { recursive: true, force: true }));
}

const PYTHON_CREATE = `
import json, os, sys
from kubernetes import client, config
from kubernetes.client.rest import ApiException
config.load_kube_config(config_file=os.environ['KUBECONFIG'])
body = json.loads(sys.stdin.read())
try:
    client.CustomObjectsApi().create_cluster_custom_object('networking.platform.io', 'v1', 'servicecidrs', body)
    print('created')
except ApiException as e:
    print('413' if e.status == 413 and 'RequestEntityTooLarge' in (e.body or '') else '%s %s' % (e.status, (e.body or '')[:200]))
except Exception as e:
    print('%s: %s' % (type(e).__name__, str(e)[:200]))
`;

/** The official Python client (urllib3, HTTP/1.1: it writes the whole body before it reads). */
export function pythonCreate(server: TestServer, python: string, name: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = execFile(python, ['-c', PYTHON_CREATE], { timeout: 60_000, env: { ...process.env, KUBECONFIG: server.kubeconfigPath }, maxBuffer: 1024 * 1024 }, (error, stdout, stderr) => {
      resolve(String(stdout).trim() || `exit ${error?.code}: ${String(stderr).slice(-300)}`);
    });
    child.stdin!.end(JSON.stringify(bigServiceCIDR(name)));
  });
}

/** 8 Node HTTP/1.1 clients posting 4 MiB bodies over and over, while another client is served. */
export async function oversizedFlood(server: TestServer, o: { durationMs: number; clients?: number }): Promise<AttackFigures & { outcomes: Map<Outcome, number> }> {
  const outcomes = new Map<Outcome, number>();
  let n = 0;
  const figures = await measureAttack({
    name: `${o.clients ?? 8} HTTP/1.1 clients posting 4 MiB bodies (limit 3 MiB) over and over`,
    server,
    durationMs: o.durationMs,
    start: () => {
      let running = true;
      const workers = Array.from({ length: o.clients ?? 8 }, async (_, i) => {
        while (running) {
          const outcome = await nodeHttps(server, { name: `big-${n++}`, chunked: i % 2 === 1 });
          outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
        }
      });
      return {
        stop: async () => {
          running = false;
          await Promise.all(workers);
        },
      };
    },
  });
  return { ...figures, outcomes };
}
