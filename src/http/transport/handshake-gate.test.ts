// The handshake gate with stand-in sockets: how many handshakes it starts per turn of the event
// loop, in which order, and that a socket gone while it waited is skipped.

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

test('at most perTurn handshakes start per turn of the event loop, in arrival order; none inside the accepting turn', async () => {
  const gate = new HandshakeGate(2);
  const started: number[] = [];
  for (let i = 0; i < 5; i++) gate.admit(fakeSocket(), () => started.push(i));
  assert.deepEqual(started, []);
  await turn();
  assert.deepEqual(started, [0, 1]);
  assert.equal(gate.waiting, 3);
  await turn();
  assert.deepEqual(started, [0, 1, 2, 3]);
  await turn();
  assert.deepEqual(started, [0, 1, 2, 3, 4]);
  assert.equal(gate.waiting, 0);
});

test('a handshake started holds no place in later turns: one that never finishes does not hold up the next', async () => {
  const gate = new HandshakeGate(1);
  const started: string[] = [];
  // `a` starts and then waits on its client for ever (nothing tells the gate it is over).
  gate.admit(fakeSocket(), () => started.push('a'));
  gate.admit(fakeSocket(), () => started.push('b'));
  await turn();
  await turn();
  assert.deepEqual(started, ['a', 'b']);
});

test('a socket that closed while waiting is skipped and takes no start', async () => {
  const gate = new HandshakeGate(1);
  const [a, b, c] = [fakeSocket(), fakeSocket(), fakeSocket()];
  const started: string[] = [];
  gate.admit(a, () => started.push('a'));
  gate.admit(b, () => started.push('b'));
  gate.admit(c, () => started.push('c'));
  b.close();
  await turn();
  assert.deepEqual(started, ['a']);
  await turn();
  assert.deepEqual(started, ['a', 'c']);
  assert.equal(gate.waiting, 0);
});
