// Filter: impersonation (kube's WithImpersonation). With Impersonate-* headers, each part of the
// requested identity is authorized (verb impersonate) for the real user; the request then acts
// as the new identity. Repeated headers stay apart (each Impersonate-Group is one group).

import type { HttpRequest } from '../transport/exchange.js';
import type { Authorizer } from '../../auth/authorizer.js';
import type { UserInfo } from '../../apimachinery/request-context.js';
import { resolveImpersonation, wantsImpersonation } from '../../auth/impersonation.js';
import { filter, type Filter, type RequestState } from './filter.js';

export function impersonationFilter(authorizer: Authorizer): Filter {
  return filter({
    enter(s) {
      if (s.authenticated && wantsImpersonation(s.req.headers)) return impersonate(s, s.authenticated, authorizer);
    },
  });
}

async function impersonate(s: RequestState, user: UserInfo, authorizer: Authorizer): Promise<void> {
  s.impersonated = await resolveImpersonation(user, distinctHeaders(s.req), authorizer);
}

/**
 * Request headers with every occurrence kept apart. HTTP/1.1 requests have
 * `headersDistinct`; HTTP/2 ones are rebuilt from their raw headers.
 */
function distinctHeaders(req: HttpRequest): Record<string, string[]> {
  if (req.raw.headersDistinct) return req.raw.headersDistinct as Record<string, string[]>;
  const out: Record<string, string[]> = {};
  const raw = req.raw.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) (out[raw[i]!.toLowerCase()] ??= []).push(raw[i + 1]!);
  return out;
}
