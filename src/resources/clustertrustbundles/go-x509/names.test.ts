// The text checks of Go's certificate parser, one function at a time: name attribute strings
// (parseASN1String) over every byte value, domain labels (domainToReverseLabels), RFC 2821
// mailboxes (parseRFC2821Mailbox) and the host net/url.Parse gives (or its failure). The URL
// table was answered by Go's url.Parse; the rest follows crypto/x509's parser.go and verify.go.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { attributeStringValid, domainLabelsValid, goUrlHost, isIA5, mailboxValid } from './names.js';

const ALL_BYTES = Array.from({ length: 256 }, (_, i) => i);
/** The bytes of 0..255 for which `ok` holds, as text (for a readable diff). */
const accepted = (ok: (c: number) => boolean): string => String.fromCharCode(...ALL_BYTES.filter(ok));
const one = (tag: number) => (c: number) => attributeStringValid(tag, Uint8Array.of(c));

describe('name attribute strings (parseASN1String)', () => {
  test('PrintableString: Go’s set, with * and & allowed', () => {
    assert.equal(accepted(one(0x13)), " &'()*+,-./0123456789:=?ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz");
    assert.equal(attributeStringValid(0x13, Buffer.from('Example CA')), true);
    assert.equal(attributeStringValid(0x13, Buffer.from('Example_CA')), false);
    assert.equal(attributeStringValid(0x13, new Uint8Array(0)), true);
  });

  test('NumericString: digits and space', () => {
    assert.equal(accepted(one(0x12)), ' 0123456789');
    assert.equal(attributeStringValid(0x12, Buffer.from('12 34')), true);
    assert.equal(attributeStringValid(0x12, Buffer.from('12a')), false);
  });

  test('IA5String: ASCII only', () => {
    assert.equal(accepted(one(0x16)), String.fromCharCode(...ALL_BYTES.slice(0, 128)));
    assert.equal(attributeStringValid(0x16, Buffer.from('a@example.com')), true);
    assert.equal(attributeStringValid(0x16, Buffer.from([0x61, 0xc3, 0xa9])), false, 'é in UTF-8');
    assert.equal(isIA5(Buffer.from([0x7f])), true);
    assert.equal(isIA5(Buffer.from([0x80])), false);
  });

  test('UTF8String: valid UTF-8 only', () => {
    assert.equal(attributeStringValid(0x0c, Buffer.from('Ünïcode ✓ 😀', 'utf8')), true);
    assert.equal(attributeStringValid(0x0c, Buffer.from([0xef, 0xbb, 0xbf, 0x41])), true, 'a BOM is a character');
    for (const bad of [[0xc3], [0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0x80]]) {
      assert.equal(attributeStringValid(0x0c, Buffer.from(bad)), false, Buffer.from(bad).toString('hex'));
    }
  });

  test('BMPString: an even length, nothing more (surrogates were refused only after Go 1.24)', () => {
    assert.equal(attributeStringValid(0x1e, Buffer.from([0x00, 0x41, 0xd8, 0x00])), true);
    assert.equal(attributeStringValid(0x1e, new Uint8Array(0)), true);
    assert.equal(attributeStringValid(0x1e, Buffer.from([0x00, 0x41, 0x00])), false);
  });

  test('T61String: any bytes', () => {
    assert.equal(accepted(one(0x14)).length, 256);
  });

  test('every other tag is an unsupported string type', () => {
    const supported = [0x0c, 0x12, 0x13, 0x14, 0x16, 0x1e];
    for (let tag = 0; tag < 256; tag++) {
      assert.equal(attributeStringValid(tag, Buffer.from('  ')), supported.includes(tag), `tag 0x${tag.toString(16)}`);
    }
  });
});

describe('domain labels (domainToReverseLabels)', () => {
  test('labels of characters 33 to 126, none empty; one leading dot is dropped', () => {
    for (const ok of ['', 'a', 'example.com', '.example.com', '.a', '!~', 'a-b_c.d*e', '1.2.3.4', 'xn--bcher-kva.example']) assert.equal(domainLabelsValid(ok), true, ok);
    for (const bad of ['.', 'a.', 'example.com.', '..a', 'a..b', '.a.', 'a b', 'a\x7f', 'a\x20', 'é.com', 'a.\x00']) assert.equal(domainLabelsValid(bad), false, JSON.stringify(bad));
  });

  test('every character code is judged by its range', () => {
    assert.equal(accepted((c) => domainLabelsValid(String.fromCharCode(c))), String.fromCharCode(...ALL_BYTES.slice(33, 127)).replace('.', ''));
  });
});

