# The official Python client (Debian's python3-kubernetes 22.6, the client Ansible's
# kubernetes.core and most Python tooling use) against a running platform-apiserver, as a new
# user would use it: the DynamicClient (discovery by api_version, by kind alone and by short
# name, CRUD, the four patch types, /status, server-side apply, watches, paging,
# delete-collection, errors) and the typed CustomObjectsApi with watch.Watch().stream; IPAddresses
# through the DynamicClient; Events through the typed CoreV1Api and EventsV1Api (create, list
# across and within namespaces with field selectors, read in the other version, watch).
#
# Run alone (see README.md here): KUBECONFIG=<the server's admin.kubeconfig> /usr/bin/python3 -m unittest -v
# test/e2e/python-client.test.ts runs it against a server it starts.

import datetime
import json
import os
import secrets
import subprocess
import tempfile
import time
import unittest

from kubernetes import client, config, watch
from kubernetes.dynamic import DynamicClient
from kubernetes.dynamic.exceptions import ConflictError, NotFoundError, UnprocessibleEntityError

SC_API = 'networking.platform.io/v1'
CTB_API = 'certificates.platform.io/v1beta1'
RUN = secrets.token_hex(3)

dyn = None
api_client = None
scratch = None
ca_pem = None


def setUpModule():
    global dyn, api_client, scratch, ca_pem
    scratch = tempfile.TemporaryDirectory(prefix='platform-python-')
    config.load_kube_config(config_file=os.environ['KUBECONFIG'])
    api_client = client.ApiClient()
    # The DynamicClient caches discovery in a file named after the host: one of our own, so no
    # other run (or server on the same port) is read.
    dyn = DynamicClient(api_client, cache_file=os.path.join(scratch.name, 'discovery.json'))
    pem_path = os.environ.get('PLATFORM_TEST_CA_PEM')
    if not pem_path:
        pem_path = os.path.join(scratch.name, 'ca.pem')
        subprocess.run(['openssl', 'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=python-suite',
                        '-days', '30', '-keyout', os.path.join(scratch.name, 'ca.key'), '-out', pem_path], check=True, capture_output=True)
    with open(pem_path) as f:
        ca_pem = f.read()


def tearDownModule():
    if dyn is not None:
        for api, kind in ((SC_API, 'ServiceCIDR'), (CTB_API, 'ClusterTrustBundle'), (SC_API, 'IPAddress')):
            dyn.resources.get(api_version=api, kind=kind).delete(label_selector='python-run=' + RUN)
    if api_client is not None:
        api_client.close()
    if scratch is not None:
        scratch.cleanup()


def scidrs():
    return dyn.resources.get(api_version=SC_API, kind='ServiceCIDR')


def ctbs():
    return dyn.resources.get(api_version=CTB_API, kind='ClusterTrustBundle')


def service_cidr(name, cidr, labels=None):
    return {'apiVersion': SC_API, 'kind': 'ServiceCIDR', 'metadata': {'name': name, 'labels': dict(labels or {}, **{'python-run': RUN})}, 'spec': {'cidrs': [cidr]}}


def bundle(name, labels=None, signer=None):
    spec = {'trustBundle': ca_pem}
    if signer:
        spec['signerName'] = signer
    return {'apiVersion': CTB_API, 'kind': 'ClusterTrustBundle', 'metadata': {'name': name, 'labels': dict(labels or {}, **{'python-run': RUN})}, 'spec': spec}


