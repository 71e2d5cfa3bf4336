// The text checks Go's certificate parser makes: attribute value strings in names
// (parseASN1String), IA5 strings, domain labels (domainToReverseLabels), RFC 2821 mailboxes
// (parseRFC2821Mailbox, for email name constraints) and which URIs net/url.Parse accepts (for
// URI subject alternative names). Each answers only accept/reject, as parsing needs nothing more.

const T61 = 0x14;
const PRINTABLE = 0x13;
const UTF8 = 0x0c;
const BMP = 0x1e;
const IA5 = 0x16;
const NUMERIC = 0x12;

/** Go's isIA5String ranges over runes: any byte ≥ 0x80 (a non-ASCII rune or U+FFFD) is refused. */
export const isIA5 = (b: Uint8Array): boolean => b.every((c) => c < 0x80);

const isPrintable = (c: number): boolean =>
  (c >= 0x61 && c <= 0x7a) ||
  (c >= 0x41 && c <= 0x5a) ||
  (c >= 0x30 && c <= 0x39) ||
  (c >= 0x27 && c <= 0x29) ||
  (c >= 0x2b && c <= 0x2f) ||
  c === 0x20 ||
  c === 0x3a ||
  c === 0x3d ||
  c === 0x3f ||
  c === 0x2a || // '*' and '&' are not PrintableString, but Go permits them
  c === 0x26;

const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function validUtf8(b: Uint8Array): boolean {
  try {
    utf8Decoder.decode(b);
    return true;
  } catch {
    return false;
  }
}

/** parseASN1String: whether a name attribute value of `tag` is acceptable. */
export function attributeStringValid(tag: number, value: Uint8Array): boolean {
  switch (tag) {
    case T61:
      return true;
    case PRINTABLE:
      return value.every(isPrintable);
    case UTF8:
      return validUtf8(value);
    case BMP:
      // Only the length is checked (rejecting surrogates came after Go 1.24).
      return value.length % 2 === 0;
    case IA5:
      return isIA5(value);
    case NUMERIC:
      return value.every((c) => (c >= 0x30 && c <= 0x39) || c === 0x20);
    default:
      return false; // "unsupported string type"
  }
}

/**
 * domainToReverseLabels(...) succeeds: no empty label (so no trailing dot), characters 33–126.
 * It splits from the right and stops when the rest is empty, so one leading dot is dropped.
 */
export function domainLabelsValid(domain: string): boolean {
  if (domain.length === 0) return true;
  const labels = domain.split('.');
  if (labels.length > 1 && labels[0] === '') labels.shift();
  for (const label of labels) {
    if (label.length === 0) return false;
    for (const ch of label) {
      const c = ch.codePointAt(0)!;
      if (c < 33 || c > 126) return false;
    }
  }
  return true;
}

const QUOTED_OK = (c: number): boolean =>
  c === 11 || c === 12 || c === 32 || c === 33 || c === 127 || (c >= 1 && c <= 8) || (c >= 14 && c <= 31) || (c >= 35 && c <= 91) || (c >= 93 && c <= 126);
const ATOM_OK = (c: number): boolean => /[0-9A-Za-z!#$%&'*+\-/=?^_`{|}~.]/.test(String.fromCharCode(c));

/** parseRFC2821Mailbox succeeds. */
export function mailboxValid(input: string): boolean {
  if (input.length === 0) return false;
  let i = 0;
  const local: number[] = [];
  if (input.charCodeAt(0) === 0x22) {
    i = 1;
    for (;;) {
      if (i >= input.length) return false;
      const c = input.charCodeAt(i++);
      if (c === 0x22) break;
      if (c === 0x5c) {
        if (i >= input.length) return false;
        const n = input.charCodeAt(i);
        if (n === 11 || n === 12 || (n >= 1 && n <= 9) || (n >= 14 && n <= 127)) {
          local.push(n);
          i++;
        } else return false;
      } else if (QUOTED_OK(c)) local.push(c);
      else return false;
    }
  } else {
    while (i < input.length) {
      const c = input.charCodeAt(i);
      if (c === 0x5c) {
        i++;
        if (i >= input.length) return false;
        // Go falls through and appends the escaped byte whatever it is.
        local.push(input.charCodeAt(i));
        i++;
      } else if (ATOM_OK(c)) {
        local.push(c);
        i++;
      } else break;
    }
    if (local.length === 0 || local[0] === 0x2e || local[local.length - 1] === 0x2e) return false;
    for (let k = 1; k < local.length; k++) if (local[k] === 0x2e && local[k - 1] === 0x2e) return false;
  }
  if (i >= input.length || input[i] !== '@') return false;
  return domainLabelsValid(input.slice(i + 1));
}

const isHex = (c: string): boolean => /^[0-9A-Fa-f]$/.test(c);

type Mode = 'host' | 'zone' | 'other';

function shouldEscapeHost(c: number): boolean {
  if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39)) return false;
  if ("!$&'()*+,;=:[]<>\"".includes(String.fromCharCode(c))) return false;
  return !'-_.~'.includes(String.fromCharCode(c));
}

