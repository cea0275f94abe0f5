// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package metricmapping

import (
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelplaneai/otelcol-modelplane/internal/units"
)

// The example of Modelplane's guide (testdata/anchor/README.md) loads unchanged.
func TestDecodeGuideExample(t *testing.T) {
	readme, err := os.ReadFile("../../../testdata/anchor/README.md")
	require.NoError(t, err)
	example := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindSubmatch(readme)
	require.NotNil(t, example)
	res := Decode("guide.yaml", example[1])
	require.Empty(t, res.Errors)
	require.Len(t, res.Mappings, 1)
	m := res.Mappings[0]
	assert.Equal(t, "my-engine", m.Name)
	require.Len(t, m.Metrics, 6)
	assert.Equal(t, "Milliseconds", m.Metrics[1].FromUnit)
	assert.Equal(t, PartCount, m.Metrics[2].Part)
	assert.Equal(t, "input", *m.Metrics[3].Labels[0].Value)
	assert.Equal(t, map[string]string{"eos": "stop", "max_tokens": "length"}, m.Metrics[5].Labels[0].Values)
}

func TestDecodeSkipsOtherKindsAndReportsEachBadDocument(t *testing.T) {
	data := `apiVersion: v1
kind: ConfigMap
metadata:
  name: not-a-mapping
data:
  x: y
---
apiVersion: modelplane.ai/v1alpha1
kind: MetricMapping
metadata:
  name: good
spec:
  metrics:
  - from: a
    to: modelplane_a
---
apiVersion: modelplane.ai/v1alpha1
kind: MetricMapping
metadata:
  name: my-engine
spec:
  metrics:
  - from: a
    to: modelplane_a
  - from: b
    to: modelplane_b
  - from: c
    to: modelplane_c
  - from: d
    to: modelplane_d
    fromUnit: Milisecond
---
apiVersion: modelplane.ai/v1alpha1
kind: MetricMapping
metadata:
  name: typo
spec:
  metrics:
  - from: a
    too: modelplane_a
---
apiVersion: modelplane.ai/v2
kind: MetricMapping
metadata:
  name: future
spec: {}
---
`
	res := Decode("mappings/engine.yaml", []byte(data))
	require.Len(t, res.Mappings, 1)
	assert.Equal(t, "good", res.Mappings[0].Name)
	assert.Equal(t, "mappings/engine.yaml", res.Mappings[0].Source)
	assert.Equal(t, []string{`mappings/engine.yaml: document 1 (ConfigMap "not-a-mapping")`}, res.Skipped)
	require.Len(t, res.Errors, 3)
	assert.Equal(t, `mappings/engine.yaml: MetricMapping "my-engine": line 31: metrics[3].fromUnit: unknown unit "Milisecond", did you mean "Milliseconds"? (want one of Millijoules, Milliseconds, Nanoseconds, Mebibytes, Percent, Microseconds, Kibibytes, Gibibytes, Kilobytes, Megabytes, Gigabytes, Milliwatts)`, res.Errors[0].Error())
	// A misspelt field, with its line in the file and the fields allowed there.
	assert.Equal(t, `mappings/engine.yaml: MetricMapping "typo": line 40: metrics[0]: unknown field "too" (want from, to, fromUnit, part, labels)`, res.Errors[1].Error())
	assert.Equal(t, `mappings/engine.yaml: MetricMapping "future": apiVersion: "modelplane.ai/v2" is not supported (want modelplane.ai/v1alpha1)`, res.Errors[2].Error())
}

func TestDecodeSyntaxErrorNamesFileAndDocument(t *testing.T) {
	res := Decode("m.yaml", []byte("apiVersion: modelplane.ai/v1alpha1\nkind: MetricMapping\nmetadata: {name: a}\nspec:\n  metrics: [\n"))
	require.Len(t, res.Errors, 1)
	assert.True(t, strings.HasPrefix(res.Errors[0].Error(), "m.yaml: document 1: yaml: "), res.Errors[0].Error())
	assert.Empty(t, res.Mappings)
}

