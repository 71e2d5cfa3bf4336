// Admission webhooks end to end, with real HTTPS peers on loopback: the AdmissionReview kube
// sends (v1 and v1beta1), a deny-all webhook, webhooks unreachable, slow, answering garbage or
// behind an unknown CA under both failure policies, validating webhooks called in parallel,
// mutating webhooks adding labels (the result validated again) and fighting over a label
// (reinvocation), dry-run, match conditions, audit annotations and the webhook metrics.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { startInProcessServer } from './in-process-server.js';
import type { TestServer } from './harness.js';
import { startHttpsPeer, type HttpsPeer } from '../support/https-peer.js';
import { eventually } from '../support/polling.js';
import { createAll, MWC, SC, serviceCIDR, untilAnswered, VWC } from '../support/admission-fixtures.js';

interface Review {
  apiVersion: string;
  request: any;
}

/** What the peer saw, by path: each AdmissionReview received. */
const received = new Map<string, Review[]>();
const held: (() => void)[] = [];

function answer(res: ServerResponse, review: Review, response: Record<string, unknown>): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  const uid = review.apiVersion === 'admission.k8s.io/v1' ? { uid: review.request.uid } : {};
  res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { ...uid, allowed: true, ...response } }));
}

const jsonPatch = (ops: unknown[]) => ({ patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') });
const labelOf = (r: Review, key: string): string | undefined => r.request.object?.metadata?.labels?.[key];

/** The webhook server: one path per behaviour. */
function handle(path: string, review: Review, res: ServerResponse): void {
  received.set(path, [...(received.get(path) ?? []), review]);
  switch (path) {
    case '/allow':
      return answer(res, review, {});
    case '/deny':
      return answer(res, review, { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'no ServiceCIDR may carry this label' }, warnings: ['checked by deny.example.com'], auditAnnotations: { verdict: 'denied' } });
    case '/add-label':
      return answer(res, review, jsonPatch([{ op: 'add', path: '/metadata/labels/added-by', value: 'webhook' }, { op: 'add', path: '/spec/unknownField', value: 'dropped' }]));
    case '/break-cidrs':
      return answer(res, review, jsonPatch([{ op: 'replace', path: '/spec/cidrs', value: ['not-a-cidr'] }]));
    case '/fight-a':
    case '/fight-b': {
      const want = path === '/fight-a' ? 'a' : 'b';
      return answer(res, review, labelOf(review, 'owner') === want ? {} : jsonPatch([{ op: 'add', path: '/metadata/labels/owner', value: want }]));
    }
    case '/together-a':
    case '/together-b': {
      // Each answers only once both have arrived: they must be called at the same time.
      held.push(() => answer(res, review, {}));
      if (held.length === 2) for (const release of held.splice(0)) release();
      return;
    }
    default:
      res.writeHead(404).end();
  }
}

describe('admission webhooks', () => {
  let server: TestServer;
  let peer: HttpsPeer;
  let slow: HttpsPeer;
  let garbage: HttpsPeer;
  let down: HttpsPeer;
  let stranger: HttpsPeer;
  const ca = (p: HttpsPeer) => Buffer.from(p.caPem).toString('base64');
  const audit = (): any[] => readFileSync(join(server.dataDir, 'audit.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const auditOf = (id: unknown) => eventually(async () => audit().filter((e) => e.auditID === id && e.stage === 'ResponseComplete'), (e) => e.length > 0, 10_000, 50).then((e) => e[0]);

  /** One webhook, scoped to ServiceCIDRs carrying `hook=<selector>`. */
  const hook = (name: string, p: HttpsPeer, path: string, selector: string, more: Record<string, unknown> = {}) => ({
    name,
    clientConfig: { url: `${p.url}${path}`, caBundle: ca(p) },
    rules: [{ operations: ['CREATE', 'UPDATE', 'DELETE'], apiGroups: ['networking.platform.io'], apiVersions: ['v1'], resources: ['servicecidrs'] }],
    objectSelector: { matchLabels: { hook: selector } },
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...more,
  });
  const validating = (name: string, webhooks: unknown[]) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name }, webhooks });
  const mutating = (name: string, webhooks: unknown[]) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name }, webhooks });
  const labelled = (name: string, selector: string, cidr = '10.96.0.0/24') => serviceCIDR(name, [cidr], { hook: selector });

  before(async () => {
    const route = (req: { url?: string }, body: string, res: ServerResponse) => handle((req.url ?? '').split('?')[0]!, JSON.parse(body) as Review, res);
    [peer, slow, garbage, down, stranger] = await Promise.all([startHttpsPeer(route), startHttpsPeer(route), startHttpsPeer(route), startHttpsPeer(route), startHttpsPeer(route)]);
    slow.mode = 'slow';
    garbage.mode = 'garbage';
    await down.setDown(true);
    server = await startInProcessServer({ audit: true });
  });
  after(async () => {
    await server?.stop();
    await Promise.all([peer, slow, garbage, down, stranger].map((p) => p?.stop()));
  });

  test('a deny-all webhook: its Status behind kube\'s wording, its warnings and audit annotations; the AdmissionReview as kube sends it', async () => {
    await createAll(server, [[VWC, validating('deny', [hook('deny.example.com', peer, '/deny', 'deny')])]]);
    const r = await untilAnswered(server, SC, labelled('denied', 'deny'), 403);
    assert.deepEqual(r.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'admission webhook "deny.example.com" denied the request: no ServiceCIDR may carry this label', reason: 'Forbidden', code: 403 });
    assert.equal(r.headers.warning, '299 - "checked by deny.example.com"');
    const real = await server.request('POST', SC, { body: labelled('denied', 'deny') });
    assert.equal(real.status, 403);
    assert.equal((await auditOf(real.headers['audit-id'])).annotations['deny.example.com/verdict'], 'denied');
    const review = received.get('/deny')!.at(-1)!;
    assert.equal(review.apiVersion, 'admission.k8s.io/v1');
    const { uid, object, ...request } = review.request;
    assert.match(uid, /^[0-9a-f-]{36}$/);
    assert.deepEqual(object.metadata.labels, { hook: 'deny' });
    assert.deepEqual(request, {
      kind: { group: 'networking.platform.io', version: 'v1', kind: 'ServiceCIDR' },
      resource: { group: 'networking.platform.io', version: 'v1', resource: 'servicecidrs' },
      requestKind: { group: 'networking.platform.io', version: 'v1', kind: 'ServiceCIDR' },
      requestResource: { group: 'networking.platform.io', version: 'v1', resource: 'servicecidrs' },
      name: 'denied',
      operation: 'CREATE',
      userInfo: { username: 'admin', uid: 'admin', groups: ['system:masters', 'system:authenticated'] },
      oldObject: null,
      dryRun: false,
      options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
    });
    // Webhooks never see admission configuration: a catch-all deny does not lock them.
    const all = hook('deny-all.example.com', peer, '/deny', 'deny');
    const created = await server.request('POST', VWC, { body: validating('deny-all', [{ ...all, rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }], objectSelector: {} }]) });
    assert.equal(created.status, 201);
    await untilAnswered(server, SC, serviceCIDR('anything', ['10.96.1.0/24']), 403);
    assert.equal((await server.request('DELETE', `${VWC}/deny-all`)).status, 200);
    assert.equal((await untilAnswered(server, SC, serviceCIDR('anything', ['10.96.1.0/24']), 201)).status, 201);
  });

  test('unreachable, slow, garbage-answering and unknown-CA webhooks: failurePolicy Fail answers 500 in kube\'s words', async () => {
    const failing = [
      hook('down.example.com', down, '/allow', 'down'),
      hook('slow.example.com', slow, '/allow', 'slow', { timeoutSeconds: 1 }),
      hook('garbage.example.com', garbage, '/allow', 'garbage'),
      { ...hook('stranger.example.com', stranger, '/allow', 'stranger'), clientConfig: { url: `${stranger.url}/allow`, caBundle: ca(peer) } },
    ];
    await createAll(server, [[VWC, validating('failing-closed', failing)]]);
    const expect = async (selector: string, detail: string) => {
      const r = await untilAnswered(server, SC, labelled(`${selector}-1`, selector), 500, 20_000);
      assert.equal(r.status, 500, r.text);
      const message = `Internal error occurred: failed calling webhook "${selector}.example.com": failed to call webhook: ${detail}`;
      assert.deepEqual(r.json, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'InternalError', details: { causes: [{ message: message.replace('Internal error occurred: ', '') }] }, code: 500 });
    };
    await expect('down', `Post "${down.url}/allow?timeout=10s": dial tcp 127.0.0.1:${down.port}: connect: connection refused`);
    await expect('slow', `Post "${slow.url}/allow?timeout=1s": context deadline exceeded`);
    await expect('garbage', "couldn't get version/kind; json parse error: invalid character 'o' in literal null (expecting 'u')");
    await expect('stranger', `Post "${stranger.url}/allow?timeout=10s": tls: failed to verify certificate: x509: certificate signed by unknown authority`);
    const m = (await server.request('GET', '/metrics')).text;
    assert.match(m, /apiserver_admission_webhook_rejection_count\{name="down\.example\.com",type="validating",operation="CREATE",error_type="calling_webhook_error",rejection_code="503"\} [1-9]/);
    assert.match(m, /apiserver_admission_webhook_request_total\{name="slow\.example\.com",type="validating",operation="CREATE",code="503",rejected="true"\} [1-9]/);
  });

  test('failurePolicy Ignore lets the request through and records the failed-open webhook', async () => {
    await createAll(server, [
      [
        VWC,
        validating('failing-open', [
          hook('down-open.example.com', down, '/allow', 'down-open', { failurePolicy: 'Ignore' }),
          hook('garbage-open.example.com', garbage, '/allow', 'down-open', { failurePolicy: 'Ignore' }),
          hook('slow-open.example.com', slow, '/allow', 'down-open', { failurePolicy: 'Ignore', timeoutSeconds: 1 }),
          // A matchCondition that errs under Ignore skips its webhook (a deny-all here).
          hook('erring-open.example.com', peer, '/deny', 'down-open', { failurePolicy: 'Ignore', matchConditions: [{ name: 'missing-key', expression: "object.metadata.labels['absent'] == 'x'" }] }),
        ]),
      ],
    ]);
    const r = await untilAnswered(server, SC, labelled('open-1', 'down-open'), 201);
    assert.equal(r.status, 201, r.text);
    const created = await server.request('POST', SC, { body: labelled('open-1', 'down-open') });
    assert.equal(created.status, 201);
    const annotations = (await auditOf(created.headers['audit-id'])).annotations;
    assert.deepEqual(
      Object.entries(annotations).filter(([k]) => k.startsWith('failed-open.')).map(([, v]) => v).sort(),
      ['down-open.example.com', 'garbage-open.example.com', 'slow-open.example.com'],
    );
    assert.match((await server.request('GET', '/metrics')).text, /apiserver_admission_webhook_fail_open_count\{name="down-open\.example\.com",type="validating"\} [1-9]/);
  });

  test('validating webhooks are called in parallel', async () => {
    await createAll(server, [[VWC, validating('together', [hook('together-a.example.com', peer, '/together-a', 'together', { timeoutSeconds: 5 }), hook('together-b.example.com', peer, '/together-b', 'together', { timeoutSeconds: 5 })])]]);
    // Each answers only once the other was called: called one after the other, the first would time out.
    const r = await untilAnswered(server, SC, labelled('together-1', 'together'), 201, 20_000);
    assert.equal(r.status, 201, r.text);
  });

  test('a mutating webhook\'s JSONPatch is applied, decoded into the kind (unknown fields dropped) and validated again', async () => {
    await createAll(server, [
      [MWC, mutating('labels', [hook('add-label.example.com', peer, '/add-label', 'add-label', { matchConditions: [{ name: 'unlabelled', expression: "!('added-by' in object.metadata.labels)" }] }), hook('break-cidrs.example.com', peer, '/break-cidrs', 'break-cidrs')])],
      // A later webhook's matchConditions see the object as the earlier one left it.
      [MWC, mutating('labels-after', [hook('after-label.example.com', peer, '/allow', 'add-label', { matchConditions: [{ name: 'labelled', expression: "object.metadata.labels[?'added-by'].orValue('') == 'webhook'" }] })])],
    ]);
    const r = await untilAnswered(server, SC, labelled('mutated', 'add-label'), 201);
    assert.deepEqual(r.json.metadata.labels, { hook: 'add-label', 'added-by': 'webhook' });
    assert.deepEqual(r.json.spec, { cidrs: ['10.96.0.0/24'] });
    const created = await server.request('POST', SC, { body: labelled('mutated', 'add-label') });
    assert.equal(created.status, 201);
    assert.equal((await server.request('GET', `${SC}/mutated`)).json.metadata.labels['added-by'], 'webhook');
    assert.ok((received.get('/allow') ?? []).some((v) => v.request.name === 'mutated' && labelOf(v, 'added-by') === 'webhook'), 'the later webhook was called with the label');
    assert.equal(
      (await auditOf(created.headers['audit-id'])).annotations['mutation.webhook.admission.k8s.io/round_0_index_0'],
      '{"configuration":"labels","webhook":"add-label.example.com","mutated":true}',
    );
    const broken = await untilAnswered(server, SC, labelled('broken', 'break-cidrs'), 422);
    assert.equal(broken.json.message, 'ServiceCIDR.networking.platform.io "broken" is invalid: spec.cidrs[0]: Invalid value: "not-a-cidr": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)');
  });

  test('two mutating webhooks fighting over a label: an IfNeeded webhook is called again after a later change, a Never one is not', async () => {
    await createAll(server, [
      [MWC, mutating('fight-1', [hook('fight-a.example.com', peer, '/fight-a', 'fight-ifneeded', { reinvocationPolicy: 'IfNeeded' }), hook('fight-b.example.com', peer, '/fight-b', 'fight-ifneeded')])],
      [MWC, mutating('fight-2', [hook('fight-a.example.com', peer, '/fight-a', 'fight-never', { reinvocationPolicy: 'Never' }), hook('fight-b.example.com', peer, '/fight-b', 'fight-never')])],
    ]);
    await untilAnswered(server, SC, labelled('probe-fight', 'fight-never'), 201);
    await untilAnswered(server, SC, labelled('probe-fight', 'fight-ifneeded'), 201);
    const calls = (path: string, name: string) => (received.get(path) ?? []).filter((r) => r.request.name === name).length;
    const ifNeeded = await server.request('POST', SC, { body: labelled('fight-ifneeded', 'fight-ifneeded') });
    assert.equal(ifNeeded.status, 201, ifNeeded.text);
    assert.equal(ifNeeded.json.metadata.labels.owner, 'a', 'fight-a ran again after fight-b changed the object');
    assert.deepEqual([calls('/fight-a', 'fight-ifneeded'), calls('/fight-b', 'fight-ifneeded')], [2, 1]);
    const annotations = (await auditOf(ifNeeded.headers['audit-id'])).annotations;
    assert.equal(annotations['mutation.webhook.admission.k8s.io/round_1_index_0'], '{"configuration":"fight-1","webhook":"fight-a.example.com","mutated":true}');
    const never = await server.request('POST', SC, { body: labelled('fight-never', 'fight-never') });
    assert.equal(never.json.metadata.labels.owner, 'b');
    assert.deepEqual([calls('/fight-a', 'fight-never'), calls('/fight-b', 'fight-never')], [1, 1]);
  });

  test('dry-run: webhooks without side effects on dry run are called with dryRun true, and nothing is stored', async () => {
    await createAll(server, [[VWC, validating('dry', [hook('dry.example.com', peer, '/allow', 'dry', { sideEffects: 'NoneOnDryRun' })])]]);
    const r = await eventually(
      async () => {
        const x = await server.request('POST', `${SC}?dryRun=All`, { body: labelled('dry-1', 'dry') });
        return { x, seen: (received.get('/allow') ?? []).filter((v) => v.request.name === 'dry-1') };
      },
      ({ seen }) => seen.length > 0,
      15_000,
      100,
    );
    assert.equal(r.x.status, 201);
    assert.equal(r.seen[0]!.request.dryRun, true);
    assert.deepEqual(r.seen[0]!.request.options, { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', dryRun: ['All'] });
    assert.equal((await server.request('GET', `${SC}/dry-1`)).status, 404);
  });

  test('AdmissionReview v1beta1 when the webhook asks for it; DELETE sends the stored object as oldObject', async () => {
    await createAll(server, [[VWC, validating('beta', [hook('beta.example.com', peer, '/allow', 'beta', { admissionReviewVersions: ['v1beta1'] })])]]);
    await untilAnswered(server, SC, labelled('beta-probe', 'beta'), 201);
    assert.equal((await server.request('POST', SC, { body: labelled('beta-1', 'beta') })).status, 201);
    assert.equal((await server.request('DELETE', `${SC}/beta-1`)).status, 200);
    const del = (received.get('/allow') ?? []).find((v) => v.request.name === 'beta-1' && v.request.operation === 'DELETE')!;
    assert.equal(del.apiVersion, 'admission.k8s.io/v1beta1');
    assert.equal(del.request.object, null);
    assert.equal(del.request.oldObject.metadata.name, 'beta-1');
    assert.deepEqual(del.request.options, { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' });
  });

  test('matchConditions: false skips the webhook; an error under Fail is a 403', async () => {
    await createAll(server, [
      [
        VWC,
        validating('conditions', [
          hook('skipped.example.com', peer, '/deny', 'conditions', { matchConditions: [{ name: 'never', expression: "object.metadata.name == 'nobody'" }] }),
          hook('erring.example.com', peer, '/allow', 'conditions', { matchConditions: [{ name: 'missing-key', expression: "object.metadata.labels['absent'] == 'x'" }] }),
        ]),
      ],
    ]);
    const r = await untilAnswered(server, SC, labelled('cond-1', 'conditions'), 403);
    assert.equal(r.json.message, `servicecidrs.networking.platform.io "cond-1" is forbidden: expression 'object.metadata.labels['absent'] == 'x'' resulted in error: no such key: absent`);
    assert.match((await server.request('GET', '/metrics')).text, /apiserver_admission_match_condition_exclusions_total\{name="skipped\.example\.com",kind="webhook",type="validating",operation="CREATE"\} [1-9]/);
  });
});