/** net/url's unescape: the unescaped text, or undefined on a bad escape or host character. */
function unescape(s: string, mode: Mode): string | undefined {
  let n = 0;
  for (let i = 0; i < s.length; ) {
    const c = s[i]!;
    if (c === '%') {
      n++;
      if (i + 2 >= s.length || !isHex(s[i + 1]!) || !isHex(s[i + 2]!)) return undefined;
      const v = parseInt(s.slice(i + 1, i + 3), 16);
      if (mode === 'host' && v >> 4 < 8 && s.slice(i, i + 3) !== '%25') return undefined;
      if (mode === 'zone' && s.slice(i, i + 3) !== '%25' && v !== 0x20 && shouldEscapeHost(v)) return undefined;
      i += 3;
    } else {
      const code = s.charCodeAt(i);
      if (mode !== 'other' && code < 0x80 && shouldEscapeHost(code)) return undefined;
      i++;
    }
  }
  if (n === 0) return s;
  return s.replace(/%([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
}

const validOptionalPort = (port: string): boolean => port === '' || /^:[0-9]*$/.test(port);

function parseHost(host: string): string | undefined {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']');
    if (i < 0 || !validOptionalPort(host.slice(i + 1))) return undefined;
    const zone = host.slice(0, i).indexOf('%25');
    if (zone >= 0) {
      const a = unescape(host.slice(0, zone), 'host');
      const b = unescape(host.slice(zone, i), 'zone');
      const c = unescape(host.slice(i), 'host');
      return a === undefined || b === undefined || c === undefined ? undefined : a + b + c;
    }
  } else {
    const i = host.lastIndexOf(':');
    if (i !== -1 && !validOptionalPort(host.slice(i))) return undefined;
  }
  return unescape(host, 'host');
}

/** url.Parse(text) succeeds: the URL's host (possibly empty), or undefined when it fails. */
export function goUrlHost(raw: string): string | undefined {
  const hash = raw.indexOf('#');
  const u = hash < 0 ? raw : raw.slice(0, hash);
  if (hash >= 0 && unescape(raw.slice(hash + 1), 'other') === undefined) return undefined;
  // Control characters fail in everything before the fragment (the fragment is only unescaped).
  if (/[\x00-\x1f\x7f]/.test(u)) return undefined;
  if (u === '*') return '';
  let scheme = '';
  let rest = u;
  for (let i = 0; i < u.length; i++) {
    const c = u[i]!;
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) break;
      continue;
    }
    if (c === ':') {
      if (i === 0) return undefined; // missing protocol scheme
      scheme = u.slice(0, i);
      rest = u.slice(i + 1);
    }
    break;
  }
  if (rest.endsWith('?') && rest.indexOf('?') === rest.length - 1) rest = rest.slice(0, -1);
  else if (rest.includes('?')) rest = rest.slice(0, rest.indexOf('?'));
  if (!rest.startsWith('/')) {
    if (scheme !== '') return ''; // opaque
    if (rest.split('/')[0]!.includes(':')) return undefined;
  }
  let host = '';
  if ((scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    const slash = authority.indexOf('/');
    rest = slash >= 0 ? authority.slice(slash) : '';
    if (slash >= 0) authority = authority.slice(0, slash);
    const at = authority.lastIndexOf('@');
    const h = parseHost(at < 0 ? authority : authority.slice(at + 1));
    if (h === undefined) return undefined;
    if (at >= 0) {
      const userinfo = authority.slice(0, at);
      if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo)) return undefined;
      const colon = userinfo.indexOf(':');
      const parts = colon < 0 ? [userinfo] : [userinfo.slice(0, colon), userinfo.slice(colon + 1)];
      if (parts.some((p) => unescape(p, 'other') === undefined)) return undefined;
    }
    host = h;
  }
  return unescape(rest, 'other') === undefined ? undefined : host;
}