describe('mailboxes (parseRFC2821Mailbox)', () => {
  test('dot-atom local parts', () => {
    for (const ok of ['a@example.com', "!#$%&'*+-/=?^_`{|}~@x", 'first.last@x', 'A9@x', 'a@', 'a@.x', 'a\\ b@x', 'a\\@b@c', 'a\\"@x']) assert.equal(mailboxValid(ok), true, ok);
    for (const bad of ['', '@x', '.a@x', 'a.@x', 'a..b@x', 'a', 'a b@x', 'a(b)@x', 'a,b@x', 'a@x.', 'a@x..y', 'a@b c', 'a\\', 'a"b@x', 'a[b]@x', 'a:b@x', 'a;b@x', 'a<b@x', 'a>b@x']) {
      assert.equal(mailboxValid(bad), false, JSON.stringify(bad));
    }
  });

  test('every atom character, alone as the local part', () => {
    assert.equal(accepted((c) => c !== 0x2e && c !== 0x5c && mailboxValid(`${String.fromCharCode(c)}@x`)), "!#$%&'*+-/0123456789=?ABCDEFGHIJKLMNOPQRSTUVWXYZ^_`abcdefghijklmnopqrstuvwxyz{|}~");
  });

  test('quoted local parts: qtext, quoted pairs, even empty', () => {
    for (const ok of ['"q u"@example.com', '""@x', '"a..b"@x', '".a"@x', '"a\\"b"@x', '"a\\\\b"@x', '"\\\x7f"@x', '"a\\\tb"@x']) assert.equal(mailboxValid(ok), true, JSON.stringify(ok));
    for (const bad of ['"a"', '"a"b@x', '"a', '"a\\', '"a\\\n"@x', '"a\\\r"@x', '"a\\\x00"@x', '"a\\\x80"@x', '"a"@x.', '"a\\b"c@x']) assert.equal(mailboxValid(bad), false, JSON.stringify(bad));
  });

  test('every quoted-string character, alone', () => {
    const q = (c: number) => mailboxValid(`"${String.fromCharCode(c)}"@x`);
    const expected = ALL_BYTES.filter((c) => c === 11 || c === 12 || c === 32 || c === 33 || c === 127 || (c >= 1 && c <= 8) || (c >= 14 && c <= 31) || (c >= 35 && c <= 91) || (c >= 93 && c <= 126));
    assert.deepEqual(ALL_BYTES.filter(q), expected);
    const pair = (c: number) => mailboxValid(`"\\${String.fromCharCode(c)}"@x`);
    assert.deepEqual(ALL_BYTES.filter(pair), ALL_BYTES.filter((c) => c === 11 || c === 12 || (c >= 1 && c <= 9) || (c >= 14 && c <= 127)));
  });
});

