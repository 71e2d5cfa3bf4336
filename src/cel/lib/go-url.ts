// Go's net/url parsing (Parse and ParseRequestURI) with its error texts, and the URL accessors
// Kubernetes' urls library answers from it (Hostname, Port, EscapedPath, Query).

export interface GoURL {
  scheme: string;
  opaque: string;
  user?: string;
  host: string;
  path: string;
  rawPath: string;
  rawQuery: string;
  fragment: string;
  forceQuery: boolean;
}

export class URLError extends Error {}

const fail = (op: string, raw: string, msg: string): URLError => new URLError(`${op} ${JSON.stringify(raw)}: ${msg}`);

function getScheme(raw: string): { scheme: string; rest: string } {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (/[a-zA-Z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return { scheme: '', rest: raw };
      continue;
    }
    if (c === ':') {
      if (i === 0) throw new Error('missing protocol scheme');
      return { scheme: raw.slice(0, i), rest: raw.slice(i + 1) };
    }
    return { scheme: '', rest: raw };
  }
  return { scheme: '', rest: raw };
}

const validOptionalPort = (port: string): boolean => port === '' || /^:[0-9]*$/.test(port);

/** Characters a host may hold unescaped (Go's shouldEscape in encodeHost mode). */
const HOST_OK = /^[A-Za-z0-9\-._~!$&'()*+,;=:[\]<>"]$/;

function unescape(s: string, host: boolean): string {
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '%') {
      const hex = s.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex) || (host && parseInt(hex[0]!, 16) < 8 && hex !== '25')) {
        throw new Error(`invalid URL escape ${JSON.stringify(s.slice(i, i + 3))}`);
      }
      bytes.push(parseInt(hex, 16));
      i += 2;
      continue;
    }
    if (host && c.charCodeAt(0) < 0x80 && !HOST_OK.test(c)) throw new Error(`invalid character ${JSON.stringify(c)} in host name`);
    bytes.push(...Buffer.from(c, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const i = host.lastIndexOf(']');
    if (i < 0) throw new Error("missing ']' in host");
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort)) throw new Error(`invalid port ${JSON.stringify(colonPort)} after host`);
  } else {
    const i = host.lastIndexOf(':');
    if (i >= 0) {
      const colonPort = host.slice(i);
      if (!validOptionalPort(colonPort)) throw new Error(`invalid port ${JSON.stringify(colonPort)} after host`);
    }
  }
  return unescape(host, true);
}

