// The ClientHello reader against a real ClientHello (Node's, captured from its first write):
// whole at once, a byte at a time, split across two records; and what it hands to TLS at once.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Duplex } from 'node:stream';
import tls from 'node:tls';
import { ClientHelloReader, MAX_BUFFERED } from './client-hello.js';

function capturedHello(): Promise<Buffer> {
  return new Promise((resolve) => {
    const wire = new Duplex({
      read() {},
      write(chunk: Buffer, _enc, cb) {
        resolve(Buffer.from(chunk));
        cb();
        setImmediate(() => socket.destroy());
      },
    });
    const socket = tls.connect({ socket: wire, servername: 'localhost', ALPNProtocols: ['h2', 'http/1.1'] });
    socket.on('error', () => undefined);
  });
}

test('a whole ClientHello is ready; one byte short is not', async () => {
  const hello = await capturedHello();
  assert.equal(hello[0], 0x16);
  const short = new ClientHelloReader();
  assert.equal(short.push(hello.subarray(0, hello.length - 1)), false);
  assert.equal(short.push(hello.subarray(hello.length - 1)), true);
  assert.deepEqual(short.bytes(), hello);
  assert.equal(new ClientHelloReader().push(hello), true);
});

test('a ClientHello sent a byte at a time is ready at its last byte, not before', async () => {
  const hello = await capturedHello();
  const r = new ClientHelloReader();
  for (let i = 0; i < hello.length - 1; i++) assert.equal(r.push(hello.subarray(i, i + 1)), false, `ready after ${i + 1} of ${hello.length} bytes`);
  assert.equal(r.push(hello.subarray(hello.length - 1)), true);
  assert.deepEqual(r.bytes(), hello);
});

test('a ClientHello split across two records is ready once both are in', async () => {
  const hello = await capturedHello();
  const message = hello.subarray(5);
  const record = (part: Buffer): Buffer => Buffer.concat([Buffer.from([0x16, 3, 1, part.length >> 8, part.length & 0xff]), part]);
  const split = Buffer.concat([record(message.subarray(0, 100)), record(message.subarray(100))]);
  const r = new ClientHelloReader();
  assert.equal(r.push(split.subarray(0, 105)), false);
  assert.equal(r.push(split.subarray(105, split.length - 1)), false);
  assert.equal(r.push(split.subarray(split.length - 1)), true);
});

test('what is not a ClientHello goes to TLS at once; so does a hello past the buffer bound', () => {
  // An alert record, a handshake message that is not a ClientHello, a zero-length record.
  assert.equal(new ClientHelloReader().push(Buffer.from([0x15, 3, 3, 0, 2, 2, 40])), true);
  assert.equal(new ClientHelloReader().push(Buffer.from([0x16, 3, 3, 0, 4, 2, 0, 0, 0])), true);
  assert.equal(new ClientHelloReader().push(Buffer.from([0x16, 3, 3, 0, 0])), true);
  // One byte of a record: wait.
  assert.equal(new ClientHelloReader().push(Buffer.from([0x16])), false);
  // A hello that says it is 1 MB long: waited for up to the bound, then handed over.
  const big = new ClientHelloReader();
  assert.equal(big.push(Buffer.from([0x16, 3, 1, 0x40, 0, 1, 0x0f, 0xff, 0xff])), false);
  assert.equal(big.push(Buffer.alloc(MAX_BUFFERED - 100)), false);
  assert.equal(big.push(Buffer.alloc(100)), true);
});
