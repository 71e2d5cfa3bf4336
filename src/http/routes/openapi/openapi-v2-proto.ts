// The protobuf encoding of the OpenAPI v2 document (gnostic's openapi.v2 messages), which kubectl
// 1.27/1.28 and client-go's discovery ask for with
// `Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf`.
// The message definitions below are written from the published openapi.v2 format: only the
// messages and fields this server's document uses, with their published field numbers (the wire
// contract). Free-form values (defaults, enums, vendor extensions) travel as YAML text in `Any`,
// which is how gnostic carries them and how kubectl reads them back.

import protobuf from 'protobufjs';
import { stringify as toYaml } from 'yaml';

type J = Record<string, unknown>;

export { OPENAPI_V2_PROTO_ACCEPT, OPENAPI_V2_PROTO_CONTENT_TYPE } from './openapi-v2-media-types.js';

const PROTO = `
syntax = "proto3";
package openapi.v2;
message Any { string yaml = 2; }
message NamedAny { string name = 1; Any value = 2; }
message Info { string title = 1; string version = 2; string description = 3; repeated NamedAny vendor_extension = 7; }
message StringArray { repeated string value = 1; }
message NamedStringArray { string name = 1; StringArray value = 2; }
message SecurityRequirement { repeated NamedStringArray additional_properties = 1; }
message ApiKeySecurity { string type = 1; string name = 2; string in = 3; string description = 4; repeated NamedAny vendor_extension = 5; }
message SecurityDefinitionsItem { oneof kind { ApiKeySecurity api_key_security = 2; } }
message NamedSecurityDefinitionsItem { string name = 1; SecurityDefinitionsItem value = 2; }
message SecurityDefinitions { repeated NamedSecurityDefinitionsItem additional_properties = 1; }
message TypeItem { repeated string value = 1; }
message ItemsItem { repeated Schema schema = 1; }
message AdditionalPropertiesItem { oneof kind { Schema schema = 1; bool boolean = 2; } }
message NamedSchema { string name = 1; Schema value = 2; }
message Properties { repeated NamedSchema additional_properties = 1; }
message Definitions { repeated NamedSchema additional_properties = 1; }
message Schema {
  string _ref = 1; string format = 2; string title = 3; string description = 4; Any default = 5;
  double maximum = 7; double minimum = 9; int64 max_length = 11; int64 min_length = 12; string pattern = 13;
  int64 max_items = 14; int64 min_items = 15; bool unique_items = 16;
  repeated string required = 19; repeated Any enum = 20; AdditionalPropertiesItem additional_properties = 21;
  TypeItem type = 22; ItemsItem items = 23; repeated Schema all_of = 24; Properties properties = 25;
  bool read_only = 27; Any example = 30; repeated NamedAny vendor_extension = 31;
}
message SchemaItem { oneof kind { Schema schema = 1; } }
message Response { string description = 1; SchemaItem schema = 2; repeated NamedAny vendor_extension = 5; }
message ResponseValue { oneof kind { Response response = 1; } }
message NamedResponseValue { string name = 1; ResponseValue value = 2; }
message Responses { repeated NamedResponseValue response_code = 1; repeated NamedAny vendor_extension = 2; }
message BodyParameter { string description = 1; string name = 2; string in = 3; bool required = 4; Schema schema = 5; repeated NamedAny vendor_extension = 6; }
message QueryParameterSubSchema { bool required = 1; string in = 2; string description = 3; string name = 4; string type = 6; string format = 7; bool unique_items = 20; repeated NamedAny vendor_extension = 23; }
message PathParameterSubSchema { bool required = 1; string in = 2; string description = 3; string name = 4; string type = 5; string format = 6; bool unique_items = 19; repeated NamedAny vendor_extension = 22; }
message NonBodyParameter { oneof kind { QueryParameterSubSchema query_parameter_sub_schema = 3; PathParameterSubSchema path_parameter_sub_schema = 4; } }
message Parameter { oneof kind { BodyParameter body_parameter = 1; NonBodyParameter non_body_parameter = 2; } }
message ParametersItem { oneof kind { Parameter parameter = 1; } }
message Operation {
  repeated string tags = 1; string summary = 2; string description = 3; string operation_id = 5;
  repeated string produces = 6; repeated string consumes = 7; repeated ParametersItem parameters = 8;
  Responses responses = 9; repeated string schemes = 10; bool deprecated = 11; repeated NamedAny vendor_extension = 13;
}
message PathItem {
  Operation get = 2; Operation put = 3; Operation post = 4; Operation delete = 5; Operation options = 6; Operation head = 7; Operation patch = 8;
  repeated ParametersItem parameters = 9; repeated NamedAny vendor_extension = 10;
}
message NamedPathItem { string name = 1; PathItem value = 2; }
message Paths { repeated NamedAny vendor_extension = 1; repeated NamedPathItem path = 2; }
message Document {
  string swagger = 1; Info info = 2; string host = 3; string base_path = 4; repeated string schemes = 5;
  repeated string consumes = 6; repeated string produces = 7; Paths paths = 8; Definitions definitions = 9;
  repeated SecurityRequirement security = 12; SecurityDefinitions security_definitions = 13;
  repeated NamedAny vendor_extension = 16;
}
`;

