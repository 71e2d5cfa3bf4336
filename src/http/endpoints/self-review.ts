// The self-review APIs kubectl's `auth can-i` (also `--list`) and `auth whoami` call:
// SelfSubjectAccessReview, SelfSubjectRulesReview (authorization.k8s.io/v1) and
// SelfSubjectReview (authentication.k8s.io/v1). Bodies come as JSON, YAML or, from kubectl,
// protobuf; answers are JSON with 201, as kube-apiserver answers them. The spec is decoded as
// kube decodes it into its Go type (the shared body decoder's limits, JSON types checked,
// unknown fields dropped), so the spec echoed back is only ever the typed one: no client
// structure of any depth or size is sent back.

import type { HttpReply } from '../transport/exchange.js';
import { decodeEnvelope, protoMessage, protoString, PROTOBUF_CONTENT_TYPE, type ProtoMessage } from '../../apimachinery/protobuf-envelope.js';
import type { RequestContext } from '../../apimachinery/request-context.js';
import { decodeBody } from '../../apimachinery/decode.js';
import { isJsonMap } from '../../apimachinery/json-value.js';
import type { Schema } from '../../apimachinery/schema.js';
import { badRequest } from '../../apimachinery/status-error.js';
import { decodeTyped } from '../../apimachinery/typed-decode.js';
import type { AuthorizationAttributes, Authorizer } from '../../auth/authorizer.js';
import type { DiscoveryResource } from '../routes/discovery/discovery-documents.js';
import { bodyFormat } from './negotiation.js';
import { writeBody } from './response-writer.js';

type Review = 'selfsubjectaccessreviews' | 'selfsubjectrulesreviews' | 'selfsubjectreviews';

const REVIEWS: Record<Review, { group: string; kind: string }> = {
  selfsubjectaccessreviews: { group: 'authorization.k8s.io', kind: 'SelfSubjectAccessReview' },
  selfsubjectrulesreviews: { group: 'authorization.k8s.io', kind: 'SelfSubjectRulesReview' },
  selfsubjectreviews: { group: 'authentication.k8s.io', kind: 'SelfSubjectReview' },
};

/** Discovery entries for the review kinds (create only, cluster-wide). */
export const selfReviewDiscovery: readonly DiscoveryResource[] = Object.entries(REVIEWS).map(([plural, r]) => ({
  group: r.group,
  version: 'v1',
  kind: r.kind,
  plural,
  singular: '',
  scope: 'Cluster' as const,
  shortNames: [],
  categories: [],
  verbs: ['create'] as const,
  subresources: [],
}));

export function isSelfReview(group: string, version: string, resource: string): resource is Review {
  return version === 'v1' && resource in REVIEWS && REVIEWS[resource as Review].group === group;
}

interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
  fieldSelector?: { rawSelector?: string };
  labelSelector?: { rawSelector?: string };
}
interface ReviewSpec {
  resourceAttributes?: ResourceAttributes;
  nonResourceAttributes?: { path?: string; verb?: string };
  namespace?: string;
}

const str: Schema = { type: 'string' };
/** authorization/v1 FieldSelectorAttributes and LabelSelectorAttributes. */
const selectorAttributes: Schema = {
  type: 'object',
  properties: { rawSelector: str, requirements: { type: 'array', items: { type: 'object', properties: { key: str, operator: str, values: { type: 'array', items: str } } } } },
};
/** The Go types of the specs (SelfSubjectReview has none): what kube keeps of a client's spec. */
const SPEC_SCHEMAS: Record<Review, Schema> = {
  selfsubjectaccessreviews: {
    type: 'object',
    properties: {
      resourceAttributes: {
        type: 'object',
        properties: { namespace: str, verb: str, group: str, version: str, resource: str, subresource: str, name: str, fieldSelector: selectorAttributes, labelSelector: selectorAttributes },
      },
      nonResourceAttributes: { type: 'object', properties: { path: str, verb: str } },
    },
  },
  selfsubjectrulesreviews: { type: 'object', properties: { namespace: str } },
  selfsubjectreviews: { type: 'object', properties: {} },
};

