// The audit log (--audit-log-path): one audit.k8s.io/v1 Event JSON line per request stage, at
// the level the audit policy gives the request. Credentials never appear: headers are not
// recorded, and bodies only at the Request / RequestResponse levels.

import { createWriteStream, type WriteStream } from 'node:fs';
import type { HttpRequest } from '../transport/exchange.js';
import type { RequestInfo, UserInfo } from '../../apimachinery/request-context.js';
import { checkJsonShape } from '../../apimachinery/json-value.js';
import { auditLevel, type AuditLevel, type AuditPolicy, type AuditStage } from '../../auth/audit/audit-policy.js';
import { noopAuditObserver, type AuditObserver } from '../../auth/audit/audit-observer.js';
import type { AuthorizationResult } from '../../auth/authorizer.js';

export class AuditLog {
  private readonly stream: WriteStream;

  constructor(
    path: string,
    readonly policy: AuditPolicy,
    private readonly observer: AuditObserver = noopAuditObserver,
  ) {
    this.stream = createWriteStream(path, { flags: 'a', mode: 0o600 });
    this.stream.on('error', () => observer.error());
  }

  write(event: object): void {
    this.observer.event();
    this.stream.write(`${JSON.stringify(event)}\n`);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.stream.end(resolve));
  }
}

/** RFC 3339 with microseconds, as audit events carry them. */
const microTime = (d: Date): string => d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

const userJson = (u: UserInfo): object => ({ username: u.username, ...(u.uid ? { uid: u.uid } : {}), groups: u.groups, ...(u.extra ? { extra: u.extra } : {}) });

/** One request's audit trail; inert at level None. */
export class RequestAudit {
  private level: AuditLevel = 'None';
  private omit: AuditStage[] = [];
  private event: Record<string, unknown>;
  private readonly annotations: Record<string, string> = {};
  private responseBody: Buffer | undefined;
  /**
   * Set when the request timeout answered 504 while the handler still worked (audit.ts): the
   * code that work ended with, which completes the trail.
   */
  abandonedWork: Promise<number> | undefined;

  constructor(
    private readonly log: AuditLog,
    auditID: string,
    req: HttpRequest,
    private readonly received: Date,
  ) {
    this.event = {
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      auditID,
      requestURI: req.url,
      verb: req.method.toLowerCase(),
      user: { username: '', groups: [] },
      sourceIPs: [req.ip],
      userAgent: req.headers['user-agent'] ?? '',
      requestReceivedTimestamp: microTime(received),
    };
  }

  /** Who asked (and as whom), and about what; decides the level. Call once authentication is known. */
  identify(user: UserInfo | undefined, impersonated: UserInfo | undefined, info: RequestInfo, body: Buffer | undefined): void {
    const subject = impersonated ?? user ?? { username: '', groups: [] };
    ({ level: this.level, omitStages: this.omit } = auditLevel(this.log.policy, { ...info, user: subject }));
    if (this.level === 'None') return;
    this.event.level = this.level;
    this.event.verb = info.verb;
    if (user) this.event.user = userJson(user);
    if (impersonated) this.event.impersonatedUser = userJson(impersonated);
    if (info.isResourceRequest) {
      const ref: Record<string, string> = { resource: info.resource, apiGroup: info.apiGroup, apiVersion: info.apiVersion };
      if (info.name) ref.name = info.name;
      if (info.namespace) ref.namespace = info.namespace;
      if (info.subresource) ref.subresource = info.subresource;
      this.event.objectRef = ref;
    }
    if ((this.level === 'Request' || this.level === 'RequestResponse') && body?.length) {
      const parsed = tryJson(body);
      if (parsed !== undefined) this.event.requestObject = parsed;
    }
    this.emit('RequestReceived');
  }

  authorized(result: AuthorizationResult): void {
    // A request refused because an authorizer failed carries only kube's "internal error" reason.
    if (result.decision !== 'allow' && result.error) {
      this.annotations['authorization.k8s.io/reason'] = 'internal error';
      return;
    }
    this.annotations['authorization.k8s.io/decision'] = result.decision === 'allow' ? 'allow' : 'forbid';
    this.annotations['authorization.k8s.io/reason'] = result.reason;
  }

  /** An annotation on the stages still to come. */
  annotate(key: string, value: string): void {
    this.annotations[key] = value;
  }

  get wantsResponseBody(): boolean {
    return this.level === 'RequestResponse';
  }

  responseBodyWas(body: Buffer): void {
    this.responseBody = body;
  }

  /** For long-running requests (watch): the response has begun. */
  responseStarted(code: number): void {
    this.emit('ResponseStarted', code);
  }

  complete(code: number): void {
    if (this.level === 'RequestResponse' && this.responseBody) {
      const parsed = tryJson(this.responseBody);
      if (parsed !== undefined) this.event.responseObject = parsed;
    }
    this.emit('ResponseComplete', code);
  }

  private emit(stage: AuditStage, code?: number): void {
    if (this.level === 'None' || this.omit.includes(stage)) return;
    const event: Record<string, unknown> = { ...this.event, stage, stageTimestamp: microTime(new Date()) };
    if (code !== undefined) event.responseStatus = { metadata: {}, code };
    if (stage !== 'ResponseComplete') delete event.responseObject;
    if (Object.keys(this.annotations).length) event.annotations = { ...this.annotations };
    this.log.write(event);
  }
}

function tryJson(b: Buffer): unknown {
  try {
    const value: unknown = JSON.parse(b.toString('utf8'));
    // A body the handler refuses as too deep is not recorded either (encoding it could overflow).
    return checkJsonShape(value) ? undefined : value;
  } catch {
    return undefined;
  }
}