// A value of the wrong kind is named by its line in the file (not in a re-encoded copy of the
// document, as yaml counts them), its field and what was wanted, every one at once; a number
// or a boolean where text goes is its text, as Kubernetes would refuse but yaml reads it.
func TestDecodeWrongTypes(t *testing.T) {
	const file = `# My engine's mappings.

apiVersion: modelplane.ai/v1alpha1
kind: MetricMapping
metadata:
  name: first
spec:
  metrics:
  - {from: a, to: modelplane_a, labels: [{name: gpu, value: 0}, {name: ok, from: b, values: {"1": true}}]}
---
apiVersion: modelplane.ai/v1alpha1
kind: MetricMapping
metadata:
  name: second
spec:
  metrics:

  - from: "vllm:prompt_tokens_total"
    to: modelplane_prompt_tokens
    labels:
      model: {from: model_name}
  - from: ["a", "b"]
    to: modelplane_x
    labels: direction
  - from: "y"
    to: modelplane_y
    labels:
    - name: a
      from: b
      values: [x, y]
    - tuo: typo
`
	res := Decode("m.yaml", []byte(file))
	require.Len(t, res.Mappings, 1)
	assert.Equal(t, []Label{{Name: "gpu", Value: new("0")}, {Name: "ok", From: "b", Values: map[string]string{"1": "true"}}}, res.Mappings[0].Metrics[0].Labels)
	require.Len(t, res.Errors, 1)
	assert.Equal(t, `m.yaml: MetricMapping "second": `+
		`line 20: metrics[0].labels: want a list, got a mapping (each label is an item of the list that names it: "- name: model", then its value or from); `+
		`line 22: metrics[1].from: want a single value, got a list; `+
		`line 24: metrics[1].labels: want a list, got "direction"; `+
		`line 30: metrics[2].labels[0].values: want a mapping, got a list; `+
		`line 31: metrics[2].labels[1]: unknown field "tuo" (want name, value, from, values)`, res.Errors[0].Error())

	// Without lines, as for a cluster object, the same problems.
	res = DecodeObject("cluster", []byte(file))
	require.Len(t, res.Errors, 1)
	assert.Contains(t, res.Errors[0].Error(), `cluster: MetricMapping "second": metrics[0].labels: want a list, got a mapping`)
}

// FuzzDecode: arbitrary YAML never panics, and whatever loads is valid.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(kubectlList))
	f.Add([]byte("apiVersion: modelplane.ai/v1alpha1\nkind: MetricMapping\nmetadata: {name: a}\nspec:\n  metrics:\n  - {from: a, to: modelplane_a, fromUnit: Milliseconds}\n"))
	f.Add([]byte("kind: MetricMapping\n---\n- [\n"))
	f.Add([]byte("apiVersion: modelplane.ai/v1alpha1\nkind: MetricMapping\nmetadata: {name: a}\nspec: {metrics: [{from: a, to: modelplane_a, labels: [{name: x, from: y, values: {a: b}}]}]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		res := Decode("fuzz.yaml", data)
		for _, m := range res.Mappings {
			if err := Validate(&m); err != nil {
				t.Fatalf("loaded an invalid mapping: %v", err)
			}
		}
		for _, err := range res.Errors {
			if !strings.HasPrefix(err.Error(), "fuzz.yaml: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			var merr *Error
			if errors.As(err, &merr) {
				for _, fe := range merr.Errs {
					if fe.Line < 1 {
						t.Fatalf("a problem of a file without its line: %v", err)
					}
				}
			}
		}
	})
}

// What `kubectl get metricmappings -o yaml` prints for a cluster's MetricMappings: one List,
// items with the server's metadata and status.
const kubectlList = `apiVersion: v1
items:
- apiVersion: modelplane.ai/v1alpha1
  kind: MetricMapping
  metadata:
    creationTimestamp: "2026-11-02T09:14:03Z"
    generation: 3
    name: triton
    resourceVersion: "48211"
    uid: 7d0c5d7e-2f5e-4c1b-9b7e-4b1c3a1f0e2d
  spec:
    metrics:
    - from: nv_inference_pending_request_count
      to: modelplane_requests_waiting
  status:
    conditions:
    - lastTransitionTime: "2026-11-02T09:14:04Z"
      status: "True"
      type: Accepted
- apiVersion: modelplane.ai/v1alpha1
  kind: MetricMapping
  metadata:
    name: broken
  spec:
    metrics:
    - from: x
      to: modelplane_x
      fromUnit: Hours
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: stray
- apiVersion: modelplane.ai/v1alpha1
  kind: MetricMapping
  metadata:
    name: tgi
  spec:
    metrics:
    - from: tgi_queue_size
      to: modelplane_requests_waiting
kind: List
metadata:
  resourceVersion: ""
`

func TestDecodeKubectlList(t *testing.T) {
	res := Decode("mappings/cluster.yaml", []byte(kubectlList))
	require.Len(t, res.Mappings, 2)
	assert.Equal(t, "triton", res.Mappings[0].Name)
	assert.Equal(t, "nv_inference_pending_request_count", res.Mappings[0].Metrics[0].From)
	assert.Equal(t, "tgi", res.Mappings[1].Name)
	require.Len(t, res.Errors, 1)
	assert.Contains(t, res.Errors[0].Error(), `mappings/cluster.yaml: MetricMapping "broken": line 28: metrics[0].fromUnit: unknown unit "Hours"`)
	assert.Equal(t, []string{`mappings/cluster.yaml: document 1, items[2] (ConfigMap "stray")`}, res.Skipped)
}

