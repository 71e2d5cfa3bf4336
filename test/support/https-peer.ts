// A real HTTPS server on 127.0.0.1 for tests to stand in for a system the API server talks to
// (an OIDC issuer, a TokenReview webhook), with its own CA; its behaviour can be switched to
// answering normally, slowly (never, until stopped), with garbage, or refusing connections.

import { mkdtempSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureServingCertificates } from '../../src/config/certificates.js';

export type PeerMode = 'ok' | 'slow' | 'garbage' | 'down';

export interface HttpsPeer {
  url: string;
  port: number;
  caPem: string;
  mode: PeerMode;
  /** Requests served, by path. */
  hits: Map<string, number>;
  /**
   * Serves a new certificate signed by a new CA (as an issuer whose certificate was reissued from
   * a rotated CA) and closes the open connections, so that every client handshakes again; caPem
   * becomes the new CA.
   */
  rotateCA(): Promise<string>;
  /** Stops listening (mode 'down': connections refused) or listens again on the same port. */
  setDown(down: boolean): Promise<void>;
  stop(): Promise<void>;
}

export type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

/** A fresh CA and a serving certificate for 127.0.0.1 signed by it. */
async function freshServingCertificate(): Promise<{ certPem: string; keyPem: string; caCertPem: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'platform-peer-'));
  try {
    return await ensureServingCertificates({ dir, hosts: ['127.0.0.1'] });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function startHttpsPeer(handler: Handler, opts: { requestCert?: boolean; clientCA?: string } = {}): Promise<HttpsPeer> {
  const tls = await freshServingCertificate();
  const sockets = new Set<Socket>();
  const stalled = new Set<ServerResponse>();
  const peer = {} as HttpsPeer;
  const server = https.createServer({ cert: tls.certPem, key: tls.keyPem, requestCert: opts.requestCert, ca: opts.clientCA, rejectUnauthorized: Boolean(opts.requestCert) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0]!;
      peer.hits.set(path, (peer.hits.get(path) ?? 0) + 1);
      if (peer.mode === 'slow') return void stalled.add(res);
      if (peer.mode === 'garbage') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end('{"this is": not json at all');
      }
      handler(req, Buffer.concat(chunks).toString('utf8'), res);
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const closeAll = async () => {
    for (const res of stalled) res.destroy();
    stalled.clear();
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  };
  Object.assign(peer, {
    url: `https://127.0.0.1:${port}`,
    port,
    caPem: tls.caCertPem,
    mode: 'ok' as PeerMode,
    hits: new Map<string, number>(),
    async rotateCA() {
      const next = await freshServingCertificate();
      server.setSecureContext({ cert: next.certPem, key: next.keyPem, ca: opts.clientCA });
      for (const s of sockets) s.destroy();
      peer.caPem = next.caCertPem;
      return next.caCertPem;
    },
    async setDown(down: boolean) {
      if (down && server.listening) await closeAll();
      if (!down && !server.listening) await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
      peer.mode = down ? 'down' : 'ok';
    },
    async stop() {
      if (server.listening) await closeAll();
    },
  });
  return peer;
}
