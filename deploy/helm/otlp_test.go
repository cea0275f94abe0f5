// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package helm

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"sigs.k8s.io/yaml"

	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/freeport"
)

// renderedConfig is the collector config the chart renders, as a map.
func renderedConfig(t *testing.T, out map[string]string) map[string]any {
	t.Helper()
	var cfg map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(collectorConfigOf(t, out)), &cfg))
	return cfg
}

// dig walks a decoded YAML document by keys.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// otlp.enabled: the collector receives OTLP on the pod IP, published on the node's address,
// feeds it to the one pipeline, and maps OpenTelemetry names; off, none of it is there.
func TestOTLPPush(t *testing.T) {
	out, err := renderValues(t, "otlp: {enabled: true}\n")
	require.NoError(t, err)
	ds := daemonSetOf(t, out)
	c := ds.Spec.Template.Spec.Containers[0]
	hostPorts := map[string][2]int32{}
	for _, p := range c.Ports {
		hostPorts[p.Name] = [2]int32{p.ContainerPort, p.HostPort}
	}
	assert.Equal(t, [2]int32{4317, 4317}, hostPorts["otlp-grpc"])
	assert.Equal(t, [2]int32{4318, 4318}, hostPorts["otlp-http"])
	var podIP bool
	for _, e := range c.Env {
		podIP = podIP || e.Name == "POD_IP" && e.ValueFrom.FieldRef.FieldPath == "status.podIP"
	}
	assert.True(t, podIP)
	cfg := renderedConfig(t, out)
	// In brackets, so an IPv6 pod IP is an address too.
	assert.Equal(t, "[${env:POD_IP}]:4317", dig(cfg, "receivers", "otlp", "protocols", "grpc", "endpoint"))
	assert.Equal(t, "[${env:POD_IP}]:4318", dig(cfg, "receivers", "otlp", "protocols", "http", "endpoint"))
	assert.Contains(t, dig(cfg, "service", "pipelines", "metrics", "receivers"), "otlp")
	assert.Equal(t, true, dig(cfg, "processors", "modelplane_mapping", "otlp_names"))
	validateCollectorConfig(t, out)

	_, err = renderValues(t, "otlp: {enabled: true, httpPort: 8888}\n")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "otlp.httpPort: 8888 is already selfTelemetry.port")
	_, err = renderValues(t, "otlp: {enabled: true, grpcPort: 4318}\n")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "otlp.httpPort: 4318 is already otlp.grpcPort")
	_, err = renderValues(t, "otlp: {enabled: true, grpcPort: 0}\n")
	require.Error(t, err, "the schema refuses port 0")

	off, err := renderValues(t, "")
	require.NoError(t, err)
	cfg = renderedConfig(t, off)
	assert.Nil(t, dig(cfg, "receivers", "otlp"))
	assert.NotContains(t, dig(cfg, "service", "pipelines", "metrics", "receivers"), "otlp")
	assert.Nil(t, dig(cfg, "processors", "modelplane_mapping", "otlp_names"))
	assert.NotContains(t, off[chartDir+"/templates/daemonset.yaml"], "hostPort")

	// A pod IP of either family: on an IPv6 cluster an unbracketed endpoint failed the
	// collector's start ("too many colons in address").
	for _, podIP := range []string{"127.0.0.1", "::1"} {
		t.Run(podIP, func(t *testing.T) {
			ln, err := net.Listen("tcp", net.JoinHostPort(podIP, "0"))
			if err != nil {
				t.Skipf("no %s on this machine: %v", podIP, err)
			}
			require.NoError(t, ln.Close())
			pushThroughRenderedConfig(t, podIP)
		})
	}
}

// pushThroughRenderedConfig starts the collector with the chart's OTLP receiver and mapping
// processor (with podIP as the pod's IP; a Prometheus endpoint standing in for the sinks),
// pushes the AI gateway's request-duration histogram over OTLP/HTTP under its OpenTelemetry
// name, and reads it back mapped.
func pushThroughRenderedConfig(t *testing.T, podIP string) {
	bin := collectorBinaryFor(t, "OTLP push not run")
	httpPort, grpcPort, promPort := freeport.Port(t), freeport.Port(t), freeport.Port(t)
	out, err := renderValues(t, fmt.Sprintf("otlp: {enabled: true, grpcPort: %d, httpPort: %d}\n", grpcPort, httpPort))
	require.NoError(t, err)
	rendered := renderedConfig(t, out)
	startRenderedCollectorOn(t, bin, podIP, otlpPipeline(rendered, "prometheus", map[string]any{"endpoint": fmt.Sprintf("127.0.0.1:%d", promPort), "resource_constant_labels": map[string]any{"included": []string{"*"}}}))

	page := pushUntilServed(t, net.JoinHostPort(podIP, strconv.Itoa(httpPort)), promPort, gatewayHistogram(), "modelplane_frontend_request_duration_seconds_count{")
	assert.Contains(t, page, `gen_ai_operation_name="chat"`)
	assert.Contains(t, page, `gen_ai_request_model="llama"`)
	assert.Contains(t, page, `le="0.5"`)
	assert.NotContains(t, page, "gen_ai_server_request_duration", "nothing leaves under the source name")
}

