// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package metricmapping

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"

	"go.yaml.in/yaml/v3"
)

//go:embed catalog/*.yaml
var catalog embed.FS

//go:embed descriptions.yaml
var descriptionsYAML []byte

// BuiltinDescriptions are the canonical descriptions of the modelplane_* targets, by name.
func BuiltinDescriptions() (map[string]string, error) {
	var d map[string]string
	if err := yaml.Unmarshal(descriptionsYAML, &d); err != nil {
		return nil, fmt.Errorf("built-in descriptions: %w", err)
	}
	return d, nil
}

// BuiltinSourcePrefix begins the Source of every built-in mapping ("builtin/vllm.yaml"), so that
// messages say where a mapping came from as they do for a file.
const BuiltinSourcePrefix = "builtin/"

// Catalog is every built-in mapping in run order, and the names of those on by default.
type Catalog struct {
	Mappings []MetricMapping
	Default  map[string]bool
}

// LoadBuiltin decodes the embedded catalog. An error here is a bug in a catalog file, caught by tests.
func LoadBuiltin() (Catalog, error) {
	files, err := fs.Glob(catalog, "catalog/*.yaml")
	if err != nil {
		return Catalog{}, err
	}
	sort.Strings(files)
	c := Catalog{Default: map[string]bool{}}
	for _, f := range files {
		data, err := catalog.ReadFile(f)
		if err != nil {
			return Catalog{}, err
		}
		res := Decode(BuiltinSourcePrefix+path.Base(f), data)
		if len(res.Errors) > 0 {
			return Catalog{}, fmt.Errorf("built-in catalog: %w", res.Errors[0])
		}
		for _, m := range res.Mappings {
			c.Mappings = append(c.Mappings, m)
			c.Default[m.Name] = !m.OffByDefault
		}
	}
	return c, nil
}

// DefaultSet, in a list of names, stands for every mapping on by default, so that one off by
// default is added to them (`[default, modelplane-nim]`) rather than to a copy of today's list.
const DefaultSet = "default"

// Select returns the mappings named, in catalog order, or those on by default when names is
// nil. It reports names that are not in the catalog.
func (c Catalog) Select(names []string) ([]MetricMapping, []string) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	defaults := names == nil || want[DefaultSet]
	delete(want, DefaultSet)
	var out []MetricMapping
	for _, m := range c.Mappings {
		if want[m.Name] || (defaults && c.Default[m.Name]) {
			out = append(out, m)
		}
		delete(want, m.Name)
	}
	var unknown []string
	for _, n := range names {
		if want[n] {
			unknown = append(unknown, n)
			delete(want, n)
		}
	}
	return out, unknown
}

// Names lists every mapping in the catalog.
func (c Catalog) Names() []string {
	out := make([]string, len(c.Mappings))
	for i, m := range c.Mappings {
		out[i] = m.Name
	}
	return out
}