/** The review's spec from a JSON, YAML or protobuf body. */
async function readSpec(review: Review, body: Buffer | undefined, contentType: string, ctx: RequestContext): Promise<ReviewSpec> {
  if (!body || body.length === 0) return {};
  if (contentType.startsWith(PROTOBUF_CONTENT_TYPE)) {
    // Fixed-depth reads of known fields: nothing a client nests deeper is ever parsed.
    const raw = decodeEnvelope(body).raw;
    // SelfSubjectRulesReview's spec holds just the namespace (field 1); the access review's holds attributes.
    if (review === 'selfsubjectrulesreviews') return { namespace: protoString(protoMessage(raw, 2), 1) };
    return review === 'selfsubjectaccessreviews' ? specFromProto(raw) : {};
  }
  // Too deep, malformed or a duplicate-ridden body is a 400 here, as for any other object.
  const { value } = await decodeBody(body, bodyFormat(contentType), { context: ctx });
  // Wrong JSON types are a 400 naming the field (`spec.resourceAttributes.verb`); unknown fields go.
  const typed: Record<string, unknown> = isJsonMap(value) && value.spec !== undefined ? { spec: value.spec } : {};
  decodeTyped(typed, { type: 'object', properties: { spec: SPEC_SCHEMAS[review] } }, {});
  return (typed.spec ?? {}) as ReviewSpec;
}

function specFromProto(raw: ProtoMessage): ReviewSpec {
  const spec = protoMessage(raw, 2);
  const ra = protoMessage(spec, 1);
  const nra = protoMessage(spec, 2);
  const out: ReviewSpec = {};
  if (ra) {
    const names = ['namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name'] as const;
    out.resourceAttributes = Object.fromEntries(names.map((n, i) => [n, protoString(ra, i + 1)]).filter(([, v]) => v !== ''));
  }
  if (nra) out.nonResourceAttributes = { path: protoString(nra, 1), verb: protoString(nra, 2) };
  return out;
}

export interface SelfReviewInput {
  review: Review;
  ctx: RequestContext;
  reply: HttpReply;
  body: Buffer | undefined;
  contentType: string;
  authorizer: Authorizer;
  /** The cluster-scoped resources served here, as `<group>/<resource>`: a namespace in a review is ignored for them. */
  clusterScoped: ReadonlySet<string>;
}

export async function handleSelfReview(input: SelfReviewInput): Promise<void> {
  const { group, kind } = REVIEWS[input.review];
  const spec = await readSpec(input.review, input.body, input.contentType, input.ctx);
  const user = input.ctx.user;
  let result: object;
  if (input.review === 'selfsubjectreviews') {
    // authentication/v1 UserInfo: uid, groups and extra are omitempty.
    result = { status: { userInfo: { username: user.username, ...(user.uid ? { uid: user.uid } : {}), groups: user.groups, ...(user.extra ? { extra: user.extra } : {}) } } };
  } else if (input.review === 'selfsubjectrulesreviews') {
    // kube's REST Create: the rules are always those of one namespace.
    if (!spec.namespace) throw badRequest('no namespace on request');
    const rules = await input.authorizer.rulesFor(user, spec.namespace);
    result = { spec: { namespace: spec.namespace }, status: rules };
  } else {
    const attrs = accessAttributes(spec, user, input.clusterScoped);
    const decision = await input.authorizer.authorize(attrs);
    const status: Record<string, unknown> = { allowed: decision.decision === 'allow' };
    if (decision.decision === 'deny') status.denied = true;
    if (decision.reason) status.reason = decision.reason;
    // An authorizer that could not decide (a webhook down) is reported, as kube reports it.
    if (decision.error) status.evaluationError = decision.error;
    result = { spec, status };
  }
  writeBody(input.reply, 201, { kind, apiVersion: `${group}/v1`, metadata: { creationTimestamp: null }, ...result }, { format: { kind: 'json' }, pretty: false });
}

function accessAttributes(spec: ReviewSpec, user: RequestContext['user'], clusterScoped: ReadonlySet<string>): AuthorizationAttributes {
  const ra = spec.resourceAttributes;
  if (!ra && spec.nonResourceAttributes) {
    const n = spec.nonResourceAttributes;
    return { user, verb: n.verb ?? '', isResourceRequest: false, path: n.path ?? '', apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '' };
  }
  if (!ra) throw badRequest('exactly one of nonResourceAttributes or resourceAttributes must be specified');
  const group = ra.group ?? '';
  return {
    user,
    verb: ra.verb ?? '',
    isResourceRequest: true,
    path: '',
    apiGroup: group,
    apiVersion: ra.version ?? '',
    resource: ra.resource ?? '',
    subresource: ra.subresource ?? '',
    // kubectl fills in its context's namespace even for cluster-scoped kinds.
    namespace: clusterScoped.has(`${group}/${ra.resource ?? ''}`) ? '' : (ra.namespace ?? ''),
    name: ra.name ?? '',
    // The selectors' raw form narrows the question as a request's query would.
    ...(ra.fieldSelector?.rawSelector ? { fieldSelector: ra.fieldSelector.rawSelector } : {}),
    ...(ra.labelSelector?.rawSelector ? { labelSelector: ra.labelSelector.rawSelector } : {}),
  };
}
