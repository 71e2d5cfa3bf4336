// Request header limits as kube-apiserver's (Go's 1 MiB MaxHeaderBytes), through real HTTPS: a
// 100 KiB header is served over HTTP/1.1 and HTTP/2; past the limit HTTP/1.1 gets Go's 431 (as
// a Status) and so does an HTTP/2 stream. Node's HTTP/2 client never sends more than nine
// 16 KiB frames of headers, so the over-limit HTTP/2 request is written frame by frame here,
// as a Go client (which uses the server's advertised 1 MiB frame size) sends it.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http2 from 'node:http2';
import tls from 'node:tls';
import { bounded } from '../support/polling.js';
import { startInProcessServer } from './in-process-server.js';
import type { TestServer } from './harness.js';

const KIB = 1024;

/** An HTTP/2 frame: 9-byte header (length, type, flags, stream id) and payload. */
function frame(type: number, flags: number, stream: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(stream, 5);
  return Buffer.concat([head, payload]);
}

/** An HPACK integer with an n-bit prefix (RFC 7541 5.1). */
function hpackInt(value: number, prefixBits: number, firstByte = 0): Buffer {
  const max = (1 << prefixBits) - 1;
  if (value < max) return Buffer.from([firstByte | value]);
  const out = [firstByte | max];
  for (value -= max; value >= 128; value >>= 7) out.push((value & 127) | 128);
  out.push(value);
  return Buffer.from(out);
}

/** A literal header field without indexing, new name, no Huffman (RFC 7541 6.2.2). */
const literal = (name: string, value: string): Buffer =>
  Buffer.concat([Buffer.from([0]), hpackInt(name.length, 7), Buffer.from(name, 'latin1'), hpackInt(value.length, 7), Buffer.from(value, 'latin1')]);

/**
 * `bytes` of header fields, 32 KiB each: nghttp2 (Node's HTTP/2) refuses any one field past
 * 64 KiB as a compression error that ends the connection, a limit Go does not have (see
 * docs/request-flow.md), so large header lists are made of several fields.
 */
function fields(bytes: number): Buffer {
  const out: Buffer[] = [];
  for (let i = 0; bytes > 0; i++, bytes -= 32 * KIB) out.push(literal(`x-big-${i}`, 'a'.repeat(Math.min(bytes, 32 * KIB))));
  return Buffer.concat(out);
}

/** Sends one GET with the given header block in frames of at most `frameBytes`; resolves with the answer's body on stream 1. */
function rawHttp2Get(port: number, ca: string, token: string, extra: Buffer, frameBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, ca, ALPNProtocols: ['h2'] }, () => {
      socket.write(Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), frame(4, 0, 0, Buffer.alloc(0))]));
    });
    /** The request, once the server's SETTINGS (its frame size) are known. */
    const sendRequest = (): void => {
      const block = Buffer.concat([literal(':method', 'GET'), literal(':scheme', 'https'), literal(':path', '/version'), literal(':authority', '127.0.0.1'), literal('authorization', `Bearer ${token}`), extra]);
      const frames: Buffer[] = [];
      for (let at = 0; at < block.length; at += frameBytes) {
        const last = at + frameBytes >= block.length;
        // HEADERS (1) then CONTINUATION (9); END_STREAM (1) on the first, END_HEADERS (4) on the last.
        frames.push(frame(at === 0 ? 1 : 9, (at === 0 ? 1 : 0) | (last ? 4 : 0), 1, block.subarray(at, at + frameBytes)));
      }
      socket.write(Buffer.concat(frames));
    };
    let buffered = Buffer.alloc(0);
    let body = '';
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 9) {
        const length = buffered.readUIntBE(0, 3);
        if (buffered.length < 9 + length) break;
        const [type, flags, stream] = [buffered[3]!, buffered[4]!, buffered.readUInt32BE(5) & 0x7fffffff];
        const payload = buffered.subarray(9, 9 + length);
        buffered = buffered.subarray(9 + length);
        if (type === 4 && !(flags & 1)) {
          socket.write(frame(4, 1, 0, Buffer.alloc(0))); // ack their SETTINGS
          sendRequest();
        }
        if (type === 0 && stream === 1) body += payload.toString();
        if (type === 3 && stream === 1) return reject(new Error(`stream reset with code ${payload.readUInt32BE(0)}`));
        if (type === 7) return reject(new Error(`connection ended (GOAWAY) with code ${payload.readUInt32BE(4)}`));
        if ((type === 0 || type === 1) && stream === 1 && flags & 1) {
          socket.destroy();
          return resolve(body);
        }
      }
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`connection closed; body so far: ${body}`)));
  });
}

describe('request header limits', () => {
  let server: TestServer;
  before(async () => {
    server = await startInProcessServer();
  });
  after(async () => {
    await server?.stop();
  });

  test('HTTP/1.1: a 100 KiB header is served; a head past 1 MiB + 4 KiB gets 431 as a Status', async () => {
    const ok = await server.request('GET', '/version', { headers: { 'X-Big': randomBytes(75 * KIB).toString('base64') } });
    assert.equal(ok.status, 200);
    const big = await server.request('GET', '/version', { headers: { 'X-Big': 'a'.repeat(1024 * KIB + 5 * KIB) } }).catch((err: Error) => err);
    assert.ok(!(big instanceof Error), `answered, not ${String(big)}`);
    assert.equal(big.status, 431);
    assert.deepEqual(big.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'request header fields too large', code: 431 });
  });

  test('HTTP/2: 100 KiB of headers are served', async () => {
    // Node's client refuses to send a header block past 64 KiB unless told otherwise (Go's has no such limit).
    const session = http2.connect(server.url, { ca: server.caCertPem, maxSendHeaderBlockLength: 1024 * KIB });
    session.on('error', () => undefined);
    try {
      const status = await bounded(
        new Promise<number>((resolve, reject) => {
          // Text that does not compress (a token's alphabet), in fields under nghttp2's 64 KiB each.
          const text = randomBytes(75 * KIB).toString('base64');
          const st = session.request({ ':path': '/version', authorization: `Bearer ${server.token}`, 'x-big-0': text.slice(0, 50 * KIB), 'x-big-1': text.slice(50 * KIB, 100 * KIB) });
          st.on('response', (h) => resolve(Number(h[':status'])));
          st.on('error', reject);
          st.resume();
          st.end();
        }),
        30_000,
        'HTTP/2 request with a 100 KiB header',
      );
      assert.equal(status, 200);
    } finally {
      session.close();
    }
  });

  test('HTTP/2: a header list past 1 MiB gets 431 on its stream, as Go answers it; one just under is served', async () => {
    const over = JSON.parse(await bounded(rawHttp2Get(server.port, server.caCertPem, server.token, fields(1024 * KIB + 1 * KIB), 1024 * KIB), 30_000, 'over-limit HTTP/2 request'));
    assert.deepEqual(over, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'request header fields too large', code: 431 });
    const under = JSON.parse(await bounded(rawHttp2Get(server.port, server.caCertPem, server.token, fields(1000 * KIB), 1024 * KIB), 30_000, 'under-limit HTTP/2 request'));
    assert.equal(typeof under.gitVersion, 'string');
  });
});
