// Which encoding of /openapi/v2 a request's Accept header asks for, as kube-apiserver decides:
// the first acceptable range in preference order that is JSON or the gnostic protobuf type
// (kubectl and client-go send the `@v1.0+protobuf` spelling; the `.v1.0+protobuf` one is what
// the response is labelled with, and is accepted too). Anything else is 406.

import { notAcceptable } from '../../../apimachinery/status-error.js';
import { parseAccept } from '../../endpoints/negotiation.js';
import { OPENAPI_V2_PROTO_ACCEPT, OPENAPI_V2_PROTO_CONTENT_TYPE } from './openapi-v2-media-types.js';

export interface OpenAPIV2Encoding {
  encoding: 'json' | 'protobuf';
  contentType: string;
}

const JSON_ENCODING: OpenAPIV2Encoding = { encoding: 'json', contentType: 'application/json' };
const PROTO_ENCODING: OpenAPIV2Encoding = { encoding: 'protobuf', contentType: OPENAPI_V2_PROTO_CONTENT_TYPE };

export function negotiateOpenAPIV2(accept: string | undefined): OpenAPIV2Encoding {
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return JSON_ENCODING;
  for (const r of ranges) {
    if (r.type === 'application/json' || r.type === 'application/*' || r.type === '*/*') return JSON_ENCODING;
    if (r.type === OPENAPI_V2_PROTO_ACCEPT || r.type === OPENAPI_V2_PROTO_CONTENT_TYPE) return PROTO_ENCODING;
  }
  throw notAcceptable(`only the following media types are accepted: application/json, ${OPENAPI_V2_PROTO_ACCEPT}`);
}
