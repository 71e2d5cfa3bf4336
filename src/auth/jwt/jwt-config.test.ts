import { test } from 'node:test';
import assert from 'node:assert/strict';
import { oidcFlagsToJwtAuthenticator, validateJwtAuthenticator, FieldPath } from './jwt-config.js';
import { aggregateFieldErrors } from '../../apimachinery/field-error.js';

const flags = { issuerURL: 'https://i.example', clientID: 'c', usernameClaim: 'sub', usernamePrefix: '', groupsClaim: '', groupsPrefix: '', requiredClaims: {} };

test("the --oidc-* flags as kube 1.33 converts them: username prefix defaulting", () => {
  assert.equal(oidcFlagsToJwtAuthenticator(flags).claimMappings.username.prefix, 'https://i.example#', 'claims other than email: issuer URL and #');
  assert.equal(oidcFlagsToJwtAuthenticator({ ...flags, usernameClaim: 'email' }).claimMappings.username.prefix, '', 'email: no prefix');
  assert.equal(oidcFlagsToJwtAuthenticator({ ...flags, usernamePrefix: '-' }).claimMappings.username.prefix, '', "'-' disables");
  assert.equal(oidcFlagsToJwtAuthenticator({ ...flags, usernamePrefix: 'oidc:' }).claimMappings.username.prefix, 'oidc:');
  const spec = oidcFlagsToJwtAuthenticator({ ...flags, groupsClaim: 'groups', requiredClaims: { hd: 'example.com' } });
  assert.deepEqual(spec.claimMappings.groups, { claim: 'groups', prefix: '' });
  assert.deepEqual(spec.claimValidationRules, [{ claim: 'hd', requiredValue: 'example.com' }]);
  assert.deepEqual(spec.issuer.audiences, ['c']);
});

test('flags are validated as one structured authenticator (field paths without the jwt[i] root)', () => {
  const { errors } = validateJwtAuthenticator(oidcFlagsToJwtAuthenticator({ ...flags, issuerURL: 'http://i.example' }), FieldPath.root(''), []);
  assert.equal(aggregateFieldErrors(errors), 'issuer.url: Invalid value: "http://i.example": URL scheme must be https');
});
