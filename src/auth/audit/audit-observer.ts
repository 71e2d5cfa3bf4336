// What auditing reports for metrics (kube's apiserver_audit_event_total and
// apiserver_audit_error_total), through an interface the audit code owns.

export interface AuditObserver {
  /** One audit event was generated and handed to the backend. */
  event(): void;
  /** Audit events could not be written (the log file failed). */
  error(): void;
}

export const noopAuditObserver: AuditObserver = { event() {}, error() {} };
