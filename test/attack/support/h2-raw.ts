// HTTP/2 frames written by hand over TLS (ALPN h2), for the floods no well-behaved client sends:
// rapid resets, SETTINGS, PING and PRIORITY floods, endless CONTINUATION. Header blocks are
// HPACK literals without indexing (RFC 7541 6.2.2), which every decoder must take.

import tls from 'node:tls';

export const FRAME = { DATA: 0, HEADERS: 1, PRIORITY: 2, RST_STREAM: 3, SETTINGS: 4, PING: 6, GOAWAY: 7, WINDOW_UPDATE: 8, CONTINUATION: 9 } as const;
export const FLAG = { END_STREAM: 0x1, ACK: 0x1, END_HEADERS: 0x4 } as const;
const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

export function frame(type: number, flags: number, streamId: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(streamId & 0x7fffffff, 5);
  return Buffer.concat([head, payload]);
}

/** An HPACK integer with an N-bit prefix (RFC 7541 5.1), the prefix's other bits zero. */
function hpackInt(value: number, prefixBits: number): Buffer {
  const max = (1 << prefixBits) - 1;
  if (value < max) return Buffer.from([value]);
  const out = [max];
  let rest = value - max;
  while (rest >= 128) {
    out.push((rest % 128) + 128);
    rest = Math.floor(rest / 128);
  }
  out.push(rest);
  return Buffer.from(out);
}

/** A header block of literal fields without indexing, new names (0x00 each). */
export function headerBlock(headers: [string, string][]): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of headers) {
    const n = Buffer.from(name, 'latin1');
    const v = Buffer.from(value, 'latin1');
    parts.push(Buffer.from([0]), hpackInt(n.length, 7), n, hpackInt(v.length, 7), v);
  }
  return Buffer.concat(parts);
}

export function requestHeaders(path: string, token: string, method = 'GET', extra: [string, string][] = []): Buffer {
  return headerBlock([[':method', method], [':scheme', 'https'], [':path', path], [':authority', '127.0.0.1'], ['authorization', `Bearer ${token}`], ...extra]);
}

export interface RawH2 {
  socket: tls.TLSSocket;
  /** Bytes the server sent (frames are not parsed beyond what the counters need). */
  received: number;
  /** Frames seen from the server, by type. */
  framesByType: Map<number, number>;
  /** The GOAWAY's error code, once one came. */
  goawayCode?: number;
  /** RST_STREAM codes received, by stream. */
  resets: Map<number, number>;
  /** Stream ids that got response HEADERS. */
  responded: Set<number>;
  closed: Promise<void>;
  write(bytes: Buffer): boolean;
}

/** Connects, sends the preface and an empty SETTINGS, ACKs the server's SETTINGS; parses what comes back. */
export function connectH2(port: number, caPem: string): Promise<RawH2> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, ca: caPem, servername: 'localhost', ALPNProtocols: ['h2'] });
    const raw: RawH2 = {
      socket,
      received: 0,
      framesByType: new Map(),
      resets: new Map(),
      responded: new Set(),
      closed: new Promise((r) => socket.once('close', () => r())),
      write: (b) => (socket.destroyed ? false : socket.write(b)),
    };
    let buf: Buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      raw.received += chunk.length;
      buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
      while (buf.length >= 9) {
        const len = buf.readUIntBE(0, 3);
        if (buf.length < 9 + len) break;
        const type = buf[3]!;
        const flags = buf[4]!;
        const id = buf.readUInt32BE(5) & 0x7fffffff;
        const payload = buf.subarray(9, 9 + len);
        raw.framesByType.set(type, (raw.framesByType.get(type) ?? 0) + 1);
        if (type === FRAME.SETTINGS && !(flags & FLAG.ACK)) raw.write(frame(FRAME.SETTINGS, FLAG.ACK, 0));
        if (type === FRAME.GOAWAY) raw.goawayCode = payload.readUInt32BE(4);
        if (type === FRAME.RST_STREAM) raw.resets.set(id, payload.readUInt32BE(0));
        if (type === FRAME.HEADERS) raw.responded.add(id);
        buf = buf.subarray(9 + len);
      }
    });
    // Bounded: a server that never finishes the handshake fails the connect, not the attack.
    const timer = setTimeout(() => socket.destroy(new Error('no TLS handshake within 10 s')), 10_000);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      if (socket.alpnProtocol !== 'h2') return reject(new Error(`ALPN chose ${socket.alpnProtocol}`));
      socket.write(Buffer.concat([PREFACE, frame(FRAME.SETTINGS, 0, 0)]));
      resolve(raw);
    });
    socket.on('error', () => undefined);
    socket.once('close', () => {
      clearTimeout(timer);
      reject(new Error('closed before the handshake was done'));
    });
  });
}
