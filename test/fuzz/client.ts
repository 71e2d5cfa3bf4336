// Sends one fuzz request over real HTTPS with a deadline (a request the server never answers
// is a failure, not a hang), and reads the stored state of both kinds.

import https from 'node:https';
import { bodyOf, type TestServer } from '../e2e/harness.js';
import { CTB, SC, type FuzzRequest } from './arbitraries.js';

export interface FuzzResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

export class FuzzClient {
  private readonly agent: https.Agent;
  constructor(
    private readonly server: TestServer,
    private readonly timeoutMs: number,
  ) {
    this.agent = new https.Agent({ ca: server.caCertPem, keepAlive: true, maxSockets: 4 });
  }

  close(): void {
    this.agent.destroy();
  }

  send(r: FuzzRequest): Promise<FuzzResponse> {
    const body = r.body === undefined ? undefined : Buffer.from(r.body, 'base64');
    const headers: Record<string, string> = { Authorization: `Bearer ${this.server.token}`, ...r.headers };
    if (body) headers['Content-Length'] = String(body.length);
    return new Promise((resolve, reject) => {
      const req = https.request({ agent: this.agent, host: '127.0.0.1', port: this.server.port, method: r.method, path: r.path, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, ...bodyOf(chunks) }));
        res.on('error', reject);
      });
      req.setTimeout(this.timeoutMs, () => req.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
      req.on('error', reject);
      req.end(body);
    });
  }

  /** Every stored object of both kinds by `<collection>/<name>`. */
  async state(): Promise<Map<string, any>> {
    const out = new Map<string, any>();
    for (const collection of [SC, CTB]) {
      const r = await this.send({ method: 'GET', path: collection, headers: {} });
      if (r.status !== 200) throw new Error(`listing ${collection}: ${r.status} ${r.text.slice(0, 300)}`);
      for (const item of r.json.items as any[]) out.set(`${collection}/${item.metadata.name}`, item);
    }
    return out;
  }
}
