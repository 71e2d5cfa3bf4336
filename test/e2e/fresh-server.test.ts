// A fresh server (empty database) as an informer meets it: the first list carries a real
// resourceVersion (never "0", which clients read as "any"), and a watch from it delivers the
// writes made between the list and the watch.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, watchEvents, type TestServer } from './harness.js';

const SC = '/apis/networking.platform.io/v1/servicecidrs';

for (const backend of ['sqlite', 'memory'] as const) {
  describe(`a fresh ${backend} server`, () => {
    let server: TestServer;
    before(async () => {
      // A fresh, empty store: no controller writes the default ServiceCIDR.
      server = await startServer({ args: ['--controllers=-kubernetes-service-cidr-controller,-service-cidr-controller', '--storage-backend', backend] });
    });
    after(async () => {
      await server?.stop();
    });

    test('list+watch from the first list loses nothing', async () => {
      const list = await server.request('GET', SC);
      assert.equal(list.status, 200, list.text);
      const rv: string = list.json.metadata.resourceVersion;
      assert.match(rv, /^[1-9]\d*$/, `first list resourceVersion ${rv}`);
      assert.deepEqual(list.json.items, []);
      const ctbList = await server.request('GET', '/apis/certificates.platform.io/v1beta1/clustertrustbundles');
      assert.notEqual(ctbList.json.metadata.resourceVersion, '0');

      // Written after the list, before the watch starts: an informer must still see it.
      const created = await server.request('POST', SC, { body: { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: 'between' }, spec: { cidrs: ['10.7.0.0/16'] } } });
      assert.equal(created.status, 201, created.text);
      assert.ok(Number(created.json.metadata.resourceVersion) > Number(rv));

      const { events } = await watchEvents(server, `${SC}?watch=1&resourceVersion=${rv}&timeoutSeconds=10`, 1);
      assert.deepEqual(
        events.map((e) => [e.type, e.object.metadata.name, e.object.metadata.resourceVersion]),
        [['ADDED', 'between', created.json.metadata.resourceVersion]],
      );
    });
  });
}
