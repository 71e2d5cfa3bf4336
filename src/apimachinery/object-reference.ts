// kube's core/v1 ObjectReference, as on the wire: what an Event is about. Shared by the Event
// resource and the controllers' event recorder, which may not import the resource package.

export interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  fieldPath?: string;
}
