// The handshake gate with stand-in sockets: how many handshakes it starts at once and per turn
// of the event loop, and when a slot comes free (handshake over, or the socket closed).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { HandshakeGate } from './handshake-gate.js';

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function fakeSocket(): Socket & { close(): void } {
  const s = Object.assign(new EventEmitter(), {
    destroyed: false,
    close() {
      s.destroyed = true;
      s.emit('close');
    },
  });
  return s as unknown as Socket & { close(): void };
}

test('at most maxConcurrent handshakes run; a finished one lets the next start', async () => {
  const gate = new HandshakeGate(2, 10);
  const sockets = Array.from({ length: 5 }, fakeSocket);
  const started: number[] = [];
  sockets.forEach((s, i) => gate.admit(s, () => started.push(i)));
  assert.deepEqual(started, [], 'nothing starts inside the turn that accepted the connections');
  await turn();
  assert.deepEqual(started, [0, 1]);
  assert.equal(gate.waiting, 3);
  gate.done(sockets[0]!);
  gate.done(sockets[0]!); // twice: still one slot
  await turn();
  assert.deepEqual(started, [0, 1, 2]);
  assert.equal(gate.inProgress, 2);
});

test('at most perTurn handshakes start per turn of the event loop, in arrival order', async () => {
  const gate = new HandshakeGate(100, 2);
  const started: number[] = [];
  for (let i = 0; i < 5; i++) gate.admit(fakeSocket(), () => started.push(i));
  await turn();
  assert.deepEqual(started, [0, 1]);
  await turn();
  assert.deepEqual(started, [0, 1, 2, 3]);
  await turn();
  assert.deepEqual(started, [0, 1, 2, 3, 4]);
});

test('a socket that closes frees its slot; one that closed while waiting never takes one', async () => {
  const gate = new HandshakeGate(1, 10);
  const [a, b, c] = [fakeSocket(), fakeSocket(), fakeSocket()];
  const started: string[] = [];
  gate.admit(a, () => started.push('a'));
  gate.admit(b, () => started.push('b'));
  gate.admit(c, () => started.push('c'));
  await turn();
  assert.deepEqual(started, ['a']);
  b.close();
  a.close();
  await turn();
  assert.deepEqual(started, ['a', 'c']);
  assert.equal(gate.inProgress, 1);
  assert.equal(gate.waiting, 0);
});
