// PEM decoding edge cases with the answers Go's encoding/pem gives (go1.19 pem.Decode in a loop,
// run once to write this table): which candidate texts are blocks, their headers and bytes, and
// what follows the first block. A case that differs from Go here is a bundle validated differently.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pemDecode, pemDecodeAll } from './pem-decode.js';

/** [input, Go's blocks as [type, headers, bytes in hex], the rest after Go's first block]. */
const CASES: [string, [string, Record<string, string>, string][], string][] = [
  ['-----BEGIN A-----\nAAAA\n-----END A-----\n', [['A',{},'000000']], ''],
  ['-----BEGIN A-----\r\nAAAA\r\n-----END A-----\r\n', [['A',{},'000000']], ''],
  ['junk\n-----BEGIN A-----\nAAAA\n-----END A-----\ntail', [['A',{},'000000']], 'tail'],
  ['-----BEGIN A-----\n-----END A-----\n', [['A',{},'']], ''],
  ['-----BEGIN A-----\nk: v\nk2 :  v2 \n\nAAAA\n-----END A-----\n', [['A',{'k':'v','k2':'v2'},'000000']], ''],
  ['-----BEGIN A-----\nk: v\n-----END A-----\n', [], '-----BEGIN A-----\nk: v\n-----END A-----\n'],
  ['-----BEGIN A-----\nk: v', [], '-----BEGIN A-----\nk: v'],
  ['-----BEGIN A----\nAAAA\n-----END A-----\n', [], '-----BEGIN A----\nAAAA\n-----END A-----\n'],
  ['-----BEGIN A-----\nAAAA\n-----END B-----\n', [], '-----BEGIN A-----\nAAAA\n-----END B-----\n'],
  ['-----BEGIN A-----\nAAAA\n-----END A----\n', [], '-----BEGIN A-----\nAAAA\n-----END A----\n'],
  ['-----BEGIN A-----\nAAAA\n-----END A----- x\n', [], '-----BEGIN A-----\nAAAA\n-----END A----- x\n'],
  ['-----BEGIN A-----\nAAAA\n-----END A-----   \t\nnext', [['A',{},'000000']], 'next'],
  ['-----BEGIN A-----\nAA!A\n-----END A-----\n', [], '-----BEGIN A-----\nAA!A\n-----END A-----\n'],
  ['-----BEGIN A-----\nAAA\n-----END A-----\n', [], '-----BEGIN A-----\nAAA\n-----END A-----\n'],
  ['-----BEGIN A-----\nA A\tA A\n-----END A-----\n', [['A',{},'000000']], ''],
  ['-----BEGIN A-----\nAAAA\n-----END A-----', [['A',{},'000000']], ''],
  ['-----BEGIN A-----\nAAAA', [], '-----BEGIN A-----\nAAAA'],
  ['-----BEGIN A-----\nAA==\n-----END A-----\n-----BEGIN B-----\nBB==\n-----END B-----\n', [['A',{},'00'],['B',{},'04']], '-----BEGIN B-----\nBB==\n-----END B-----\n'],
  ['-----BEGIN A-----\nAAAA\n-----BEGIN B-----\nBBBB\n-----END B-----\n', [['B',{},'041041']], ''],
  ['x-----BEGIN A-----\nAAAA\n-----END A-----\n', [], 'x-----BEGIN A-----\nAAAA\n-----END A-----\n'],
  ['-----BEGIN A-----  \nAAAA\n-----END A-----\n', [['A',{},'000000']], ''],
  ['-----BEGIN -----\nAAAA\n-----END -----\n', [['',{},'000000']], ''],
  ['-----BEGIN A-----\nAAAA\n\n-----END A-----\n', [['A',{},'000000']], ''],
  ['-----BEGIN A-----\nAAAA=\n-----END A-----\n', [], '-----BEGIN A-----\nAAAA=\n-----END A-----\n'],
  ['-----BEGIN A-----\nAAAA\r\n-----END A-----\n', [['A',{},'000000']], ''],
  ['-----BEGIN A-----\nAB\nCD\n-----END A-----\n', [['A',{},'001083']], ''],
];

for (const [input, blocks, firstRest] of CASES) {
  test(`as Go decodes ${JSON.stringify(input).slice(0, 70)}`, () => {
    assert.deepEqual(
      pemDecodeAll(input).map((b) => [b.type, b.headers, b.bytes.toString('hex')]),
      blocks,
    );
    const first = pemDecode(input);
    assert.equal(first.rest, first.block ? firstRest : input);
  });
}
