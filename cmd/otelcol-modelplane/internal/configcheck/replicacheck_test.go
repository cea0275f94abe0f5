// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package configcheck

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// hostKeys are the identity keys of the embedded default and the standalone config.
var hostKeys = []any{"cluster", "namespace", "deployment", "replica", "engine", "role", "node"}

// config is a collector configuration with one Prometheus receiver of the given jobs and one
// pipeline through a mapping processor configured by mapping.
func config(mapping map[string]any, jobs ...map[string]any) map[string]any {
	scrape := make([]any, len(jobs))
	for i, j := range jobs {
		scrape[i] = j
	}
	return map[string]any{
		"receivers":  map[string]any{"prometheus": map[string]any{"config": map[string]any{"scrape_configs": scrape}}},
		"processors": map[string]any{"modelplane_mapping": mapping},
		"service": map[string]any{"pipelines": map[string]any{"metrics": map[string]any{
			"receivers":  []any{"prometheus"},
			"processors": []any{"modelplane_mapping"},
		}}},
	}
}

func job(name string, statics ...map[string]any) map[string]any {
	list := make([]any, len(statics))
	for i, s := range statics {
		list[i] = s
	}
	return map[string]any{"job_name": name, "static_configs": list}
}

func static(labels map[string]any, targets ...any) map[string]any {
	return map[string]any{"targets": targets, "labels": labels}
}

var (
	hostIdentity = map[string]any{"identity": map[string]any{"keys": hostKeys}}
	vllmLabels   = map[string]any{"engine": "vllm", "replica": "h1-vllm", "role": "unified"}
)

const replicaAdvice = "whose identity keys leave out service.instance.id: a series they both report is merged into one, " +
	"with either target's value. Give each target its own static_configs entry with its own replica label, " +
	"or add service.instance.id to processors::modelplane_mapping::identity::keys"

func TestShared(t *testing.T) {
	for _, c := range []struct {
		name string
		conf map[string]any
		want []string
	}{
		{"two engines in one entry", config(hostIdentity, job("vllm", static(vllmLabels, "127.0.0.1:8000", "127.0.0.1:8001"))),
			[]string{`receivers::prometheus: targets 127.0.0.1:8000 and 127.0.0.1:8001 of job vllm are one replica to processors::modelplane_mapping (replica="h1-vllm", engine="vllm", role="unified"), ` + replicaAdvice}},
		{"one entry each, as the standalone config says", config(hostIdentity, job("vllm",
			static(vllmLabels, "127.0.0.1:8000"),
			static(map[string]any{"engine": "vllm", "replica": "h1-vllm-2", "role": "unified"}, "127.0.0.1:8001"))), nil},
		{"the same labels in two jobs", config(hostIdentity,
			job("vllm", static(vllmLabels, "127.0.0.1:8000")),
			job("vllm-2", static(vllmLabels, "127.0.0.1:8001")),
			job("vllm-3", static(vllmLabels, "127.0.0.1:8002"))),
			[]string{`receivers::prometheus: targets 127.0.0.1:8000 of job vllm, 127.0.0.1:8001 of job vllm-2 and 127.0.0.1:8002 of job vllm-3 are one replica to processors::modelplane_mapping (replica="h1-vllm", engine="vllm", role="unified"), ` + replicaAdvice}},
		// With service.name among the keys the job tells them apart, not the targets of one.
		{"service.name in the keys", config(map[string]any{"identity": map[string]any{"keys": append([]any{"service.name"}, hostKeys...)}},
			job("vllm", static(vllmLabels, "127.0.0.1:8000")),
			job("vllm-2", static(vllmLabels, "127.0.0.1:8001", "127.0.0.1:8002"))),
			[]string{`receivers::prometheus: targets 127.0.0.1:8001 and 127.0.0.1:8002 of job vllm-2 are one replica to processors::modelplane_mapping (service.name="vllm-2", replica="h1-vllm", engine="vllm", role="unified"), ` + replicaAdvice}},
		{"the default keys name the target", config(nil, job("vllm", static(vllmLabels, "127.0.0.1:8000", "127.0.0.1:8001"))), nil},
		{"identity off keeps the target", config(map[string]any{"identity": map[string]any{"enabled": false, "keys": hostKeys}},
			job("vllm", static(vllmLabels, "127.0.0.1:8000", "127.0.0.1:8001"))), nil},
		{"no replica label claimed", config(hostIdentity, job("dcgm-exporter", static(nil, "gpu-1:9400", "gpu-2:9400"))), nil},
		{"relabelling sets the replica", config(hostIdentity, func() map[string]any {
			j := job("vllm", static(vllmLabels, "127.0.0.1:8000", "127.0.0.1:8001"))
			j["relabel_configs"] = []any{map[string]any{"source_labels": []any{"__address__"}, "target_label": "replica"}}
			return j
		}()), nil},
		{"a page's own labels kept", config(hostIdentity, func() map[string]any {
			j := job("vllm", static(vllmLabels, "127.0.0.1:8000", "127.0.0.1:8001"))
			j["honor_labels"] = true
			return j
		}()), nil},
		{"not a pipeline's receiver", func() map[string]any {
			c := config(hostIdentity, job("vllm", static(vllmLabels, "127.0.0.1:8000", "127.0.0.1:8001")))
			c["service"] = map[string]any{"pipelines": map[string]any{"metrics": map[string]any{"processors": []any{"modelplane_mapping"}}}}
			return c
		}(), nil},
		{"a processor config that does not load is the processor's to report", config(map[string]any{"identity": "on"},
			job("vllm", static(vllmLabels, "127.0.0.1:8000", "127.0.0.1:8001"))), nil},
		{"no pipelines", map[string]any{"receivers": map[string]any{"prometheus": nil}}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, Shared(confmap.NewFromStringMap(c.conf)))
		})
	}
}

// The converter warns in the log and, for validate, in validate's notes, and changes nothing.
func TestSharedReplicasWarn(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	raw := config(hostIdentity, job("vllm", static(vllmLabels, "127.0.0.1:8000", "127.0.0.1:8001")))
	conf := confmap.NewFromStringMap(raw)
	var notes strings.Builder
	require.NoError(t, newChecker(sharedReplicas, zap.New(core), &notes).Convert(context.Background(), conf))
	assert.Equal(t, raw, conf.ToStringMap())
	require.Equal(t, 1, logs.Len())
	e := logs.All()[0]
	assert.Equal(t, zap.WarnLevel, e.Level)
	assert.Contains(t, e.Message, "Scrape targets labelled as one replica: receivers::prometheus: targets 127.0.0.1:8000 and 127.0.0.1:8001 of job vllm")
	assert.Equal(t, "warning: "+Shared(conf)[0]+"\n", notes.String())
}