function parse(raw: string, viaRequest: boolean): GoURL {
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new Error('net/url: invalid control character in URL');
  if (raw === '' && viaRequest) throw new Error('empty url');
  const u: GoURL = { scheme: '', opaque: '', host: '', path: '', rawPath: '', rawQuery: '', fragment: '', forceQuery: false };
  if (raw === '*') {
    u.path = '*';
    return u;
  }
  const { scheme, rest: afterScheme } = getScheme(raw);
  u.scheme = scheme.toLowerCase();
  let rest = afterScheme;
  if (rest.endsWith('?') && rest.split('?').length === 2) {
    u.forceQuery = true;
    rest = rest.slice(0, -1);
  } else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      u.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (u.scheme !== '') {
      u.opaque = rest;
      return u;
    }
    if (viaRequest) throw new Error('invalid URI for request');
    const segment = rest.split('/')[0]!;
    if (segment.includes(':')) throw new Error('first path segment in URL cannot contain colon');
  }
  if ((u.scheme !== '' || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
    let authority = rest.slice(2);
    rest = '';
    const slash = authority.indexOf('/');
    if (slash >= 0) {
      rest = authority.slice(slash);
      authority = authority.slice(0, slash);
    }
    const at = authority.lastIndexOf('@');
    u.host = parseHost(at < 0 ? authority : authority.slice(at + 1));
    if (at >= 0) {
      const userinfo = authority.slice(0, at);
      if (!/^[A-Za-z0-9\-._~!$&'()*+,;=:%@]*$/.test(userinfo)) throw new Error('net/url: invalid userinfo');
      u.user = userinfo;
    }
  }
  u.path = unescape(rest, false);
  const escaped = escapePath(u.path);
  u.rawPath = escaped === rest ? '' : rest;
  return u;
}

/** url.Parse: the fragment is split off first, then the rest parsed leniently. */
export function goParse(raw: string): GoURL {
  const hash = raw.indexOf('#');
  const main = hash < 0 ? raw : raw.slice(0, hash);
  let u: GoURL;
  try {
    u = parse(main, false);
  } catch (err) {
    throw fail('parse', main, (err as Error).message);
  }
  if (hash >= 0) {
    try {
      u.fragment = unescape(raw.slice(hash + 1), false);
    } catch (err) {
      throw fail('parse', raw, (err as Error).message);
    }
  }
  return u;
}

/** url.ParseRequestURI: absolute URIs and absolute paths only, the fragment kept in place. */
export function goParseRequestURI(raw: string): GoURL {
  try {
    return parse(raw, true);
  } catch (err) {
    throw fail('parse', raw, (err as Error).message);
  }
}

/** Path characters left unescaped (Go's shouldEscape in encodePath mode). */
const PATH_OK = /[A-Za-z0-9\-._~$&+,/:;=@!'()*]/;

function escapePath(p: string): string {
  let out = '';
  for (const byte of Buffer.from(p, 'utf8')) {
    const ch = String.fromCharCode(byte);
    out += byte < 0x80 && PATH_OK.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Go's validEncoded (encodePath): only characters a path may carry as they are, and escapes. */
const validEncoded = (s: string): boolean => [...s].every((ch) => ch === '%' || ch === '[' || ch === ']' || (ch.charCodeAt(0) < 0x80 && PATH_OK.test(ch)));

export function escapedPath(u: GoURL): string {
  if (u.rawPath && validEncoded(u.rawPath) && (() => {
    try {
      return unescape(u.rawPath, false) === u.path;
    } catch {
      return false;
    }
  })()) return u.rawPath;
  if (u.path === '*') return '*';
  return escapePath(u.path);
}

function splitHostPort(hostPort: string): { host: string; port: string } {
  let host = hostPort;
  let port = '';
  const colon = host.lastIndexOf(':');
  if (colon >= 0 && validOptionalPort(host.slice(colon))) {
    port = host.slice(colon + 1);
    host = host.slice(0, colon);
  }
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return { host, port };
}

export const hostname = (u: GoURL): string => splitHostPort(u.host).host;
export const port = (u: GoURL): string => splitHostPort(u.host).port;

/** url.ParseQuery, dropping what it rejects (URL.Query ignores the error). */
export function query(u: GoURL): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of u.rawQuery.split('&')) {
    if (part === '' || part.includes(';')) continue;
    const eq = part.indexOf('=');
    const [k, v] = eq < 0 ? [part, ''] : [part.slice(0, eq), part.slice(eq + 1)];
    try {
      const key = unescape(k.replace(/\+/g, ' '), false);
      const value = unescape(v.replace(/\+/g, ' '), false);
      out.set(key, [...(out.get(key) ?? []), value]);
    } catch {
      // an undecodable pair is dropped, as Go's Query() drops it
    }
  }
  return out;
}

/** URL.String(), for equality of kubernetes.URL values. */
export function urlString(u: GoURL): string {
  let s = '';
  if (u.scheme) s += `${u.scheme}:`;
  if (u.opaque) s += u.opaque;
  else {
    if (u.scheme || u.host || u.user !== undefined) {
      if (u.host || u.path || u.user !== undefined) s += '//';
      if (u.user !== undefined) s += `${u.user}@`;
      s += u.host;
    }
    const p = escapedPath(u);
    if (p && !p.startsWith('/') && u.host) s += '/';
    s += p;
  }
  if (u.forceQuery || u.rawQuery) s += `?${u.rawQuery}`;
  if (u.fragment) s += `#${u.fragment}`;
  return s;
}
