// Go encoding/csv as kube reads --token-auth-file: every case below was run through Go 1.19's
// csv.Reader with FieldsPerRecord -1 (the settings of kube's tokenfile.NewCSV), and the records it
// read before stopping, and its error, are the expected answers. Inputs are UTF-8 text; the reader
// gets their bytes, so columns count bytes as Go's do.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CsvParseError, readCsvRecords } from './go-csv.js';

/** [input, the records Go read, Go's error or null]. */
const GO_ANSWERS: readonly [string, string[][], string | null][] = [
  ["a,b,c\n",[["a","b","c"]],null],
  ["#x,y,z\n",[["#x","y","z"]],null],
  ["  \n",[["  "]],null],
  ["\n\na,b\n\n",[["a","b"]],null],
  ["a,\"b\nc\",d",[["a","b\nc","d"]],null],
  ["a,b\"c,d",[],"parse error on line 1, column 4: bare \" in non-quoted-field"],
  ["a,\"b\"x,c",[],"parse error on line 1, column 5: extraneous or missing \" in quoted-field"],
  ["a,\"b",[],"parse error on line 1, column 5: extraneous or missing \" in quoted-field"],
  ["\"a\"\"b\",c",[["a\"b","c"]],null],
  ["a,b,c\r\nd,e,f\r",[["a","b","c"],["d","e","f"]],null],
  ["é,\"x\"y",[],"parse error on line 1, column 6: extraneous or missing \" in quoted-field"],
  ["a,b\n\"c",[["a","b"]],"parse error on line 2, column 3: extraneous or missing \" in quoted-field"],
  ["a\rb,c\n",[["a\rb","c"]],null],
  ["﻿a,b,c",[["﻿a","b","c"]],null],
  ["x,y\n z\"q",[["x","y"]],"parse error on line 2, column 3: bare \" in non-quoted-field"],
  ["a,\"b\nc",[],"record on line 1; parse error on line 2, column 2: extraneous or missing \" in quoted-field"],
  ["a,\"b\nc\"d\n",[],"record on line 1; parse error on line 2, column 2: extraneous or missing \" in quoted-field"],
  ["\"a\"\r\nb,c",[["a"],["b","c"]],null],
  ["a,\"\",",[["a","",""]],null],
  [",,\n",[["","",""]],null],
  ["a,\"b\r\nc\",d\r\n",[["a","b\nc","d"]],null],
  ["\"a\"\rb",[],"parse error on line 1, column 3: extraneous or missing \" in quoted-field"],
  ["a,b\r",[["a","b"]],null],
  ["a, \"b\",c",[],"parse error on line 1, column 4: bare \" in non-quoted-field"],
  ["x\n\n\ny\n",[["x"],["y"]],null],
  ["\"\"\"\",x",[["\"","x"]],null],
  ["",[],null],
  ["\n",[],null],
  ["\r\n",[],null],
  ["\"\"",[[""]],null],
  ["\"a\nb\n\nc\",d\ne",[["a\nb\n\nc","d"],["e"]],null],
  ["t, u ,\" g \"",[["t"," u "," g "]],null],
  ["a,\"b\"",[["a","b"]],null],
  ["a,\"b\"\"",[],"parse error on line 1, column 7: extraneous or missing \" in quoted-field"],
  ["\"a\",\"b\",\"c\"\n\"d\"",[["a","b","c"],["d"]],null],
  ["a,b,c\n\"x\ny\"z,1\n",[["a","b","c"]],"record on line 2; parse error on line 3, column 2: extraneous or missing \" in quoted-field"],
  ["p,\"q\n\"\n",[["p","q\n"]],null],
  ["\"a\"\"b\"x",[],"parse error on line 1, column 6: extraneous or missing \" in quoted-field"],
  ["a,\"b\"\"\"c\n",[],"parse error on line 1, column 7: extraneous or missing \" in quoted-field"],
  ["\"x\"\"\ny\"z",[],"record on line 1; parse error on line 2, column 2: extraneous or missing \" in quoted-field"],
];

const bytes = (text: string): string => Buffer.from(text, 'utf8').toString('latin1');
const text = (b: string): string => Buffer.from(b, 'latin1').toString('utf8');

test('every record and error as Go read it', () => {
  for (const [input, records, error] of GO_ANSWERS) {
    if (error === null) {
      assert.deepEqual(readCsvRecords(bytes(input)).map((r) => r.map(text)), records, JSON.stringify(input));
    } else {
      assert.throws(() => readCsvRecords(bytes(input)), (e: unknown) => e instanceof CsvParseError && e.name === 'CsvParseError' && e.message === error, JSON.stringify(input));
    }
  }
});

test('a field keeps its bytes: invalid UTF-8 and a byte order mark come back as they were', () => {
  assert.deepEqual(readCsvRecords('\xff\xfe,\xef\xbb\xbfx\n'), [['\xff\xfe', '\xef\xbb\xbfx']]);
});
