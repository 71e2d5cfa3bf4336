// Raw connections for attacks on the TLS front door: a real ClientHello's bytes (to send whole,
// or a byte at a time), and many TCP connections to hold open.

import { Duplex } from 'node:stream';
import net from 'node:net';
import tls from 'node:tls';

/** The first flight a Node TLS client sends (its ClientHello), captured without a server. */
export function clientHello(alpn: string[] = ['h2', 'http/1.1']): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let socket: tls.TLSSocket | undefined;
    const wire = new Duplex({
      read() {},
      write(chunk: Buffer, _enc, cb) {
        resolve(Buffer.from(chunk));
        cb();
        setImmediate(() => socket?.destroy());
      },
    });
    socket = tls.connect({ socket: wire, servername: 'localhost', ALPNProtocols: alpn, rejectUnauthorized: false });
    socket.on('error', () => undefined);
    setTimeout(() => reject(new Error('no ClientHello written')), 5000).unref();
  });
}

/** A set of raw TCP connections to the server that the attack holds (and closes on release). */
export class Connections {
  readonly sockets = new Set<net.Socket>();
  /** Connections the server closed (or reset) while they were held. */
  closedByServer = 0;
  private releasing = false;

  constructor(private readonly port: number) {}

  /** Opens one; resolves once connected, with the socket (errors are counted, never thrown). */
  open(onConnect?: (s: net.Socket) => void): Promise<net.Socket> {
    return new Promise((resolve) => {
      const s = net.connect(this.port, '127.0.0.1', () => {
        onConnect?.(s);
        resolve(s);
      });
      this.sockets.add(s);
      s.on('error', () => undefined);
      s.on('data', () => undefined);
      s.once('close', () => {
        this.sockets.delete(s);
        if (!this.releasing) this.closedByServer++;
        resolve(s);
      });
    });
  }

  get count(): number {
    return this.sockets.size;
  }

  release(): void {
    this.releasing = true;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }
}

/** Writes `bytes` one byte every `everyMs` (until all are out or the socket is gone). */
export function trickle(socket: net.Socket, bytes: Buffer, everyMs: number): NodeJS.Timeout {
  let at = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || at >= bytes.length) return void clearInterval(timer);
    socket.write(bytes.subarray(at, at + 1));
    at++;
  }, everyMs);
  return timer;
}