// otlpPipeline is a collector config of the chart's rendered OTLP receiver and mapping
// processor in one pipeline to the exporter named, the collector's own metrics off.
func otlpPipeline(rendered map[string]any, exporter string, exporterConfig any) map[string]any {
	return map[string]any{
		"receivers":  map[string]any{"otlp": dig(rendered, "receivers", "otlp")},
		"processors": map[string]any{"modelplane_mapping": dig(rendered, "processors", "modelplane_mapping")},
		"exporters":  map[string]any{exporter: exporterConfig},
		"service": map[string]any{
			"telemetry": map[string]any{"metrics": map[string]any{"level": "none"}},
			"pipelines": map[string]any{"metrics": map[string]any{
				"receivers": []string{"otlp"}, "processors": []string{"modelplane_mapping"}, "exporters": []string{exporter},
			}},
		},
	}
}

// gatewayHistogram is the AI gateway's request-duration histogram as it pushes it over OTLP,
// under its OpenTelemetry name.
func gatewayHistogram() pmetric.Metrics {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	rm.Resource().Attributes().PutStr("service.name", "ai-gateway")
	m := rm.ScopeMetrics().AppendEmpty().Metrics().AppendEmpty()
	m.SetName("gen_ai.server.request.duration")
	m.SetUnit("s")
	h := m.SetEmptyHistogram()
	h.SetAggregationTemporality(pmetric.AggregationTemporalityCumulative)
	dp := h.DataPoints().AppendEmpty()
	dp.SetTimestamp(1)
	dp.Attributes().PutStr("gen_ai.operation.name", "chat")
	dp.Attributes().PutStr("gen_ai.request.model", "llama")
	dp.ExplicitBounds().FromRaw([]float64{0.5, 1})
	dp.BucketCounts().FromRaw([]uint64{2, 1, 0})
	dp.SetCount(3)
	dp.SetSum(1.5)
	return md
}

// pushUntilServed pushes md over OTLP/HTTP to the collector's port httpPort until the
// Prometheus endpoint at promPort serves a page that contains want, and returns that page.
func pushUntilServed(t *testing.T, otlpHTTP string, promPort int, md pmetric.Metrics, want string) string {
	t.Helper()
	body, err := pmetricotlp.NewExportRequestFromMetrics(md).MarshalProto()
	require.NoError(t, err)
	var page string
	require.Eventually(t, func() bool {
		resp, err := http.Post("http://"+otlpHTTP+"/v1/metrics", "application/x-protobuf", bytes.NewReader(body))
		if err != nil {
			return false
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return false
		}
		r, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", promPort))
		if err != nil {
			return false
		}
		defer r.Body.Close()
		b, err := io.ReadAll(r.Body)
		page = string(b)
		return err == nil && strings.Contains(page, want)
	}, 30*time.Second, 200*time.Millisecond, "%s on the Prometheus endpoint", want)
	return page
}

// An OTLP/gRPC sink written http://, as a plaintext in-cluster gateway is: the exporter
// connects with TLS unless tls.insecure is true, whatever the scheme says, so every send
// failed its handshake ("tls: first record does not look like a TLS handshake", a grpc
// warning in the log) and the queue dropped what it held. The chart renders tls.insecure for
// it, and the rendered exporter delivers to a gateway that serves no TLS.
func TestGRPCSinkOverPlaintext(t *testing.T) {
	bin := collectorBinaryFor(t, "the plaintext gRPC sink not run")
	gatewayPort, httpPort, promPort := freeport.Port(t), freeport.Port(t), freeport.Port(t)
	out, err := renderValues(t, fmt.Sprintf("delivery: {persistentQueue: false}\nsinks: [{name: gateway, type: otlp, endpoint: \"http://127.0.0.1:%d\"}]\n", gatewayPort))
	require.NoError(t, err)
	validateCollectorConfig(t, out)
	exporter, ok := dig(renderedConfig(t, out), "exporters", "otlp_grpc/gateway").(map[string]any)
	require.True(t, ok, "the rendered otlp_grpc/gateway")
	assert.Equal(t, map[string]any{"insecure": true}, exporter["tls"])

	// The gateway: a collector that receives OTLP/gRPC without TLS and serves what it got.
	runCollector(t, map[string]any{
		"receivers": map[string]any{"otlp": map[string]any{"protocols": map[string]any{"grpc": map[string]any{"endpoint": fmt.Sprintf("127.0.0.1:%d", gatewayPort)}}}},
		"exporters": map[string]any{"prometheus": map[string]any{"endpoint": fmt.Sprintf("127.0.0.1:%d", promPort)}},
		"service": map[string]any{
			"telemetry": map[string]any{"metrics": map[string]any{"level": "none"}},
			"pipelines": map[string]any{"metrics": map[string]any{"receivers": []string{"otlp"}, "exporters": []string{"prometheus"}}},
		},
	}, func(config string) *exec.Cmd { return exec.Command(bin, "--config="+config) })
	// The node's collector, sending through the rendered exporter.
	runCollector(t, map[string]any{
		"receivers": map[string]any{"otlp": map[string]any{"protocols": map[string]any{"http": map[string]any{"endpoint": fmt.Sprintf("127.0.0.1:%d", httpPort)}}}},
		"exporters": map[string]any{"otlp_grpc/gateway": exporter},
		"service": map[string]any{
			"telemetry": map[string]any{"metrics": map[string]any{"level": "none"}},
			"pipelines": map[string]any{"metrics": map[string]any{"receivers": []string{"otlp"}, "exporters": []string{"otlp_grpc/gateway"}}},
		},
	}, func(config string) *exec.Cmd { return exec.Command(bin, "--config="+config) })
	page := pushUntilServed(t, fmt.Sprintf("127.0.0.1:%d", httpPort), promPort, gatewayHistogram(), "gen_ai_server_request_duration")
	assert.Contains(t, page, `gen_ai_request_model="llama"`)
}
