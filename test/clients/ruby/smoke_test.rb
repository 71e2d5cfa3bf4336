# Ruby's kubeclient (Debian's ruby-kubeclient 4.9.3, which Ruby tooling such as krane uses)
# against a running platform-apiserver: list, create, get, patch (strategic, merge, JSON, apply),
# watch and delete on both kinds.
#
# Run alone (see README.md here): KUBECONFIG=<the server's admin.kubeconfig> ruby smoke_test.rb
# test/e2e/ruby-client.test.ts runs it against a server it starts.

require 'minitest/autorun'
require 'kubeclient'
require 'openssl'
require 'securerandom'

RUN = SecureRandom.hex(3)

module Fixtures
  def self.context
    @context ||= Kubeclient::Config.read(ENV.fetch('KUBECONFIG')).context
  end

  # One client per group/version: kubeclient discovers /apis/<group>/<version> and defines
  # get_service_cidrs, create_service_cidr, watch_service_cidrs, ... from it.
  def self.client(group, version)
    ctx = context
    Kubeclient::Client.new("#{ctx.api_endpoint}/apis/#{group}", version, ssl_options: ctx.ssl_options, auth_options: ctx.auth_options)
  end

  # A self-signed CA certificate for the ClusterTrustBundles, made here.
  def self.ca_pem
    @ca_pem ||= begin
      key = OpenSSL::PKey::EC.generate('prime256v1')
      cert = OpenSSL::X509::Certificate.new
      cert.version = 2
      cert.serial = SecureRandom.random_number(2**64)
      cert.subject = cert.issuer = OpenSSL::X509::Name.parse('/CN=ruby-smoke')
      cert.public_key = key
      cert.not_before = Time.now - 60
      cert.not_after = Time.now + 86_400
      ext = OpenSSL::X509::ExtensionFactory.new(cert, cert)
      cert.add_extension(ext.create_extension('basicConstraints', 'CA:TRUE', true))
      cert.add_extension(ext.create_extension('keyUsage', 'keyCertSign,cRLSign', true))
      cert.sign(key, OpenSSL::Digest.new('SHA256'))
      cert.to_pem
    end
  end
end

KINDS = {
  'ServiceCIDR' => {
    client: -> { Fixtures.client('networking.platform.io', 'v1') },
    singular: 'service_cidr', plural: 'service_cidrs',
    make: ->(name, labels) { { apiVersion: 'networking.platform.io/v1', kind: 'ServiceCIDR', metadata: { name: name, labels: labels }, spec: { cidrs: ['10.211.0.0/24'] } } }
  },
  'ClusterTrustBundle' => {
    client: -> { Fixtures.client('certificates.platform.io', 'v1beta1') },
    singular: 'cluster_trust_bundle', plural: 'cluster_trust_bundles',
    make: ->(name, labels) { { apiVersion: 'certificates.platform.io/v1beta1', kind: 'ClusterTrustBundle', metadata: { name: name, labels: labels }, spec: { trustBundle: Fixtures.ca_pem } } }
  }
}.freeze

class SmokeTest < Minitest::Test
  KINDS.each do |kind, k|
    define_method("test_#{k[:singular]}_list_create_get_patch_watch_delete") do
      c = k[:client].call
      name = "ruby-#{RUN}"
      labels = { 'ruby-run' => RUN }
      before = c.public_send("get_#{k[:plural]}", label_selector: "ruby-run=#{RUN}")
      assert_equal 0, before.size
      rv = before.resourceVersion

      created = c.public_send("create_#{k[:singular]}", Kubeclient::Resource.new(k[:make].call(name, labels)))
      assert_equal name, created.metadata.name
      assert_equal kind, c.public_send("get_#{k[:singular]}", name).kind
      assert_equal [name], c.public_send("get_#{k[:plural]}", label_selector: "ruby-run=#{RUN}").map { |o| o.metadata.name }

      assert_equal 'yes', c.public_send("patch_#{k[:singular]}", name, metadata: { labels: { strategic: 'yes' } }).metadata.labels.strategic
      assert_equal 'yes', c.public_send("merge_patch_#{k[:singular]}", name, metadata: { labels: { merge: 'yes' } }).metadata.labels.merge
      json = c.public_send("json_patch_#{k[:singular]}", name, [{ op: 'add', path: '/metadata/labels/json', value: 'yes' }])
      assert_equal 'yes', json.metadata.labels.json
      # kubeclient's apply sends force=true and the body's to_json: a Hash (a Kubeclient::Resource
      # would serialize as a string, which no server takes as an apply configuration).
      applied = c.public_send("apply_#{k[:singular]}", k[:make].call(name, labels.merge('applied' => 'yes')), field_manager: 'ruby-smoke')
      assert_equal 'yes', applied.metadata.labels.applied

      # kubeclient watches through the deprecated /watch/<resource> path, from the list's version.
      # Until the applied label shows (the ServiceCIDR controller's own writes come in between).
      events = []
      watcher = c.public_send("watch_#{k[:plural]}", resource_version: rv, label_selector: "ruby-run=#{RUN}", timeoutSeconds: 20)
      watcher.each do |notice|
        events << [notice.type, notice.object.metadata.name, notice.object.metadata.labels.to_h.keys.sort]
        break if notice.object.metadata.labels.applied == 'yes'
      end
      watcher.finish
      assert_equal ['ADDED', name, [:"ruby-run"]], events.first
      assert_equal ['MODIFIED', name, %i[applied json merge ruby-run strategic]], events.last
      assert(events[1..].all? { |type, n, _| type == 'MODIFIED' && n == name }, events.inspect)

      c.public_send("delete_#{k[:singular]}", name)
      if kind == 'ClusterTrustBundle'
        assert_raises(Kubeclient::ResourceNotFoundError) { c.public_send("get_#{k[:singular]}", name) }
      else
        # A ServiceCIDR goes once its controller drops the finalizer: marked for deletion now.
        refute_nil c.public_send("get_#{k[:singular]}", name).metadata.deletionTimestamp
      end
    end
  end

  def test_errors_are_http_errors_with_the_status
    c = KINDS['ServiceCIDR'][:client].call
    err = assert_raises(Kubeclient::HttpError) do
      c.create_service_cidr(Kubeclient::Resource.new(KINDS['ServiceCIDR'][:make].call("ruby-bad-#{RUN}", {}).merge(spec: { cidrs: ['nope'] })))
    end
    assert_equal 422, err.error_code
    assert_match(/^ServiceCIDR.networking.platform.io "ruby-bad-#{RUN}" is invalid: spec.cidrs\[0\]/, err.message)
  end
end
