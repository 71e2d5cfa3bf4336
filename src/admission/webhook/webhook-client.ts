// The HTTPS client admission webhooks are called with (kube's webhook ClientManager and
// client-go's rest client): POST of the AdmissionReview to the configured URL with
// `?timeout=<n>s`, verified against the configuration's caBundle (the system roots without one),
// keep-alive connections shared per caBundle. A call that fails is reported as Go reports it
// (`Post "<url>": dial tcp …: connect: connection refused`, `context deadline exceeded`,
// `tls: failed to verify certificate: …`), so the denial reads as kube's.
//
// clientConfig.service names a Service; this server has no Services (no core API), so such a call
// fails as kube's fails when the Service does not exist: `service "<name>" not found`.

import https from 'node:https';
import { isIP } from 'node:net';
import { posix } from 'node:path';
import type { WebhookClientConfig } from '../../resources/admissionregistration/types.js';

/** A bound on a webhook's answer (kube reads it whole; here memory stays bounded). */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
/** At most this many caBundles keep their connections pooled (kube's client cache size). */
const MAX_AGENTS = 200;

export interface WebhookHttpResponse {
  readonly statusCode: number;
  readonly contentType: string;
  readonly body: Buffer;
}

/** A call that did not get an answer: Go's error text; canceled when the request itself went away. */
export class CallFailure extends Error {
  constructor(
    message: string,
    readonly canceled = false,
  ) {
    super(message);
  }
}

/** The URL kube's rest client posts to: path cleaned as path.Join does, the timeout in the query. */
export function webhookUrl(cfg: WebhookClientConfig, timeoutSeconds: number): { url: string; service?: string } {
  const query = `?timeout=${timeoutSeconds}s`;
  const clean = (p: string): string => posix.join('/', p || '/').replace(/(.)\/$/, '$1');
  if (cfg.service) {
    const s = cfg.service;
    return { url: `https://${s.name ?? ''}.${s.namespace ?? ''}.svc:${s.port ?? 443}${clean(s.path ?? '')}${query}`, service: s.name ?? '' };
  }
  const raw = cfg.url ?? '';
  const authority = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/([^/?#]*)/.exec(raw)?.[1] ?? '';
  let path = '/';
  try {
    path = new URL(raw).pathname;
  } catch {
    // Validation admits only parseable URLs; an unparseable one posts to the root.
  }
  return { url: `https://${authority}${clean(path)}${query}` };
}

const UNKNOWN_AUTHORITY = new Set(['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'CERT_SIGNATURE_FAILURE']);

interface NodeError extends Error {
  code?: string;
  cert?: { subjectaltname?: string };
}

/** Go's wording of a transport failure (the part after `Post "<url>": `). */
function goTransportError(err: NodeError, host: string, hostPort: string): string {
  const code = err.code ?? '';
  if (code === 'ECONNREFUSED') return `dial tcp ${hostPort}: connect: connection refused`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `dial tcp: lookup ${host}: no such host`;
  if (code === 'ECONNRESET' || err.message === 'socket hang up') return 'EOF';
  if (UNKNOWN_AUTHORITY.has(code)) return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    const names = (err.cert?.subjectaltname ?? '').split(', ');
    const wanted = isIP(host) ? names.filter((n) => n.startsWith('IP Address:')).map((n) => n.slice(11)) : names.filter((n) => n.startsWith('DNS:')).map((n) => n.slice(4));
    return `tls: failed to verify certificate: x509: certificate is valid for ${wanted.join(', ')}, not ${host}`;
  }
  return err.message;
}

export class WebhookClient {
  private readonly agents = new Map<string, https.Agent>();

  private agentFor(caBundle: string): https.Agent {
    let agent = this.agents.get(caBundle);
    if (agent) {
      // Most recently used last, so the oldest is the one dropped.
      this.agents.delete(caBundle);
      this.agents.set(caBundle, agent);
      return agent;
    }
    const ca = caBundle ? Buffer.from(caBundle, 'base64').toString('utf8') : undefined;
    agent = new https.Agent({ keepAlive: true, ca, maxSockets: 64 });
    this.agents.set(caBundle, agent);
    if (this.agents.size > MAX_AGENTS) {
      const [oldest, a] = this.agents.entries().next().value as [string, https.Agent];
      this.agents.delete(oldest);
      a.destroy();
    }
    return agent;
  }

  /** POSTs `body`; resolves with any HTTP answer, rejects with a CallFailure. */
  async post(cfg: WebhookClientConfig, body: Buffer, timeoutSeconds: number, signal?: AbortSignal): Promise<WebhookHttpResponse> {
    const { url, service } = webhookUrl(cfg, timeoutSeconds);
    if (service !== undefined) throw new CallFailure(`Post ${JSON.stringify(url)}: service ${JSON.stringify(service)} not found`);
    if (signal?.aborted) throw new CallFailure(`Post ${JSON.stringify(url)}: context canceled`, true);
    const target = new URL(url);
    const host = target.hostname.replace(/^\[|\]$/g, '');
    const hostPort = target.port ? target.host : isIP(host) === 6 ? `[${host}]:443` : `${host}:443`;
    const deadline = AbortSignal.timeout(timeoutSeconds * 1000);
    const stop = signal ? AbortSignal.any([signal, deadline]) : deadline;
    return new Promise<WebhookHttpResponse>((resolve, reject) => {
      const failWith = (detail: string, canceled = false): void => reject(new CallFailure(`Post ${JSON.stringify(url)}: ${detail}`, canceled));
      const req = https.request(
        url,
        {
          method: 'POST',
          agent: this.agentFor(cfg.caBundle ?? ''),
          headers: { 'content-type': 'application/json', accept: 'application/json, */*', 'user-agent': 'kube-apiserver-admission', 'content-length': body.length },
          signal: stop,
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size > MAX_RESPONSE_BYTES) {
              res.destroy();
              reject(new CallFailure('unexpected error when reading response body. Please retry. Original error: http: response body too large'));
              return;
            }
            chunks.push(c);
          });
          res.on('end', () => resolve({ statusCode: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks) }));
          res.on('error', (err) => {
            if (deadline.aborted) failWith('context deadline exceeded');
            else if (signal?.aborted) failWith('context canceled', true);
            else reject(new CallFailure(`unexpected error when reading response body. Please retry. Original error: ${err.message}`));
          });
        },
      );
      req.on('error', (err: NodeError) => {
        if (deadline.aborted) failWith('context deadline exceeded');
        else if (signal?.aborted) failWith('context canceled', true);
        else failWith(goTransportError(err, host, hostPort));
      });
      req.end(body);
    });
  }

  close(): void {
    for (const a of this.agents.values()) a.destroy();
    this.agents.clear();
  }
}
