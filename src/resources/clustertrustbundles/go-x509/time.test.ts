// UTCTime and GeneralizedTime acceptance, table-driven: the Go 1.19 column is what Debian's Go
// 1.19 answered for each text (recorded from the differential test's Go program); Go 1.24 differs
// only in refusing zone offset hours above 24.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Der } from './der.js';
import { readGoTime } from './time.js';

const TIMES: [tag: number, text: string, go119: boolean, go124: boolean][] = [
  [0x17, "250101000000Z", true, true],
  [0x17, "2501010000Z", true, true],
  [0x17, "250101000000+0100", true, true],
  [0x17, "2501010000-0130", true, true],
  [0x17, "2501010000+0030", true, true],
  [0x17, "250101000000+0000", false, false],
  [0x17, "250101000000-0000", false, false],
  [0x17, "250101000000+2400", true, true],
  [0x17, "250101000000+2500", true, false],
  [0x17, "250101000000+9959", true, false],
  [0x17, "250101000000+0160", false, false],
  [0x17, "250101000000+01", false, false],
  [0x17, "250101000000", false, false],
  [0x17, "250101000060Z", false, false],
  [0x17, "250101006000Z", false, false],
  [0x17, "250101240000Z", false, false],
  [0x17, "250132000000Z", false, false],
  [0x17, "250229000000Z", false, false],
  [0x17, "240229000000Z", true, true],
  [0x17, "000229000000Z", true, true],
  [0x17, "250431000000Z", false, false],
  [0x17, "251301000000Z", false, false],
  [0x17, "250001000000Z", false, false],
  [0x17, "250100000000Z", false, false],
  [0x17, "250101000000.5Z", false, false],
  [0x17, "25010100000Z", false, false],
  [0x17, "2501010000000Z", false, false],
  [0x17, "250101000000z", false, false],
  [0x17, "250101000000Z ", false, false],
  [0x17, " 250101000000Z", false, false],
  [0x17, "+50101000000Z", false, false],
  [0x17, "2501010000+5Z", false, false],
  [0x17, "25010100000+Z", false, false],
  [0x17, "2501010a0000Z", false, false],
  [0x17, "500101000000Z", true, true],
  [0x17, "491231235959Z", true, true],
  [0x17, "690229000000Z", false, false],
  [0x17, "680229000000Z", true, true],
  [0x17, "", false, false],
  [0x17, "Z", false, false],
  [0x17, "250101000000+0100Z", false, false],
  [0x18, "20250101000000Z", true, true],
  [0x18, "20250101000000.5Z", false, false],
  [0x18, "202501010000Z", false, false],
  [0x18, "20250101000000+0100", true, true],
  [0x18, "20250101000000+0000", false, false],
  [0x18, "20250101000000-0030", true, true],
  [0x18, "20250101000000+3000", true, false],
  [0x18, "20000229000000Z", true, true],
  [0x18, "19000229000000Z", false, false],
  [0x18, "21000229000000Z", false, false],
  [0x18, "24000229000000Z", true, true],
  [0x18, "00000101000000Z", true, true],
  [0x18, "99991231235959Z", true, true],
  [0x18, "20250101000060Z", false, false],
  [0x18, "2025010100000Z", false, false],
  [0x18, "020250101000000Z", false, false],
  [0x18, "20250101000000", false, false],
  [0x18, "2025-01-01000000Z", false, false],
  [0x18, "20250101000000,5Z", false, false],
];

const element = (tag: number, text: string): Der => {
  const body = Buffer.from(text, 'latin1');
  return Der.of(Buffer.concat([Buffer.from([tag, body.length]), body]));
};

test('times are accepted exactly as Go 1.19 and Go 1.24 accept them', () => {
  for (const [tag, text, go119, go124] of TIMES) {
    assert.equal(readGoTime(element(tag, text), { go124: false }), go119, `Go 1.19 ${tag} ${JSON.stringify(text)}`);
    assert.equal(readGoTime(element(tag, text), { go124: true }), go124, `Go 1.24 ${tag} ${JSON.stringify(text)}`);
  }
});

test('a time element must have a time tag', () => {
  assert.equal(readGoTime(element(0x04, '250101000000Z'), { go124: true }), false);
  assert.equal(readGoTime(Der.of(Buffer.alloc(0)), { go124: true }), false);
});

test('a time element whose length runs past its window is refused', () => {
  assert.equal(readGoTime(Der.of(Buffer.from([0x17, 0x0d, 0x32, 0x35])), { go124: true }), false);
  assert.equal(readGoTime(Der.of(Buffer.from([0x18, 0x0f, 0x32, 0x30])), { go124: true }), false);
});

test('a time is read from its own bytes, wherever its element sits in the buffer', () => {
  const inner = Buffer.from([0xff, 0xff, 0x17, 13, ...Buffer.from('491231235959Z', 'latin1'), 0x18, 15, ...Buffer.from('20251301000000Z', 'latin1')]);
  const view = new Uint8Array(inner.buffer, inner.byteOffset, inner.length);
  const d = new Der(view, 2, view.length);
  assert.equal(readGoTime(d, { go124: true }), true);
  assert.equal(readGoTime(d, { go124: true }), false, 'month 13');
  assert.equal(d.empty, true);
});
