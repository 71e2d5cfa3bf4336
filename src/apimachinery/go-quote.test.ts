import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goQuote } from './go-quote.js';

// Each expected string is what Go's strconv.Quote printed for the same input (go 1.19).
test("goQuote prints a string as Go's strconv.Quote does", () => {
  const cases: [string, string][] = [
    ['plain', '"plain"'],
    ['', '""'],
    ['tab\there', '"tab\\there"'],
    ['nl\n', '"nl\\n"'],
    ['bell\x07', '"bell\\a"'],
    ['esc\x1b[0m', '"esc\\x1b[0m"'],
    ['del\x7f', '"del\\x7f"'],
    ['nul\x00', '"nul\\x00"'],
    ['quote"back\\slash', '"quote\\"back\\\\slash"'],
    ['é ü 日本', '"é ü 日本"'],
    ['nbsp\u00a0x', '"nbsp\\u00a0x"'],
    ['ls\u2028ps\u2029', '"ls\\u2028ps\\u2029"'],
    ['zwj\u200d', '"zwj\\u200d"'],
    ['bom\ufeff', '"bom\\ufeff"'],
    ['emoji😀', '"emoji😀"'],
    ['priv\ue000', '"priv\\ue000"'],
    ['\u{10ffff}', '"\\U0010ffff"'],
    ['soft\u00adhyphen', '"soft\\u00adhyphen"'],
    ['cr\r\v\f\b', '"cr\\r\\v\\f\\b"'],
    ['unassigned\u0378', '"unassigned\\u0378"'],
    ['combining e\u0301', '"combining e\u0301"'],
    ['space\u3000', '"space\\u3000"'],
    ['tag\u{e0041}', '"tag\\U000e0041"'],
  ];
  for (const [input, go] of cases) assert.equal(goQuote(input), go, JSON.stringify(input));
});