const root = protobuf.parse(PROTO, { keepCase: true }).root;
export const DocumentMessage = root.lookupType('openapi.v2.Document');

const any = (v: unknown): J => ({ yaml: toYaml(v) });
const extensions = (o: J): J[] =>
  Object.entries(o)
    .filter(([k]) => k.startsWith('x-'))
    .map(([name, v]) => ({ name, value: any(v) }));
const named = <T>(o: Record<string, T> | undefined, f: (v: T) => unknown): J[] => Object.entries(o ?? {}).map(([name, v]) => ({ name, value: f(v) }));

function schema(s: J): J {
  const out: J = { vendor_extension: extensions(s) };
  const copy = ['format', 'title', 'description', 'pattern', 'maximum', 'minimum', 'required'] as const;
  for (const k of copy) if (s[k] !== undefined) out[k] = s[k];
  if (s.$ref !== undefined) out._ref = s.$ref;
  if (s.uniqueItems !== undefined) out.unique_items = s.uniqueItems;
  if (s.readOnly !== undefined) out.read_only = s.readOnly;
  for (const [k, p] of [['maxLength', 'max_length'], ['minLength', 'min_length'], ['maxItems', 'max_items'], ['minItems', 'min_items']] as const) if (s[k] !== undefined) out[p] = s[k];
  if (s.default !== undefined) out.default = any(s.default);
  if (s.example !== undefined) out.example = any(s.example);
  if (Array.isArray(s.enum)) out.enum = s.enum.map(any);
  if (s.type !== undefined) out.type = { value: Array.isArray(s.type) ? s.type : [s.type] };
  if (s.items !== undefined) out.items = { schema: (Array.isArray(s.items) ? s.items : [s.items]).map((i) => schema(i as J)) };
  if (Array.isArray(s.allOf)) out.all_of = s.allOf.map((i) => schema(i as J));
  if (s.properties !== undefined) out.properties = { additional_properties: named(s.properties as Record<string, J>, schema) };
  if (s.additionalProperties !== undefined) out.additional_properties = typeof s.additionalProperties === 'boolean' ? { boolean: s.additionalProperties } : { schema: schema(s.additionalProperties as J) };
  return out;
}

function parameter(p: J): J {
  if (p.in === 'body') {
    return { parameter: { body_parameter: { description: p.description, name: p.name, in: p.in, required: p.required, schema: schema(p.schema as J), vendor_extension: extensions(p) } } };
  }
  const sub = { required: p.required, in: p.in, description: p.description, name: p.name, type: p.type, format: p.format, unique_items: p.uniqueItems, vendor_extension: extensions(p) };
  return { parameter: { non_body_parameter: p.in === 'path' ? { path_parameter_sub_schema: sub } : { query_parameter_sub_schema: sub } } };
}

function operation(o: J): J {
  return {
    tags: o.tags,
    summary: o.summary,
    description: o.description,
    operation_id: o.operationId,
    produces: o.produces,
    consumes: o.consumes,
    parameters: ((o.parameters as J[] | undefined) ?? []).map(parameter),
    responses: {
      response_code: named(o.responses as Record<string, J>, (r) => ({
        response: { description: r.description, ...(r.schema ? { schema: { schema: schema(r.schema as J) } } : {}), vendor_extension: extensions(r) },
      })),
    },
    schemes: o.schemes,
    deprecated: o.deprecated,
    vendor_extension: extensions(o),
  };
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;

function pathItem(p: J): J {
  const out: J = { parameters: ((p.parameters as J[] | undefined) ?? []).map(parameter), vendor_extension: extensions(p) };
  for (const m of METHODS) if (p[m]) out[m] = operation(p[m] as J);
  return out;
}

/** Encodes a Swagger 2.0 document (JSON form) as an openapi.v2.Document message. */
export function encodeOpenAPIV2(doc: J): Buffer {
  const info = doc.info as J;
  const message = {
    swagger: doc.swagger,
    info: { title: info.title, version: info.version, description: info.description, vendor_extension: extensions(info) },
    paths: { path: named(doc.paths as Record<string, J>, pathItem), vendor_extension: [] },
    definitions: { additional_properties: named(doc.definitions as Record<string, J>, schema) },
    security: ((doc.security as Record<string, string[]>[] | undefined) ?? []).map((req) => ({ additional_properties: named(req, (scopes) => ({ value: scopes })) })),
    security_definitions: {
      additional_properties: named(doc.securityDefinitions as Record<string, J> | undefined, (d) => ({
        api_key_security: { type: d.type, name: d.name, in: d.in, description: d.description, vendor_extension: extensions(d) },
      })),
    },
    vendor_extension: extensions(doc),
  };
  const err = DocumentMessage.verify(message);
  if (err) throw new Error(`OpenAPI v2 document does not fit openapi.v2.Document: ${err}`);
  return Buffer.from(DocumentMessage.encode(DocumentMessage.fromObject(message)).finish());
}
