// One POST of a JSON body to a webhook over HTTPS (or HTTP), bounded in time and in the size of
// the answer, as client-go's REST client makes it for kube's webhooks: the request's timeout is
// also sent as the `timeout` query parameter, and failures read `Post "<url>": <cause>`.

import http from 'node:http';
import https from 'node:https';

/** Where and how to call a webhook (from its kubeconfig). */
export interface WebhookTarget {
  url: URL;
  /** Carries the CA, client certificate and key; keeps connections alive between calls. */
  agent: http.Agent;
  /** E.g. a bearer token's Authorization header; asked for each call (an in-cluster token is re-read as it rotates). */
  headers: () => Promise<Record<string, string>>;
}

export type WebhookFailure = 'timeout' | 'reset' | 'error';

export class WebhookCallError extends Error {
  override name = 'WebhookCallError';
  constructor(
    message: string,
    readonly failure: WebhookFailure,
    /** The HTTP status of an answer that was not a success. */
    readonly statusCode = 0,
  ) {
    super(message);
  }
}

/** An answer larger than this is refused: no webhook answer needs more, and memory is bounded. */
const MAX_ANSWER_BYTES = 3 * 1024 * 1024;

/** Go's time.Duration text for whole milliseconds: 30s, 1m0s, 500ms, 1m30s. */
export function goDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  if (h) return `${h}h${m}m${s}s`;
  if (m) return `${m}m${s}s`;
  return `${s}s`;
}

/**
 * Lets go of a target whose webhook is no longer asked (its configuration was replaced, or the
 * server stops): idle kept-alive connections close now, and the ones carrying a call close when
 * that call ends, so a call under way still finishes.
 */
export function releaseTarget(target: WebhookTarget): void {
  (target.agent as unknown as { keepAlive: boolean }).keepAlive = false;
  for (const sockets of Object.values(target.agent.freeSockets)) for (const s of sockets ?? []) s.destroy();
}

export async function postJson(target: WebhookTarget, body: string, timeoutMs: number): Promise<{ statusCode: number; body: string }> {
  const headers = await target.headers();
  const url = new URL(target.url);
  url.searchParams.set('timeout', goDuration(timeoutMs));
  const where = `Post ${JSON.stringify(url.href)}`;
  const request = url.protocol === 'http:' ? http.request : https.request;
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (message: string, failure: WebhookFailure, statusCode = 0): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new WebhookCallError(`${where}: ${message}`, failure, statusCode));
    };
    const req = request(url, {
      method: 'POST',
      agent: target.agent,
      headers: { ...headers, 'Content-Type': 'application/json', Accept: 'application/json, */*', 'Content-Length': Buffer.byteLength(body) },
    });
    const timer = setTimeout(() => {
      fail('context deadline exceeded (Client.Timeout exceeded while awaiting headers)', 'timeout');
      req.destroy();
    }, timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => fail(err.message, err.code === 'ECONNRESET' || err.code === 'EPIPE' ? 'reset' : 'error'));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_ANSWER_BYTES) {
          fail(`the answer is larger than ${MAX_ANSWER_BYTES} bytes`, 'error', res.statusCode);
          req.destroy();
          return;
        }
        chunks.push(c);
      });
      res.on('error', (err: NodeJS.ErrnoException) => fail(err.message, err.code === 'ECONNRESET' ? 'reset' : 'error'));
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ statusCode: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.end(body);
  });
}
