// The server's identity label: the reload metrics of the authentication and the authorization
// configuration carry one apiserver_id_hash, as kube-apiserver labels both with its one identity.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServerMetrics } from './server-metrics.js';

const idHashes = (text: string, family: string): string[] =>
  [...text.matchAll(new RegExp(`^${family}\\{status="success",apiserver_id_hash="([^"]*)"\\} 1$`, 'gm'))].map((m) => m[1]!);

test('authentication and authorization reloads are labelled with the same server identity', async () => {
  for (const apiserverId of [undefined, 'apiserver-replica-2']) {
    const metrics = createServerMetrics({ resources: [], stored: [], apiserverId });
    metrics.authn.jwt.configReload!('success');
    metrics.authorization.configReload('success');
    const text = (await metrics.render()).body;
    const authn = idHashes(text, 'apiserver_authentication_config_controller_automatic_reloads_total');
    const authz = idHashes(text, 'apiserver_authorization_config_controller_automatic_reloads_total');
    assert.equal(authn.length, 1);
    assert.match(authn[0]!, /^sha256:[0-9a-f]{64}$/);
    assert.deepEqual(authz, authn);
  }
});
