// A loopback TCP proxy for fault tests: forwards every connection to a target port, and can be
// armed to lose one request's answer: once client bytes containing a marker have been forwarded,
// nothing more comes back on that connection and it is cut a moment later, so the request
// reached the server but its client never hears how it went (a connection dropped mid-write).

import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  /** The proxy's URL (http://127.0.0.1:port). */
  url: string;
  /**
   * Loses the answer to the next request whose bytes contain `marker`; resolves when it has.
   * `beforeCut` runs while the answer is held back, before the connection is cut (so what it
   * does is done before the client can learn anything).
   */
  loseAnswerTo(marker: Buffer, cutAfterMs?: number, beforeCut?: () => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

/** Armed traps shared by several proxies (a client picks any of them for a call). */
export interface Trap {
  marker: Buffer;
  cutAfterMs: number;
  beforeCut?: () => Promise<void>;
  sprung: () => void;
}

export async function startTcpProxy(targetPort: number, traps: Trap[] = []): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    sockets.add(client).add(upstream);
    let swallowing = false;
    const cut = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      const i = traps.findIndex((t) => chunk.includes(t.marker));
      if (i < 0) return;
      const [trap] = traps.splice(i, 1);
      swallowing = true;
      setTimeout(() => {
        void (trap!.beforeCut?.() ?? Promise.resolve()).finally(() => {
          cut();
          trap!.sprung();
        });
      }, trap!.cutAfterMs);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!swallowing) client.write(chunk);
    });
    for (const s of [client, upstream]) {
      s.on('error', cut);
      s.on('close', () => {
        sockets.delete(s);
        cut();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    loseAnswerTo: (marker, cutAfterMs = 300, beforeCut) => new Promise<void>((sprung) => traps.push({ marker, cutAfterMs, beforeCut, sprung })),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