func TestDecodeKubectlListAsJSON(t *testing.T) {
	// kubectl get metricmappings -o json
	data := `{
    "apiVersion": "v1",
    "items": [
        {
            "apiVersion": "modelplane.ai/v1alpha1",
            "kind": "MetricMapping",
            "metadata": {"name": "triton", "uid": "7d0c5d7e"},
            "spec": {"metrics": [{"from": "nv_inference_pending_request_count", "to": "modelplane_requests_waiting"}]}
        },
        {
            "apiVersion": "modelplane.ai/v1alpha1",
            "kind": "MetricMapping",
            "spec": {"metrics": [{"from": "a", "to": "modelplane_a", "lables": []}]}
        }
    ],
    "kind": "List",
    "metadata": {"resourceVersion": ""}
}`
	res := Decode("cluster.json", []byte(data))
	require.Len(t, res.Mappings, 1)
	assert.Equal(t, "triton", res.Mappings[0].Name)
	require.Len(t, res.Errors, 1)
	// An item without a name is named by where it stands, and its missing name at the item.
	// The line is the file's, not the item's (yaml's own strict decoding counted from the item).
	assert.Equal(t, `cluster.json: document 1, items[1]: line 10: metadata.name: required; `+
		`line 13: metrics[0]: unknown field "lables" (want from, to, fromUnit, part, labels)`, res.Errors[0].Error())
}

func TestDecodeMetricMappingList(t *testing.T) {
	data := "apiVersion: modelplane.ai/v1alpha1\nkind: MetricMappingList\nmetadata: {}\nitems:\n- apiVersion: modelplane.ai/v1alpha1\n  kind: MetricMapping\n  metadata: {name: a}\n  spec: {metrics: [{from: a, to: modelplane_a}]}\n"
	res := Decode("m.yaml", []byte(data))
	require.Len(t, res.Mappings, 1)
	assert.Equal(t, "a", res.Mappings[0].Name)
	assert.Empty(t, res.Errors)
}

func TestDecodeListErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		data, err string
		skipped   []string
	}{
		"items not a list": {data: "apiVersion: v1\nkind: List\nitems: {a: b}\n", err: "m.yaml: document 1: List: items: want a list of objects, got a mapping"},
		"empty list":       {data: "apiVersion: v1\nkind: List\nitems: []\n"},
		"null items":       {data: "apiVersion: v1\nkind: List\nitems:\n"},
		"item not object":  {data: "apiVersion: v1\nkind: List\nitems: [3]\n", err: `m.yaml: document 1, items[0]: not a Kubernetes object: line 3: want a mapping of fields, got "3"`},
		"metadata a list":  {data: "apiVersion: modelplane.ai/v1alpha1\nkind: MetricMapping\nmetadata:\n- name: x\n", err: `m.yaml: document 1: not a Kubernetes object: line 3: metadata: want a mapping of fields, got a list`},
		// A list of another API group's kind is not ours to read as a list.
		"other list kind": {data: "apiVersion: v1\nkind: ConfigMapList\nitems: []\n", skipped: []string{`m.yaml: document 1 (ConfigMapList "")`}},
	} {
		t.Run(name, func(t *testing.T) {
			res := Decode("m.yaml", []byte(tc.data))
			assert.Empty(t, res.Mappings)
			assert.Equal(t, tc.skipped, res.Skipped)
			if tc.err == "" {
				assert.Empty(t, res.Errors)
				return
			}
			require.Len(t, res.Errors, 1)
			assert.Contains(t, res.Errors[0].Error(), tc.err)
		})
	}
}

// Misspelt fields at every depth are named together, each with its line, its path and the
// fields allowed there.
func TestDecodeNamesEveryUnknownField(t *testing.T) {
	data := `apiVersion: modelplane.ai/v1alpha1
kind: MetricMapping
metadata: {name: typos, labels: {team: a}}
specs: {}
spec:
  metric: []
  metrics:
  - {from: a, to: modelplane_a}
  - from: b
    to: modelplane_b
    form: c
    labels:
    - {name: x, vaule: y}
status: {anything: goes}
`
	res := Decode("t.yaml", []byte(data))
	require.Len(t, res.Errors, 1)
	assert.Equal(t, `t.yaml: MetricMapping "typos": `+
		`line 4: unknown field "specs" (want apiVersion, kind, metadata, spec, status); `+
		`line 6: spec: unknown field "metric" (want metrics); `+
		`line 11: metrics[1]: unknown field "form" (want from, to, fromUnit, part, labels); `+
		`line 13: metrics[1].labels[0]: unknown field "vaule" (want name, value, from, values)`, res.Errors[0].Error())
}

