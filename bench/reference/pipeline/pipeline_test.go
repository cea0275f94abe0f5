// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package pipeline

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"testing"

	"go.opentelemetry.io/collector/pdata/pmetric"
)

func frame(b []byte) []byte {
	out := binary.BigEndian.AppendUint32(nil, uint32(len(b)))
	return append(out, b...)
}

// A request through Serve gives the chain's output: a renamed metric with its cluster, and
// the one a filter drops gone; a config the chain refuses comes back as an error naming it.
func TestServe(t *testing.T) {
	procs := map[string]any{
		"resource/cluster":      map[string]any{"attributes": []any{map[string]any{"key": "cluster", "value": "c", "action": "upsert"}}},
		"transform/identity":    map[string]any{"metric_statements": []any{map[string]any{"context": "datapoint", "statements": []any{`keep_keys(datapoint.attributes, ["gpu"]) where metric.name == "none"`}}}},
		"transform/modelplane":  map[string]any{"metric_statements": []any{map[string]any{"context": "metric", "statements": []any{`set(metric.name, "modelplane_x") where metric.name == "x"`}}}},
		"groupbyattrs/identity": map[string]any{},
		"filter/modelplane":     map[string]any{"metrics": map[string]any{"metric": []any{`not IsMatch(metric.name, "^modelplane_")`}}},
	}
	rawCfg, err := json.Marshal(procs)
	if err != nil {
		t.Fatal(err)
	}
	md := pmetric.NewMetrics()
	ms := md.ResourceMetrics().AppendEmpty().ScopeMetrics().AppendEmpty().Metrics()
	for _, name := range []string{"x", "y"} {
		m := ms.AppendEmpty()
		m.SetName(name)
		m.SetEmptyGauge().DataPoints().AppendEmpty().SetDoubleValue(1.5)
	}
	rawMD, err := (&pmetric.ProtoMarshaler{}).MarshalMetrics(md)
	if err != nil {
		t.Fatal(err)
	}
	bad, _ := json.Marshal(map[string]any{"resource/cluster": map[string]any{}})
	var req bytes.Buffer
	req.Write(frame(rawCfg))
	req.Write(frame(rawMD))
	req.Write(frame(bad))
	req.Write(frame(rawMD))
	var resp bytes.Buffer
	if err := Serve(&req, &resp); err != nil {
		t.Fatal(err)
	}

	status, _ := resp.ReadByte()
	n := binary.BigEndian.Uint32(resp.Next(4))
	if status != 0 {
		t.Fatalf("status %d: %s", status, resp.Next(int(n)))
	}
	out, err := (&pmetric.ProtoUnmarshaler{}).UnmarshalMetrics(resp.Next(int(n)))
	if err != nil {
		t.Fatal(err)
	}
	rm := out.ResourceMetrics()
	if rm.Len() != 1 || rm.At(0).ScopeMetrics().At(0).Metrics().Len() != 1 {
		t.Fatalf("want one metric out, got %d resources", rm.Len())
	}
	if got := rm.At(0).ScopeMetrics().At(0).Metrics().At(0).Name(); got != "modelplane_x" {
		t.Errorf("metric %q, want modelplane_x", got)
	}
	if v, _ := rm.At(0).Resource().Attributes().Get("cluster"); v.Str() != "c" {
		t.Errorf("cluster %q, want c", v.Str())
	}

	status, _ = resp.ReadByte()
	n = binary.BigEndian.Uint32(resp.Next(4))
	if msg := string(resp.Next(int(n))); status != 1 || !bytes.Contains([]byte(msg), []byte(`"filter/modelplane"`)) {
		t.Errorf("want an error naming filter/modelplane, got status %d: %s", status, msg)
	}
}
