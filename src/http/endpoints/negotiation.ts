// Content negotiation: which representation a response takes (JSON, YAML, Table), and which
// format a request body is in. Unsupported ones are 406 / 415 Status errors.

import type { BodyFormat } from '../../apimachinery/decode.js';
import { notAcceptable, unsupportedMediaType } from '../../apimachinery/status-error.js';

export type ResponseFormat = { kind: 'json' } | { kind: 'yaml' } | { kind: 'table'; apiVersion: string };

interface MediaRange {
  type: string;
  params: Record<string, string>;
  q: number;
}

export function parseAccept(header: string | undefined): MediaRange[] {
  if (!header) return [];
  return header
    .split(',')
    .map((part) => {
      const [type, ...rest] = part.trim().split(';');
      const params: Record<string, string> = {};
      for (const p of rest) {
        const eq = p.indexOf('=');
        if (eq > 0) params[p.slice(0, eq).trim().toLowerCase()] = p.slice(eq + 1).trim();
      }
      return { type: (type ?? '').trim().toLowerCase(), params, q: params.q === undefined ? 1 : Number(params.q) };
    })
    .filter((m) => m.type && m.q > 0)
    .sort((a, b) => b.q - a.q);
}

const ACCEPTED = 'only the following media types are accepted: application/json, application/yaml';

/** `tableAllowed` for get, list and watch of resources. */
export function negotiateResponse(accept: string | undefined, tableAllowed: boolean): ResponseFormat {
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return { kind: 'json' };
  for (const r of ranges) {
    if (r.params.as) {
      if (r.params.as === 'Table' && tableAllowed && r.params.g === 'meta.k8s.io' && (r.params.v === 'v1' || r.params.v === 'v1beta1')) {
        return { kind: 'table', apiVersion: `meta.k8s.io/${r.params.v}` };
      }
      continue;
    }
    if (r.type === 'application/json' || r.type === 'application/*' || r.type === '*/*') return { kind: 'json' };
    if (r.type === 'application/yaml') return { kind: 'yaml' };
  }
  throw notAcceptable(ACCEPTED);
}

const BODY_TYPES = ['application/json', 'application/yaml'];

/** The format of a POST/PUT body; absent means JSON. */
export function bodyFormat(contentType: string | undefined): BodyFormat {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === '' || type === 'application/json' || type === '*/*') return 'json';
  if (type === 'application/yaml' || type === 'application/x-yaml' || type === 'text/yaml') return 'yaml';
  throw unsupportedMediaType(type, BODY_TYPES);
}
