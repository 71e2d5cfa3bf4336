// The v2 document: its JSON form matches v3's operations and schemas, and its protobuf form
// decodes (with the openapi.v2 messages) to the same paths, parameters, GVKs and definitions.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse as parseYaml } from 'yaml';
import { allResources } from '../../../resources/all.js';
import { DocumentMessage } from './openapi-v2-proto.js';
import { buildOpenAPIV2 } from './openapi-v2.js';
import { buildOpenAPIV3 } from './openapi-v3.js';
import { negotiateOpenAPIV2 } from './negotiate-v2.js';

const docs = buildOpenAPIV2(allResources);
const json = JSON.parse(docs.json.body.toString()) as any;
const SC_ITEM = '/apis/networking.platform.io/v1/servicecidrs/{name}';

test('v2 JSON: every v3 path and operation, with parameters, action and GVK', () => {
  const v3 = buildOpenAPIV3(allResources);
  for (const doc of v3.groupVersions.values()) {
    const v3doc = JSON.parse(doc.body.toString()) as any;
    for (const [path, item] of Object.entries<any>(v3doc.paths)) {
      for (const method of ['get', 'put', 'post', 'delete', 'patch']) {
        if (!item[method]) continue;
        const op = json.paths[path]?.[method];
        assert.ok(op, `${method} ${path} in v2`);
        assert.equal(op.operationId, item[method].operationId);
        assert.deepEqual(op['x-kubernetes-group-version-kind'], item[method]['x-kubernetes-group-version-kind']);
        assert.equal(op['x-kubernetes-action'], item[method]['x-kubernetes-action']);
        const v2Query = op.parameters.filter((p: any) => p.in === 'query').map((p: any) => p.name);
        assert.deepEqual(v2Query, item[method].parameters.map((p: any) => p.name));
      }
    }
    // The same schemas, refs rewritten and allOf collapsed.
    for (const [name, schema] of Object.entries<any>(v3doc.components.schemas)) {
      const v2 = json.definitions[name];
      assert.ok(v2, name);
      assert.deepEqual(Object.keys(v2.properties ?? {}), Object.keys(schema.properties ?? {}));
      assert.deepEqual(v2['x-kubernetes-group-version-kind'], schema['x-kubernetes-group-version-kind']);
    }
  }
  const patch = json.paths[SC_ITEM].patch;
  assert.deepEqual(patch.consumes, ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml']);
  assert.deepEqual(patch.parameters[0], { in: 'body', name: 'body', required: true, schema: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch' } });
  assert.deepEqual(json.paths[SC_ITEM].parameters, [{ description: 'name of the object', in: 'path', name: 'name', required: true, type: 'string', uniqueItems: true }]);
  const spec = json.definitions['io.platform.networking.v1.ServiceCIDR'].properties.spec;
  assert.equal(spec.$ref, '#/definitions/io.platform.networking.v1.ServiceCIDRSpec');
  assert.equal(spec.allOf, undefined);
  assert.ok(!docs.json.body.toString().includes('#/components/schemas/'));
  for (const p of ['/apis/', '/version/', '/apis/networking.platform.io/', '/apis/networking.platform.io/v1/', '/apis/networking.platform.io/v1/watch/servicecidrs']) assert.ok(json.paths[p], p);
});

test('v2 protobuf decodes to the same document', () => {
  const pb = DocumentMessage.toObject(DocumentMessage.decode(docs.protobuf.body), { defaults: false }) as any;
  assert.equal(pb.swagger, '2.0');
  assert.deepEqual(pb.paths.path.map((p: any) => p.name), Object.keys(json.paths));
  assert.deepEqual(pb.definitions.additional_properties.map((d: any) => d.name), Object.keys(json.definitions));
  const item = pb.paths.path.find((p: any) => p.name === SC_ITEM).value;
  const ext = Object.fromEntries(item.patch.vendor_extension.map((e: any) => [e.name, parseYaml(e.value.yaml)]));
  assert.deepEqual(ext, { 'x-kubernetes-action': 'patch', 'x-kubernetes-group-version-kind': { group: 'networking.platform.io', version: 'v1', kind: 'ServiceCIDR' } });
  const queryNames = item.patch.parameters.map((p: any) => p.parameter.non_body_parameter?.query_parameter_sub_schema?.name).filter(Boolean);
  assert.deepEqual(queryNames, ['pretty', 'dryRun', 'fieldManager', 'fieldValidation', 'force']);
  assert.equal(item.patch.parameters[0].parameter.body_parameter.schema._ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch');
  assert.equal(item.parameters[0].parameter.non_body_parameter.path_parameter_sub_schema.name, 'name');
  const ok = item.get.responses.response_code.find((r: any) => r.name === '200').value.response;
  assert.equal(ok.schema.schema._ref, '#/definitions/io.platform.networking.v1.ServiceCIDR');

  const sc = pb.definitions.additional_properties.find((d: any) => d.name === 'io.platform.networking.v1.ServiceCIDR').value;
  assert.deepEqual(sc.type.value, ['object']);
  const props = Object.fromEntries(sc.properties.additional_properties.map((p: any) => [p.name, p.value]));
  assert.equal(props.spec._ref, '#/definitions/io.platform.networking.v1.ServiceCIDRSpec');
  assert.deepEqual(parseYaml(props.spec.default.yaml), {});
  const gvk = sc.vendor_extension.find((e: any) => e.name === 'x-kubernetes-group-version-kind');
  assert.deepEqual(parseYaml(gvk.value.yaml), [{ group: 'networking.platform.io', version: 'v1', kind: 'ServiceCIDR' }]);
  const labels = pb.definitions.additional_properties.find((d: any) => d.name === 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta').value.properties.additional_properties.find((p: any) => p.name === 'labels').value;
  assert.deepEqual(labels.additional_properties.schema.type.value, ['string']);
});

test('v2 negotiation: JSON by default, protobuf when asked, 406 otherwise', () => {
  assert.equal(negotiateOpenAPIV2(undefined).encoding, 'json');
  assert.equal(negotiateOpenAPIV2('application/json, */*').encoding, 'json');
  assert.deepEqual(negotiateOpenAPIV2('application/com.github.proto-openapi.spec.v2@v1.0+protobuf'), {
    encoding: 'protobuf',
    contentType: 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
  });
  assert.equal(negotiateOpenAPIV2('application/com.github.proto-openapi.spec.v2@v1.0+protobuf;q=0.5, application/json').encoding, 'json');
  assert.throws(() => negotiateOpenAPIV2('text/html'), (e: any) => e.code === 406 && e.reason === 'NotAcceptable');
  assert.notEqual(docs.json.hash, docs.protobuf.hash);
});
