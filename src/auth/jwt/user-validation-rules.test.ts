// userValidationRules see the user as kube builds it for them (convertUserInfoToUnstructured):
// username, uid (""), groups ([]) and extra ({}) are always present, so a rule may read any of
// them on a token that maps none, against a real HTTPS issuer.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { startOidcIssuer, type OidcIssuer } from '../../../test/support/oidc-issuer.js';
import { eventually } from '../../../test/support/polling.js';
import { compileExpression } from './claims-cel.js';
import { JwtAuthenticator } from './jwt-authenticator.js';
import type { JwtAuthenticatorSpec } from './jwt-config.js';

let issuer: OidcIssuer | undefined;
let authenticator: JwtAuthenticator | undefined;
after(async () => {
  authenticator?.close();
  await issuer?.stop();
});

test('user validation rules read uid, groups and extra of a user that has none: "", [] and {}', async () => {
  issuer = await startOidcIssuer({ audience: 'platform' });
  const rules = [
    "!('system:masters' in user.groups)",
    'size(user.groups) == 0',
    "user.uid == ''",
    'size(user.extra) == 0',
    "!('example.com/team' in user.extra)",
    "user.username == 'alice'",
  ];
  const spec: JwtAuthenticatorSpec = {
    issuer: { url: issuer.url, audiences: ['platform'], certificateAuthority: issuer.caPem },
    claimValidationRules: [],
    claimMappings: { username: { claim: 'sub', prefix: '' }, groups: {}, uid: {}, extra: [] },
    userValidationRules: rules.map((expression) => ({ expression })),
  };
  authenticator = new JwtAuthenticator({
    spec,
    rules: { extra: [], claimValidation: [], userValidation: rules.map((r) => ({ expression: compileExpression(r, 'user'), message: r })) },
    signingAlgs: ['RS256'],
    logger: pino({ level: 'silent' }),
    initRetryMs: 100,
  });
  const a = authenticator;
  const token = await issuer.token({ sub: 'alice' });
  const r = await eventually(() => a.authenticate({ headers: { authorization: `Bearer ${token}` } }), (x) => x.kind !== 'error' || !/not initialized/.test(x.message), 10_000, 100);
  assert.deepEqual(r, { kind: 'user', user: { username: 'alice', groups: [] } });
  // A rule that fails still fails (the rules are evaluated, not skipped).
  const bob = await a.authenticate({ headers: { authorization: `Bearer ${await issuer.token({ sub: 'bob' })}` } });
  assert.equal(bob.kind, 'error');
  assert.match((bob as { message: string }).message, /validation expression 'user.username == 'alice'' failed/);
});
