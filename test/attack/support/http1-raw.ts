// Raw HTTP/1.1 over TLS, for what Node's client will not send (pipelined requests, a malformed
// one among them) and to read every response on the connection in order.

import tls from 'node:tls';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Splits a connection's bytes into responses (Content-Length framing; what is left over is dropped). */
export function parseResponses(bytes: Buffer): RawResponse[] {
  const out: RawResponse[] = [];
  let at = 0;
  for (;;) {
    const end = bytes.indexOf('\r\n\r\n', at, 'latin1');
    if (end < 0) return out;
    const [statusLine, ...lines] = bytes.subarray(at, end).toString('latin1').split('\r\n');
    const headers: Record<string, string> = {};
    for (const l of lines) {
      const colon = l.indexOf(':');
      headers[l.slice(0, colon).trim().toLowerCase()] = l.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    if (bytes.length < end + 4 + length) return out;
    out.push({ status: Number(statusLine!.split(' ')[1]), headers, body: bytes.subarray(end + 4, end + 4 + length).toString('utf8') });
    at = end + 4 + length;
  }
}

/** Writes `request` in one write on a new HTTP/1.1 connection; resolves with every byte until the server closes it (bounded). */
export function exchange(port: number, caPem: string, request: Buffer | string, timeoutMs = 20_000): Promise<{ bytes: Buffer; closedByServer: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let timedOut = false;
    const socket = tls.connect({ host: '127.0.0.1', port, ca: caPem, servername: 'localhost', ALPNProtocols: ['http/1.1'] }, () => socket.write(request));
    const timer = setTimeout(() => {
      timedOut = true;
      socket.destroy();
    }, timeoutMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve({ bytes: Buffer.concat(chunks), closedByServer: !timedOut });
    });
  });
}

/** An HTTP/1.1 request's bytes, with Content-Length for a body. */
export function requestBytes(method: string, path: string, token: string, body?: string | Buffer, headers: Record<string, string> = {}): Buffer {
  const payload = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body);
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', `Authorization: Bearer ${token}`];
  if (payload) lines.push('Content-Type: application/json', `Content-Length: ${payload.length}`);
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), payload ?? Buffer.alloc(0)]);
}
