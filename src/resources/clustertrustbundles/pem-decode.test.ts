// More of Go's encoding/pem answers, for sequences of candidate blocks: a candidate that fails
// (wrong END type, bad base64, headers before an END, no END at all) and the candidates after
// it that share or pass its END line, headers, base64 forms and END-line endings. The linear
// decoder remembers the next END and the last non-base64 character between candidates; these
// pin that what it remembers gives Go's answer. Each row was answered by Go's pem.Decode in a
// loop, as pem-decode-go.test.ts's table.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pemDecode, pemDecodeAll } from './pem-decode.js';

/** [input, Go's blocks as [type, headers, bytes in hex], the rest after Go's first block (the input when none)]. */
const CASES: [string, [string, Record<string, string>, string][], string][] = [
  ["-----BEGIN A-----\nAAAA\n-----END B-----\n-----BEGIN B-----\nBBBB\n-----END B-----\n", [["B",{},"041041"]], ""],
  ["-----BEGIN A-----\nAAAA\n-----END A-----\n-----BEGIN B-----\nBBBB\n-----END B-----\n-----BEGIN C-----\nCCCC\n-----END C-----\n", [["A",{},"000000"],["B",{},"041041"],["C",{},"082082"]], "-----BEGIN B-----\nBBBB\n-----END B-----\n-----BEGIN C-----\nCCCC\n-----END C-----\n"],
  ["-----BEGIN A-----\n!!\n-----BEGIN A-----\nAAAA\n-----END A-----\n", [["A",{},"000000"]], ""],
  ["-----BEGIN A-----\nAAAA\n-----BEGIN A-----\n", [], "-----BEGIN A-----\nAAAA\n-----BEGIN A-----\n"],
  ["-----BEGIN A-----\nAAAA\n-----BEGIN A-----\nAA!A\n-----END A-----\n", [], "-----BEGIN A-----\nAAAA\n-----BEGIN A-----\nAA!A\n-----END A-----\n"],
  ["-----BEGIN A-----\nAA!A\n-----END A-----\n-----BEGIN A-----\nAAAA\n-----END A-----\n", [["A",{},"000000"]], ""],
  ["-----BEGIN A-----\nAAAA\n-----END A----\n-----BEGIN A-----\nBBBB\n-----END A-----\n", [["A",{},"041041"]], ""],
  ["-----BEGIN A-----\nk: v\n\n-----END A-----\n", [["A",{"k":"v"},""]], ""],
  ["-----BEGIN A-----\nk: v\n\nAAAA\n-----END A-----\n-----BEGIN B-----\n-----END B-----\n", [["A",{"k":"v"},"000000"],["B",{},""]], "-----BEGIN B-----\n-----END B-----\n"],
  ["-----BEGIN A-----\nk: v\nk: w\n\nAAAA\n-----END A-----\n", [["A",{"k":"w"},"000000"]], ""],
  ["-----BEGIN A-----\n: v\n\nAAAA\n-----END A-----\n", [["A",{"":"v"},"000000"]], ""],
  ["-----BEGIN A-----\n  key  :  a: b  \n\nAAAA\n-----END A-----\n", [["A",{"key":"a: b"},"000000"]], ""],
  ["-----BEGIN A-----\nk:v\r\n\r\nAAAA\r\n-----END A-----\r\n", [["A",{"k":"v"},"000000"]], ""],
  ["-----BEGIN A-----\n-----END A-----", [["A",{},""]], ""],
  ["-----BEGIN A-----\n-----END A-----x\n-----BEGIN A-----\n-----END A-----\nrest", [["A",{},""]], "rest"],
  ["-----BEGIN A-----\n-----END B-----\n", [], "-----BEGIN A-----\n-----END B-----\n"],
  ["-----BEGIN AB-----\nAAAA\n-----END A-----\n", [], "-----BEGIN AB-----\nAAAA\n-----END A-----\n"],
  ["-----BEGIN A-----\nAAAA\n-----END AB-----\n", [], "-----BEGIN A-----\nAAAA\n-----END AB-----\n"],
  ["-----BEGIN A-----\nAAAA\n-----END A-----\r\nnext\r\n", [["A",{},"000000"]], "next\r\n"],
  ["-----BEGIN A-----\nAAAA\n-----END A-----\n\nnext", [["A",{},"000000"]], "\nnext"],
  ["-----BEGIN A-----\nAAAA\n-----END A", [], "-----BEGIN A-----\nAAAA\n-----END A"],
  ["-----BEGIN A-----\nAAAA\n-----END ", [], "-----BEGIN A-----\nAAAA\n-----END "],
  ["-----BEGIN A-----\nAAAA\n-----END A---", [], "-----BEGIN A-----\nAAAA\n-----END A---"],
  ["\n-----BEGIN A-----\nAAAA\n-----END A-----\n", [["A",{},"000000"]], ""],
  ["\r\n-----BEGIN A-----\nAAAA\n-----END A-----\n", [["A",{},"000000"]], ""],
  ["--BEGIN A-----\nAAAA\n-----END A-----\n", [], "--BEGIN A-----\nAAAA\n-----END A-----\n"],
  ["-----BEGIN A-----\nAAAA\n-----END A-----\n-----BEGIN A-----\nAAAA\n-----END A-----\n", [["A",{},"000000"],["A",{},"000000"]], "-----BEGIN A-----\nAAAA\n-----END A-----\n"],
  ["-----BEGIN A-----\nAA\nAA\n-----END A-----\n", [["A",{},"000000"]], ""],
  ["-----BEGIN A-----\nA\tA A\r\nA\n-----END A-----\n", [["A",{},"000000"]], ""],
  ["-----BEGIN A-----\nAA==AA==\n-----END A-----\n", [], "-----BEGIN A-----\nAA==AA==\n-----END A-----\n"],
  ["-----BEGIN A-----\nAAA=\n-----END A-----\n", [["A",{},"0000"]], ""],
  ["-----BEGIN A-----\nAA=A\n-----END A-----\n", [], "-----BEGIN A-----\nAA=A\n-----END A-----\n"],
  ["-----BEGIN A-----\n====\n-----END A-----\n", [], "-----BEGIN A-----\n====\n-----END A-----\n"],
  ["-----BEGIN A-----\nAB+/ab09\n-----END A-----\n", [["A",{},"001fbf69bd3d"]], ""],
  ["-----BEGIN A-----\nAB-_\n-----END A-----\n", [], "-----BEGIN A-----\nAB-_\n-----END A-----\n"],
  ["-----BEGIN A-----\nAAAA\n-----END A-----\n-----BEGIN B-----\nBBB!\n-----END B-----\n-----BEGIN C-----\nCCCC\n-----END C-----\n", [["A",{},"000000"],["C",{},"082082"]], "-----BEGIN B-----\nBBB!\n-----END B-----\n-----BEGIN C-----\nCCCC\n-----END C-----\n"],
  ["-----BEGIN A-----\nAAAA\n-----BEGIN B-----\nk: v\n-----END B-----\n-----BEGIN C-----\nCCCC\n-----END C-----\n", [["C",{},"082082"]], ""],
  ["-----BEGIN A-----\n\n-----END A-----\n", [["A",{},""]], ""],
  ["-----BEGIN A-----\nk: v\n", [], "-----BEGIN A-----\nk: v\n"],
  ["-----BEGIN A-----\nk: v\n-----END A-----\n-----BEGIN A-----\nAAAA\n-----END A-----\n", [["A",{},"000000"]], ""],
  ["-----BEGIN A-----\nAAAA\n-----END A-----\n-----END A-----\n", [["A",{},"000000"]], "-----END A-----\n"],
  ["x\n-----BEGIN A-----\nAAAA\n-----BEGIN A----\nAAAA\n-----END A-----\n", [], "x\n-----BEGIN A-----\nAAAA\n-----BEGIN A----\nAAAA\n-----END A-----\n"],
  ["-----BEGIN A-----\nAAAA\n-----END A-----\t \t", [["A",{},"000000"]], ""],
  ["-----BEGIN A-----\nAAAA\n-----END A-----x-----BEGIN B-----\nBBBB\n-----END B-----\n", [], "-----BEGIN A-----\nAAAA\n-----END A-----x-----BEGIN B-----\nBBBB\n-----END B-----\n"],
  ["-----BEGIN A-----\n-----END A-----\n-----BEGIN B-----\n-----END B-----\n", [["A",{},""],["B",{},""]], "-----BEGIN B-----\n-----END B-----\n"],
  ["-----BEGIN -----\n-----END -----\n", [["",{},""]], ""],
  ["-----BEGIN A-----\nAAAA\n-----END A-----\nx\n-----BEGIN A-----\nk: v\n\nBBBB\n-----END A-----\n", [["A",{},"000000"],["A",{"k":"v"},"041041"]], "x\n-----BEGIN A-----\nk: v\n\nBBBB\n-----END A-----\n"],
  ["-----BEGIN A-----\nA!AA\n-----END A-----\n-----BEGIN A-----\nAAAA\n-----BEGIN A-----\nBBBB\n-----END A-----\n", [["A",{},"041041"]], ""],
  ["-----BEGIN A-----\nAAAA\n-----END B-----\n-----BEGIN A-----\nBBBB\n-----END A-----\n", [["A",{},"041041"]], ""],
  ["-----BEGIN A-----\n\nAAAA\n-----END A-----\n", [["A",{},"000000"]], ""],
  ["-----BEGIN A-----\nAZaz09+/\n-----END A-----\n", [["A",{},"0196b3d3dfbf"]], ""],
  ["-----BEGIN A-----\n=AAAA\n-----END A-----\n", [], "-----BEGIN A-----\n=AAAA\n-----END A-----\n"],
  ["-----BEGIN A-----\nAA\nAA\nAA==\n-----END A-----\n", [["A",{},"00000000"]], ""],
  ["-----BEGIN A-----\nAAAA\n\n\n-----END A-----\n", [["A",{},"000000"]], ""],
  ["-----BEGIN A-----\r\n\r\n-----END A-----\r\n", [["A",{},""]], ""],
  ["-----BEGIN A-----\n\t\n-----END A-----\n", [["A",{},""]], ""],
];

for (const [input, blocks, firstRest] of CASES) {
  test(`as Go decodes ${JSON.stringify(input).slice(0, 90)}`, () => {
    assert.deepEqual(
      pemDecodeAll(input).map((b) => [b.type, b.headers, b.bytes.toString('hex')]),
      blocks,
    );
    assert.equal(pemDecode(input).rest, firstRest);
  });
}

test('a candidate is judged the same whatever text comes before it', () => {
  // The remembered END and bad character belong to one input; a later call starts afresh.
  const good = '-----BEGIN A-----\nAAAA\n-----END A-----\n';
  for (const before of ['', 'x\n', '-----BEGIN A-----\nA!AA\n', '-----BEGIN B-----\n', '-----END A-----\n', '-----BEGIN A-----\nk: v\n']) {
    const r = pemDecode(before + good);
    assert.deepEqual(r.block && [r.block.type, r.block.bytes.toString('hex')], ['A', '000000'], JSON.stringify(before));
    assert.equal(r.rest, '');
  }
});