def wait_gone(resource, name, seconds=30):
    """A ServiceCIDR keeps its finalizer until the controller sees it unused: wait, bounded."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            resource.get(name=name)
        except NotFoundError:
            return
        time.sleep(0.2)
    raise AssertionError('%s still there after %ss' % (name, seconds))


def replace_with_retry(resource, name, change, attempts=10):
    """Read, change, replace; again on a 409 (the ServiceCIDR controller writes the object too)."""
    for _ in range(attempts):
        body = resource.get(name=name).to_dict()
        change(body)
        try:
            return resource.replace(body=body)
        except ConflictError:
            time.sleep(0.1)
    raise AssertionError('%s: still conflicting after %d attempts' % (name, attempts))


class Discovery(unittest.TestCase):
    def test_by_api_version(self):
        sc = scidrs()
        self.assertEqual((sc.name, sc.namespaced, sc.short_names), ('servicecidrs', False, ['scidr']))
        self.assertIn('status', sc.subresources)
        ctb = ctbs()
        self.assertEqual((ctb.name, ctb.namespaced, ctb.short_names), ('clustertrustbundles', False, ['ctb']))

    def test_by_kind_alone_and_short_name(self):
        # Searches every group, the core group (/api/v1) included.
        self.assertEqual(dyn.resources.get(kind='ServiceCIDR').group_version, SC_API)
        self.assertEqual(dyn.resources.get(kind='ClusterTrustBundle').group_version, CTB_API)
        self.assertEqual(dyn.resources.get(short_names=['ctb']).kind, 'ClusterTrustBundle')
        self.assertEqual(dyn.resources.get(short_names=['scidr']).kind, 'ServiceCIDR')

    def test_core_and_named_groups(self):
        self.assertEqual(client.CoreApi().get_api_versions().versions, ['v1'])
        groups = {g.name for g in client.ApisApi().get_api_versions().groups}
        self.assertTrue({'networking.platform.io', 'certificates.platform.io'} <= groups, groups)


class Crud(unittest.TestCase):
    def test_service_cidr_create_get_list_replace_delete(self):
        name = 'py-crud-' + RUN
        made = scidrs().create(body=service_cidr(name, '10.201.0.0/24', {'stage': 'one'}))
        self.assertEqual(made.metadata.name, name)
        self.assertEqual(made.metadata.generation, 1)
        got = scidrs().get(name=name)
        self.assertEqual(got.spec.cidrs, ['10.201.0.0/24'])
        listed = scidrs().get(label_selector='python-run=%s,stage=one' % RUN)
        self.assertEqual([i.metadata.name for i in listed.items], [name])
        replaced = replace_with_retry(scidrs(), name, lambda body: body['metadata']['labels'].update(stage='two'))
        self.assertEqual(replaced.metadata.labels['stage'], 'two')
        scidrs().delete(name=name)
        wait_gone(scidrs(), name)

    def test_cluster_trust_bundle_create_get_list_replace_delete(self):
        name = 'py-crud-' + RUN
        made = ctbs().create(body=bundle(name, {'stage': 'one'}))
        self.assertEqual(made.spec.trustBundle.strip(), ca_pem.strip())
        self.assertEqual(ctbs().get(name=name).metadata.uid, made.metadata.uid)
        self.assertEqual([i.metadata.name for i in ctbs().get(label_selector='stage=one,python-run=' + RUN).items], [name])
        body = made.to_dict()
        body['metadata']['labels']['stage'] = 'two'
        self.assertEqual(ctbs().replace(body=body).metadata.labels['stage'], 'two')
        ctbs().delete(name=name)
        self.assertRaises(NotFoundError, ctbs().get, name=name)

    def test_signer_linked_bundle_names_with_colons(self):
        name = 'example.com:python:' + RUN
        made = ctbs().create(body=bundle(name, signer='example.com/python'))
        self.assertEqual(made.metadata.name, name)
        self.assertEqual(ctbs().get(name=name).spec.signerName, 'example.com/python')
        listed = ctbs().get(field_selector='spec.signerName=example.com/python')
        self.assertIn(name, [i.metadata.name for i in listed.items])
        self.assertEqual(ctbs().patch(name=name, body={'metadata': {'labels': {'patched': 'yes'}}}, content_type='application/merge-patch+json').metadata.labels['patched'], 'yes')
        ctbs().delete(name=name)
        self.assertRaises(NotFoundError, ctbs().get, name=name)


class Patches(unittest.TestCase):
    def test_four_patch_types_on_both_kinds(self):
        for resource, body in ((scidrs(), service_cidr('py-patch-' + RUN, '10.202.0.0/24')), (ctbs(), bundle('py-patch-' + RUN))):
            name = body['metadata']['name']
            resource.create(body=body)
            json_patched = resource.patch(name=name, body=[{'op': 'add', 'path': '/metadata/labels/json', 'value': 'yes'}], content_type='application/json-patch+json')
            self.assertEqual(json_patched.metadata.labels['json'], 'yes')
            merged = resource.patch(name=name, body={'metadata': {'labels': {'merge': 'yes', 'json': None}}}, content_type='application/merge-patch+json')
            self.assertEqual((merged.metadata.labels['merge'], 'json' in merged.metadata.labels), ('yes', False))
            # The DynamicClient's default patch type is strategic merge.
            strategic = resource.patch(name=name, body={'metadata': {'labels': {'strategic': 'yes'}}})
            self.assertEqual(strategic.metadata.labels['strategic'], 'yes')
            applied = resource.server_side_apply(name=name, field_manager='python-suite', body=apply_body(body, {'applied': 'yes'}))
            self.assertEqual(applied.metadata.labels['applied'], 'yes')
            self.assertIn('python-suite', [m.manager for m in applied.metadata.managedFields])
            # A ServiceCIDR goes once its controller drops the finalizer (after kube's 10 s grace).
            resource.delete(name=name)

    def test_status_subresource(self):
        name = 'py-status-' + RUN
        scidrs().create(body=service_cidr(name, '10.203.0.0/24'))
        condition = {'type': 'PythonChecked', 'status': 'True', 'reason': 'Python', 'message': 'set by the Python suite', 'lastTransitionTime': '2025-01-01T00:00:00Z'}
        patched = scidrs().status.patch(name=name, body={'status': {'conditions': [condition]}})
        self.assertIn('PythonChecked', [c['type'] for c in patched.status.conditions])
        # A status write changes nothing else; a main-resource write keeps the status.
        self.assertEqual(patched.metadata.generation, 1)
        relabelled = scidrs().patch(name=name, body={'metadata': {'labels': {'x': 'y'}}, 'status': {'conditions': []}}, content_type='application/merge-patch+json')
        self.assertIn('PythonChecked', [c['type'] for c in relabelled.status.conditions])
        self.assertIn('PythonChecked', [c['type'] for c in scidrs().status.get(name=name).status.conditions])
        scidrs().delete(name=name)


def apply_body(obj, labels):
    """An apply configuration as a JSON string, not a dict.

    The 22.6 client serializes a dict body only for content types containing "json"
    (kubernetes/client/rest.py); for application/apply-patch+yaml it refuses a dict with
    ApiException(status=0, "Cannot prepare a request message...") before sending anything, and
    passes a str through as it is. JSON is YAML, so the server reads the string as the apply
    configuration.
    """
    config_ = {'apiVersion': obj['apiVersion'], 'kind': obj['kind'], 'metadata': {'name': obj['metadata']['name'], 'labels': labels}, 'spec': obj['spec']}
    return json.dumps(config_)


class ServerSideApply(unittest.TestCase):
    def test_apply_creates_conflicts_and_forces(self):
        name = 'py-ssa-' + RUN
        body = service_cidr(name, '10.204.0.0/24')
        created = scidrs().server_side_apply(name=name, field_manager='alpha', body=apply_body(body, {'owner': 'alpha', 'python-run': RUN}))
        self.assertEqual(created.metadata.labels['owner'], 'alpha')
        with self.assertRaises(ConflictError) as caught:
            scidrs().server_side_apply(name=name, field_manager='beta', body=apply_body(body, {'owner': 'beta', 'python-run': RUN}))
        status = json.loads(caught.exception.body)
        self.assertEqual((status['kind'], status['code'], status['reason']), ('Status', 409, 'Conflict'))
        # StatusCause's type is "reason" on the wire.
        self.assertEqual(status['details']['causes'][0], {'reason': 'FieldManagerConflict', 'message': 'conflict with "alpha"', 'field': '.metadata.labels.owner'})
        self.assertIn('conflict with "alpha"', status['message'])
        # force_conflicts=True is sent as force=True, which the server reads as kube does.
        forced = scidrs().server_side_apply(name=name, field_manager='beta', force_conflicts=True, body=apply_body(body, {'owner': 'beta', 'python-run': RUN}))
        self.assertEqual(forced.metadata.labels['owner'], 'beta')
        scidrs().delete(name=name)


class Watches(unittest.TestCase):
    def test_dynamic_client_watch_by_name_and_selectors(self):
        name = 'py-watch-' + RUN
        start = ctbs().get(label_selector='python-run=' + RUN).metadata.resourceVersion
        ctbs().create(body=bundle(name, {'watched': 'yes'}))
        ctbs().patch(name=name, body={'metadata': {'labels': {'step': 'two'}}}, content_type='application/merge-patch+json')
        ctbs().delete(name=name)
        for kwargs in ({'name': name}, {'label_selector': 'watched=yes,python-run=' + RUN}, {'field_selector': 'metadata.name=' + name}):
            events = []
            w = watch.Watch()
            for event in ctbs().watch(resource_version=start, timeout=10, watcher=w, **kwargs):
                events.append((event['type'], event['object'].metadata.name))
                if event['type'] == 'DELETED':
                    w.stop()
            self.assertEqual(events, [('ADDED', name), ('MODIFIED', name), ('DELETED', name)], kwargs)

    def test_watch_stream_on_custom_objects_api(self):
        custom = client.CustomObjectsApi()
        name = 'py-stream-' + RUN
        start = custom.list_cluster_custom_object('networking.platform.io', 'v1', 'servicecidrs', label_selector='python-run=' + RUN)['metadata']['resourceVersion']
        scidrs().create(body=service_cidr(name, '10.205.0.0/24', {'streamed': 'yes'}))
        for kwargs in ({'label_selector': 'streamed=yes'}, {'field_selector': 'metadata.name=' + name}):
            w = watch.Watch()
            seen = []
            for event in w.stream(custom.list_cluster_custom_object, 'networking.platform.io', 'v1', 'servicecidrs', resource_version=start, timeout_seconds=10, **kwargs):
                seen.append((event['type'], event['object']['metadata']['name']))
                if event['type'] == 'ADDED':
                    w.stop()
            self.assertEqual(seen, [('ADDED', name)], kwargs)
        scidrs().delete(name=name)


class ListsAndCollections(unittest.TestCase):
    def test_paging_with_continue(self):
        names = ['py-page-%d-%s' % (i, RUN) for i in range(5)]
        for n in names:
            ctbs().create(body=bundle(n, {'paged': RUN}))
        first = ctbs().get(label_selector='paged=' + RUN, limit=2)
        self.assertEqual(len(first.items), 2)
        self.assertTrue(first.metadata['continue'])
        seen = [i.metadata.name for i in first.items]
        token = first.metadata['continue']
        while token:
            page = ctbs().get(label_selector='paged=' + RUN, limit=2, _continue=token)
            self.assertEqual(page.metadata.resourceVersion, first.metadata.resourceVersion)
            seen += [i.metadata.name for i in page.items]
            token = page.metadata['continue']
        self.assertEqual(sorted(seen), sorted(names))
        # Unfiltered, a page that has more counts what is left (remainingItemCount).
        unfiltered = ctbs().get(limit=1)
        self.assertGreaterEqual(unfiltered.metadata.remainingItemCount, 4)
        ctbs().delete(label_selector='paged=' + RUN)

    def test_delete_collection(self):
        for i in range(3):
            ctbs().create(body=bundle('py-dc-%d-%s' % (i, RUN), {'doomed': RUN}))
        ctbs().create(body=bundle('py-dc-keep-' + RUN, {'kept': RUN}))
        ctbs().delete(label_selector='doomed=' + RUN)
        self.assertEqual(ctbs().get(label_selector='doomed=' + RUN).items, [])
        self.assertEqual(len(ctbs().get(label_selector='kept=' + RUN).items), 1)
        ctbs().delete(name='py-dc-keep-' + RUN)


class Errors(unittest.TestCase):
    def test_422_invalid(self):
        with self.assertRaises(UnprocessibleEntityError) as caught:
            scidrs().create(body=service_cidr('py-bad-' + RUN, 'not-a-cidr'))
        status = json.loads(caught.exception.body)
        self.assertEqual((status['code'], status['reason']), (422, 'Invalid'))
        self.assertEqual(status['details']['kind'], 'ServiceCIDR')
        self.assertEqual(status['details']['group'], 'networking.platform.io')
        self.assertEqual(status['details']['causes'][0]['field'], 'spec.cidrs[0]')
        self.assertTrue(status['message'].startswith('ServiceCIDR.networking.platform.io "py-bad-%s" is invalid: spec.cidrs[0]' % RUN), status['message'])

    def test_409_already_exists_and_stale_update(self):
        name = 'py-conflict-' + RUN
        made = ctbs().create(body=bundle(name))
        with self.assertRaises(ConflictError) as caught:
            ctbs().create(body=bundle(name))
        status = json.loads(caught.exception.body)
        self.assertEqual((status['code'], status['reason']), (409, 'AlreadyExists'))
        self.assertEqual(status['message'], 'clustertrustbundles.certificates.platform.io "%s" already exists' % name)
        ctbs().patch(name=name, body={'metadata': {'labels': {'newer': 'yes'}}}, content_type='application/merge-patch+json')
        stale = made.to_dict()
        stale['metadata']['labels']['stale'] = 'yes'
        with self.assertRaises(ConflictError) as caught:
            ctbs().replace(body=stale)
        status = json.loads(caught.exception.body)
        self.assertEqual((status['code'], status['reason']), (409, 'Conflict'))
        self.assertIn('the object has been modified; please apply your changes to the latest version and try again', status['message'])
        ctbs().delete(name=name)


def ip_address(name, labels=None):
    return {'apiVersion': SC_API, 'kind': 'IPAddress', 'metadata': {'name': name, 'labels': dict(labels or {}, **{'python-run': RUN})},
            'spec': {'parentRef': {'resource': 'services', 'namespace': 'default', 'name': 'web'}}}


class IPAddresses(unittest.TestCase):
    def test_discovery_crud_and_validation(self):
        ips = dyn.resources.get(short_names=['ip'])
        self.assertEqual((ips.kind, ips.group_version, ips.namespaced), ('IPAddress', SC_API, False))
        # A per-run address (10.<a>.<b>.<c>) so that runs against one server do not collide.
        octets = [int(RUN[i:i + 2], 16) for i in (0, 2, 4)]
        name = '10.%d.%d.%d' % tuple(octets)
        made = ips.create(body=ip_address(name, {'ipaddress.kubernetes.io/ip-family': 'IPv4'}))
        self.assertEqual(made.spec.parentRef.name, 'web')
        listed = ips.get(label_selector='python-run=' + RUN)
        self.assertEqual([i.metadata.name for i in listed.items], [name])
        ips.patch(name=name, body={'metadata': {'labels': {'patched': 'yes'}}}, content_type='application/merge-patch+json')
        self.assertEqual(ips.get(name=name).metadata.labels['patched'], 'yes')
        with self.assertRaises(UnprocessibleEntityError) as caught:
            ips.create(body=ip_address('10.0.0.001'))
        status = json.loads(caught.exception.body)
        self.assertEqual(status['message'], 'IPAddress.networking.platform.io "10.0.0.001" is invalid: metadata.name: Invalid value: "10.0.0.001": must not have leading 0s')
        ips.delete(name=name)
        with self.assertRaises(NotFoundError):
            ips.get(name=name)


class Events(unittest.TestCase):
    def test_core_v1_events_typed(self):
        core = client.CoreV1Api()
        name = 'kubernetes.py-' + RUN
        now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
        body = client.CoreV1Event(
            metadata=client.V1ObjectMeta(name=name, labels={'python-run': RUN}),
            involved_object=client.V1ObjectReference(api_version=SC_API, kind='ServiceCIDR', name='kubernetes'),
            reason='PythonTested', message='from the python client', type='Normal', count=1,
            first_timestamp=now, last_timestamp=now, source=client.V1EventSource(component='python-suite'))
        made = core.create_namespaced_event('default', body)
        self.assertEqual((made.metadata.namespace, made.count, made.first_timestamp), ('default', 1, now))
        selector = 'involvedObject.kind=ServiceCIDR,reason=PythonTested'
        self.assertEqual([e.metadata.name for e in core.list_event_for_all_namespaces(field_selector=selector, label_selector='python-run=' + RUN).items], [name])
        self.assertEqual([e.metadata.name for e in core.list_namespaced_event('default', field_selector='source=python-suite', label_selector='python-run=' + RUN).items], [name])
        self.assertEqual(core.list_namespaced_event('kube-system', label_selector='python-run=' + RUN).items, [])
        # The same object in the events.k8s.io shape (raw: this client's EventsV1Event refuses the
        # null eventTime of an event written through the core API, as it would against kube).
        as_v1 = json.loads(client.EventsV1Api().read_namespaced_event(name, 'default', _preload_content=False).data)
        self.assertEqual((as_v1['note'], as_v1['regarding']['name'], as_v1['deprecatedCount'], as_v1['eventTime']), ('from the python client', 'kubernetes', 1, None))
        core.patch_namespaced_event(name, 'default', {'count': 2})
        self.assertEqual(core.read_namespaced_event(name, 'default').count, 2)
        core.delete_namespaced_event(name, 'default')

    def test_events_v1_typed_and_watch(self):
        events = client.EventsV1Api()
        name = 'kubernetes.py1-' + RUN
        when = datetime.datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=datetime.timezone.utc)
        body = client.EventsV1Event(
            metadata=client.V1ObjectMeta(name=name, labels={'python-run': RUN}), event_time=when,
            reporting_controller='python.example.com/suite', reporting_instance='suite-1', action='Testing', reason='PythonTested',
            regarding=client.V1ObjectReference(api_version=SC_API, kind='ServiceCIDR', name='kubernetes'), note='events.k8s.io', type='Warning')
        w = watch.Watch()
        seen = []
        made = events.create_namespaced_event('default', body)
        self.assertEqual(made.event_time, when)
        for ev in w.stream(client.CoreV1Api().list_namespaced_event, 'default', field_selector='metadata.name=' + name, timeout_seconds=10):
            seen.append((ev['type'], ev['object'].metadata.name, ev['object'].reporting_component))
            w.stop()
        self.assertEqual(seen, [('ADDED', name, 'python.example.com/suite')])
        with self.assertRaises(client.exceptions.ApiException) as caught:
            events.create_namespaced_event('default', client.EventsV1Event(metadata=client.V1ObjectMeta(name='bad-' + RUN), event_time=when, type='Normal'))
        self.assertEqual(caught.exception.status, 422)
        self.assertIn('reportingController: Required value', json.loads(caught.exception.body)['message'])
        events.delete_namespaced_event(name, 'default')


if __name__ == '__main__':
    unittest.main(verbosity=2)