describe('URL hosts (net/url.Parse)', () => {
  /** [text, the URL's host, or undefined when url.Parse fails], as Go 1.19's url.Parse answered. */
  const URLS: [string, string | undefined][] = [
    ['http://a/b', 'a'],
    ['http://example.com', 'example.com'],
    ['https://user:pw@example.com:8443/p?q=1#f', 'example.com:8443'],
    ['spiffe://example.org/ns/a', 'example.org'],
    ['http://h/#%', undefined],
    ['http://h/#%4', undefined],
    ['http://h/#%41', 'h'],
    ['http://h/#%zz', undefined],
    ['http://h/#\x01', 'h'],
    ['http://h\x01/', undefined],
    ['http://h/\x7f', undefined],
    ['*', ''],
    ['http://[::1]:80/', '[::1]:80'],
    ['http://[::1]/', '[::1]'],
    ['http://[::1', undefined],
    ['http://[::1]x/', undefined],
    ['http://[::1]:8a/', undefined],
    ['http://host:port/', undefined],
    ['http://host:80/', 'host:80'],
    ['http://host:/', 'host:'],
    ['http://a b/', undefined],
    ['http://%41/', undefined],
    ['http://%zz/', undefined],
    ['http://%2/', undefined],
    ['http://h/%', undefined],
    ['http://h/%4', undefined],
    ['http://h/%41', 'h'],
    ['//h/p', 'h'],
    ['///h/p', ''],
    ['a:b', ''],
    [':x', undefined],
    ['x/y:z', ''],
    ['x:y/z', ''],
    ['1a:b', undefined],
    ['a1:b', ''],
    ['a+b-c.d:e', ''],
    ['-a:b', undefined],
    ['http://h.', 'h.'],
    ['http://.h', '.h'],
    ['http://a..b', 'a..b'],
    ['mailto:x@y', ''],
    ['http://u@h@h2/', 'h2'],
    ['http://u:p:q@h/', 'h'],
    ['http://u%41@h/', 'h'],
    ['http://u%zz@h/', undefined],
    ['http://u^@h/', undefined],
    ['http://[fe80::1%25eth0]/', '[fe80::1%eth0]'],
    ['http://[fe80::1%25en%200]/', '[fe80::1%en 0]'],
    ['http://[fe80::1%25en%2f0]/', undefined],
    ['http://[fe80::1%25en%3a0]/', '[fe80::1%en:0]'],
    ['http://[fe80::1%eth0]/', undefined],
    ['http://[fe80::1%25eth0]:80/', '[fe80::1%eth0]:80'],
    ['http://[fe80::1%25%zz]/', undefined],
    ['http://h/?q', 'h'],
    ['http://h?', 'h'],
    ['http://h?x/y', 'h'],
    ['?x', ''],
    ['http://h?a?b', 'h'],
    ['a?b:c', ''],
    ['/abs/path', ''],
    ['rel/path', ''],
    ['http://h%25/', 'h%'],
    ['http://h%20/', undefined],
    ['http:', ''],
    ['http:/', ''],
    ['http://', ''],
    ['http:///', ''],
    ['http:opaque', ''],
    ['HTTP://H/', 'H'],
    ["http://h!$&'()*+,;=/", "h!$&'()*+,;="],
    ['http://h"/', 'h"'],
    ['http://h<>/', 'h<>'],
    ['http://h{/', undefined],
    ['http://h~_-./', 'h~_-.'],
    ['http://h:8080:90/', 'h:8080:90'],
    ['http://[::1]%25/', undefined],
    ['http://[::1%25a]:x/', undefined],
    ['x:/\x01', undefined],
    ['file:///etc', ''],
    ['a:%zz', ''],
    ['a:/%zz', undefined],
    ['a#%zz', undefined],
  ];

  for (const [text, host] of URLS) {
    test(`url.Parse(${JSON.stringify(text)})`, () => {
      assert.equal(goUrlHost(text), host);
    });
  }

  /** Each ASCII character put at `$` in these URLs: the ones url.Parse accepts there (Go 1.19 answered). */
  const SWEEPS: [string, string][] = [
    ['http://a$b/', "!\"#$&\'()*+,-./0123456789;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[]_abcdefghijklmnopqrstuvwxyz~"],
    ['http://a$b@h/', "!#$&\'()*+,-./0123456789:;=?@ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz~"],
    ['http://h/a$b', " !\"#$&\'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~"],
    ['http://h/?a$b', " !\"#$%&\'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~"],
    ['http://h/#a$b', "\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000b\f\r\u000e\u000f\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f !\"#$&\'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~\u007f"],
    ['a$b:x', "#+-./0123456789:?ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"],
    ['$ab:x', "#/?ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"],
    ['a$b/c:d', " !\"#$&\'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~"],
    ['http://[fe80::1%25a$b]/', "!\"$&\'()*+,-.0123456789:;<=>ABCDEFGHIJKLMNOPQRSTUVWXYZ[]_abcdefghijklmnopqrstuvwxyz~"],
    ['http://h:1$/', "#/0123456789:?@"],
  ];

  for (const [template, acceptedChars] of SWEEPS) {
    test(`url.Parse(${JSON.stringify(template)}) for every ASCII character at $`, () => {
      const ascii = Array.from({ length: 128 }, (_, i) => String.fromCharCode(i));
      assert.equal(ascii.filter((c) => goUrlHost(template.replace('$', c)) !== undefined).join(''), acceptedChars);
    });
  }

  test('escaped bytes from 0x80 are allowed in a host (as bytes), not in a zone', () => {
    assert.equal(goUrlHost('http://%7F/'), undefined);
    assert.equal(goUrlHost('http://%80/'), '\x80');
    assert.equal(goUrlHost('http://h%C3%A9/'), 'h\xc3\xa9');
    assert.equal(goUrlHost('http://[fe80::1%25%C3%A9]/'), undefined, 'but not in a zone');
  });
});
