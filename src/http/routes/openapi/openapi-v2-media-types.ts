// The media types of /openapi/v2's protobuf encoding, apart from the encoder so that negotiating
// a request does not load protobufjs (the encoder is loaded on the first /openapi/v2 request).

/** What kubectl and client-go send in Accept. */
export const OPENAPI_V2_PROTO_ACCEPT = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
/** What the response is labelled with (accepted in Accept too). */
export const OPENAPI_V2_PROTO_CONTENT_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