// YAML anchors, aliases and merge keys are read as yaml reads them: shared labels merged
// into entries are no unknown field, and a misspelt field in the anchored part is one.
func TestDecodeMergeKeys(t *testing.T) {
	data := `apiVersion: modelplane.ai/v1alpha1
kind: MetricMapping
metadata: {name: anchors}
spec:
  metrics:
  - &base {from: a, to: modelplane_a, labels: [&lbl {name: x, value: y}]}
  - <<: *base
    from: b
    to: modelplane_b
  - {from: c, to: modelplane_c, labels: [*lbl]}
  - <<: [*base]
    from: d
    to: modelplane_d
`
	res := Decode("a.yaml", []byte(data))
	require.Empty(t, res.Errors)
	require.Len(t, res.Mappings, 1)
	require.Len(t, res.Mappings[0].Metrics, 4)
	assert.Equal(t, "modelplane_b", res.Mappings[0].Metrics[1].To)
	assert.Equal(t, "x", res.Mappings[0].Metrics[1].Labels[0].Name)

	res = Decode("a.yaml", []byte(strings.Replace(data, "&lbl {name: x, value: y}", "&lbl {name: x, valeu: y}", 1)))
	require.Len(t, res.Errors, 1)
	assert.Equal(t, `a.yaml: MetricMapping "anchors": line 6: metrics[0].labels[0]: unknown field "valeu" (want name, value, from, values)`, res.Errors[0].Error(), "said once, where it is written")
}

// One run names every problem of a document, each at its line and in the file's order: the
// misspelt keys and what the schema refuses. What a misspelt key leaves out of its object
// (the "to" a "too" was meant to be) is not said twice, also where the object is an anchor
// that other entries use. A value an alias brings is named at the line it is written on.
func TestDecodeNamesEveryProblemAtItsLine(t *testing.T) {
	data := `apiVersion: modelplane.ai/v1alpha1
kind: MetricMapping
metadata:
  name: triton
spec:
  metrics:
  - from: nv_inference_request_duration_us
    to: modelplane_request_duration_seconds
    fromUnits: Microseconds
  - from: nv_gpu_power_usage
    to: gpu_power_watts
    fromUnit: Seconds
  - from: c
    too: modelplane_c
  - from: d
    to: modelplane_d
    labels:
    - &reason {name: reason, form: finish_reason, values: {eos: "` + strings.Repeat("x", 254) + `"}}
  - from: e
    to: modelplane_e
    labels: [*reason]
  - from: f
    to: modelplane_f
    labels:
    - name: reason
      from: finish_reason
      values:
        eos: "` + strings.Repeat("y", 254) + `"
`
	res := Decode("maps/triton.yaml", []byte(data))
	require.Empty(t, res.Mappings)
	require.Len(t, res.Errors, 1)
	var merr *Error
	require.ErrorAs(t, res.Errors[0], &merr)
	var got []string
	for _, fe := range merr.Errs {
		got = append(got, fe.Error())
	}
	want := "want one of " + strings.Join(units.Names(), ", ")
	assert.Equal(t, []string{
		`line 9: metrics[0]: unknown field "fromUnits" (want from, to, fromUnit, part, labels)`,
		`line 11: metrics[1].to: "gpu_power_watts" does not match ^modelplane_[a-z0-9_]*[a-z0-9]$ (every target is a modelplane_* name in lower case: "modelplane_gpu_power_watts"?)`,
		`line 12: metrics[1].fromUnit: unknown unit "Seconds", the unit values are converted to: a source in it needs no fromUnit (` + want + `)`,
		`line 14: metrics[2]: unknown field "too" (want from, to, fromUnit, part, labels)`,
		`line 18: metrics[3].labels[0]: unknown field "form" (want name, value, from, values)`,
		`line 18: metrics[3].labels[0].values[eos]: "` + strings.Repeat("x", 254) + `" is longer than 253 characters`,
		`line 18: metrics[4].labels[0].values[eos]: "` + strings.Repeat("x", 254) + `" is longer than 253 characters`,
		`line 28: metrics[5].labels[0].values[eos]: "` + strings.Repeat("y", 254) + `" is longer than 253 characters`,
	}, got)
}
