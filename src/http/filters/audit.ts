// Filters: audit (kube's WithAuditInit and WithAudit). `auditInit` opens the request's audit
// trail before authentication, so refused requests are audited too, and closes it when the
// response is finished; `auditFilter`, once the identity (and any impersonation) is known,
// decides the level and records the RequestReceived stage. Inert without an audit log.

import type { AuditLog } from '../audit-log.js';
import { RequestAudit } from '../audit-log.js';
import { passThrough, type Filter, type RequestState } from './filter.js';

const identified = new WeakSet<RequestState>();

function identify(s: RequestState): void {
  if (!s.audit || identified.has(s)) return;
  identified.add(s);
  s.audit.identify(s.authenticated, s.impersonated, s.info, s.isPublic ? undefined : s.body);
}

export function auditInit(log: AuditLog | undefined): Filter {
  if (!log) return passThrough;
  return async (s, next) => {
    const audit = new RequestAudit(log, s.requestId, s.req, new Date());
    s.audit = audit;
    s.reply.raw.once('finish', () => audit.complete(s.reply.raw.statusCode));
    try {
      await next();
    } catch (err) {
      // Refused before the identity was settled (401, a refused impersonation): audit who we know.
      identify(s);
      throw err;
    }
  };
}

export const auditFilter: Filter = async (s, next) => {
  identify(s);
  return next();
};
