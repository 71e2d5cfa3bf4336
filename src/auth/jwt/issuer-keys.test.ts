// An issuer's key source lets go of its connections when closed: a discovery fetch to an issuer
// that never answers ends at close(), not at its 30 s timeout.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { pino } from 'pino';
import { IssuerKeys } from './issuer-keys.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('close() ends a discovery fetch the issuer never answers', async () => {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.resume(); // the request is read (and never answered), so the client's close is seen
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  const keys = new IssuerKeys({ issuerURL: url, logger: pino({ level: 'silent' }), initRetryMs: 60_000 });
  try {
    keys.start();
    for (let i = 0; i < 500 && sockets.size === 0; i++) await sleep(10);
    assert.equal(sockets.size, 1, 'the discovery request reached the issuer');
    keys.close();
    for (let i = 0; i < 500 && sockets.size > 0; i++) await sleep(10);
    assert.equal(sockets.size, 0, 'the fetch was ended by close()');
    assert.equal(keys.ready, false);
  } finally {
    keys.close();
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  }
});
