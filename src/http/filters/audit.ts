// Filters: audit (kube's WithAuditInit and WithAudit). `auditInit` opens the request's audit
// trail before authentication, so refused requests are audited too, and closes it when the
// response is finished; `auditFilter`, once the identity (and any impersonation) is known,
// decides the level and records the RequestReceived stage. Inert without an audit log. A request
// the timeout answered 504 while its work went on is completed when the work is over, with the
// work's outcome (a write that committed is recorded as committed).

import type { AuditLog } from './audit-log.js';
import { RequestAudit } from './audit-log.js';
import { filter, passThrough, type Filter, type RequestState } from './filter.js';
import { observeResponseBody } from '../endpoints/response-writer.js';

const identified = new WeakSet<RequestState>();
/** Marks the trail of a request whose client got the request timeout's 504 before its work ended. */
export const TIMED_OUT_ANNOTATION = 'apiserver.platform.io/request-timed-out';

function identify(s: RequestState): void {
  if (!s.audit || identified.has(s)) return;
  identified.add(s);
  const audit = s.audit;
  audit.identify(s.authenticated, s.impersonated, s.info, s.isPublic ? undefined : s.body);
  if (audit.wantsResponseBody) observeResponseBody(s.reply, (body) => audit.responseBodyWas(body));
}

export function auditInit(log: AuditLog | undefined): Filter {
  if (!log) return passThrough;
  return filter({
    enter(s) {
      open(log, s);
    },
    leave(s, failed) {
      // Refused before the identity was settled (401, a refused impersonation): audit who we know.
      if (failed) identify(s);
      // Answered 504 by the timeout (inside this filter) while the handler still worked: the
      // trail's end waits for that work (see open). Handed over here, before the 504 is written.
      if (s.abandonedWork) s.audit!.abandonedWork = s.abandonedWork;
    },
  });
}

function open(log: AuditLog, s: RequestState): void {
  const audit = new RequestAudit(log, s.requestId, s.req, new Date());
  s.audit = audit;
  // The trail ends when the response does: written ('finish'), or cut off after it began
  // ('close' alone: the client went away mid-body, or a body still being written at the
  // request's deadline, or a watch's client left). The listeners hold the trail and the
  // response, not the request's state: a watch keeps them for its life. ('on': each event
  // comes once, and a 'once' wrapper would be kept as long.)
  const res = s.reply.raw;
  let ended = false;
  const end = (): void => {
    if (ended) return;
    ended = true;
    // Answered 504 by the timeout while the handler still worked: its trail ends when the work
    // does, with the work's own outcome (as kube's audit, inside its timeout filter, records
    // what the handler wrote), and says that the client was told 504.
    const abandoned = audit.abandonedWork;
    if (!abandoned) return audit.complete(res.statusCode);
    const answered = res.statusCode;
    void abandoned.then((code) => {
      audit.annotate(TIMED_OUT_ANNOTATION, `the client was answered ${answered} before the request's work ended`);
      audit.complete(code);
    });
  };
  res.on('finish', end);
  res.on('close', () => {
    if (res.headersSent) end();
  });
}

export const auditFilter = filter({
  enter(s) {
    identify(s);
  },
});
