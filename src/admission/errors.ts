// The errors admission answers with, worded as kube's admission package words them:
// admission.NewForbidden (the object named by the request, its object, its generateName, or
// "Unknown") and Go's %v of a user.

import type { AdmissionAttributes } from '../apimachinery/admission.js';
import type { UserInfo } from '../apimachinery/request-context.js';
import { StatusError, groupResourceString, type StatusReason } from '../apimachinery/status-error.js';

/** The name kube's extractResourceName gives a request. */
export function requestName(a: AdmissionAttributes): string {
  if (a.name) return a.name;
  const meta = a.object?.metadata;
  if (!a.object) return 'Unknown';
  return meta?.name || meta?.generateName || 'Unknown';
}

/** `<resource>.<group> "<name>" is forbidden: <why>` (403), with kube's details. */
export function admissionForbidden(a: AdmissionAttributes, why: string): StatusError {
  const gr = { group: a.group, resource: a.resource };
  const name = requestName(a);
  return new StatusError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: `${groupResourceString(gr)} "${name}" is forbidden: ${why}`,
    reason: 'Forbidden',
    details: { name, group: gr.group, kind: gr.resource },
    code: 403,
  });
}

/** kube's reasonToCode for policy denials: the reason's own code, 422 otherwise. */
export function reasonCode(reason: string): number {
  switch (reason) {
    case 'Forbidden':
      return 403;
    case 'RequestEntityTooLarge':
      return 413;
    case 'Unauthorized':
      return 401;
    default:
      return 422;
  }
}

/** A copy of `err` with another reason and code (a policy's `reason`). */
export function withReason(err: StatusError, reason: string): StatusError {
  return new StatusError({ ...err.status, reason: reason as StatusReason, code: reasonCode(reason) });
}

const goSlice = (xs: readonly string[]): string => `[${xs.join(' ')}]`;

/** Go's %v of a *user.DefaultInfo: `&{name uid [groups] map[key:[values]]}`. */
export function goUserString(u: UserInfo): string {
  const extra = Object.keys(u.extra ?? {})
    .sort()
    .map((k) => `${k}:${goSlice(u.extra![k]!)}`)
    .join(' ');
  return `&{${u.username} ${u.uid ?? ''} ${goSlice(u.groups)} map[${extra}]}`;
}
