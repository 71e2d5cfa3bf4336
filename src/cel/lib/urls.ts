// Kubernetes' urls library: url(), isURL() and the kubernetes.URL accessors, over Go's URL
// parsing (go-url.ts): a URL must be an absolute URI or an absolute path (ParseRequestURI).

import { fn, method, type Overload } from '../functions.js';
import { T } from '../types.js';
import { CelError, CelMap, Opaque, type CelResult } from '../values.js';
import { traversal } from './cost.js';
import { escapedPath, goParse, goParseRequestURI, hostname, port, query, urlString, type GoURL } from './go-url.js';

export const URL_TYPE = 'kubernetes.URL';

export class URLValue extends Opaque {
  readonly typeName = URL_TYPE;
  constructor(readonly url: GoURL) {
    super();
  }
  equals(other: Opaque): boolean {
    return other instanceof URLValue && urlString(this.url) === urlString(other.url);
  }
}

function toURL(s: string): CelResult {
  try {
    goParseRequestURI(s);
    return new URLValue(goParse(s));
  } catch (err) {
    return new CelError(`URL parse error during conversion from string: ${(err as Error).message}`);
  }
}

function isURL(s: string): boolean {
  try {
    goParseRequestURI(s);
    return true;
  } catch {
    return false;
  }
}

const U = T.opaque(URL_TYPE);

export const urlOverloads: Overload[] = [
  fn('string_to_url', 'url', [T.string], U, toURL, (args) => traversal(args[0]!)),
  fn('is_url_string', 'isURL', [T.string], T.bool, isURL),
  method('url_get_scheme', 'getScheme', [U], T.string, (u: URLValue) => u.url.scheme),
  method('url_get_host', 'getHost', [U], T.string, (u: URLValue) => u.url.host),
  method('url_get_hostname', 'getHostname', [U], T.string, (u: URLValue) => hostname(u.url)),
  method('url_get_port', 'getPort', [U], T.string, (u: URLValue) => port(u.url)),
  method('url_get_escaped_path', 'getEscapedPath', [U], T.string, (u: URLValue) => escapedPath(u.url)),
  method('url_get_query', 'getQuery', [U], T.map(T.string, T.list(T.string)), (u: URLValue) => CelMap.fromEntries([...query(u.url)].map(([k, v]) => [k, v] as const))),
];
