package metricmapping

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The example of Modelplane's guide (testdata/anchor/README.md) loads unchanged.
func TestDecodeGuideExample(t *testing.T) {
	readme, err := os.ReadFile("../../testdata/anchor/README.md")
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
	assert.Equal(t, `mappings/engine.yaml: MetricMapping "my-engine": metrics[3].fromUnit: unknown unit "Milisecond" (want one of Millijoules, Milliseconds, Nanoseconds, Mebibytes, Percent, Microseconds, Kibibytes, Gibibytes, Kilobytes, Megabytes, Gigabytes, Milliwatts)`, res.Errors[0].Error())
	assert.Contains(t, res.Errors[1].Error(), `mappings/engine.yaml: MetricMapping "typo": `)
	assert.Contains(t, res.Errors[1].Error(), `field too not found`)
	assert.Equal(t, `mappings/engine.yaml: MetricMapping "future": apiVersion: "modelplane.ai/v2" is not supported (want modelplane.ai/v1alpha1)`, res.Errors[2].Error())
}

func TestDecodeSyntaxErrorNamesFileAndDocument(t *testing.T) {
	res := Decode("m.yaml", []byte("apiVersion: modelplane.ai/v1alpha1\nkind: MetricMapping\nmetadata: {name: a}\nspec:\n  metrics: [\n"))
	require.Len(t, res.Errors, 1)
	assert.True(t, strings.HasPrefix(res.Errors[0].Error(), "m.yaml: document 1: yaml: "), res.Errors[0].Error())
	assert.Empty(t, res.Mappings)
}

func TestDecodeWrongTypes(t *testing.T) {
	res := Decode("m.yaml", []byte("apiVersion: modelplane.ai/v1alpha1\nkind: MetricMapping\nmetadata: {name: a}\nspec:\n  metrics:\n  - from: a\n    to: modelplane_a\n    labels: direction\n"))
	require.Len(t, res.Errors, 1)
	assert.Contains(t, res.Errors[0].Error(), `m.yaml: MetricMapping "a": `)
	assert.Contains(t, res.Errors[0].Error(), "cannot unmarshal")
}

// FuzzDecode: arbitrary YAML never panics, and whatever loads is valid.
func FuzzDecode(f *testing.F) {
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
		}
	})
}
