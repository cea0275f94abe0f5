// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package modelplanemapping // import "github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping"

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/collector/confmap"
	"go.yaml.in/yaml/v3"

	"github.com/modelplaneai/otelcol-modelplane/internal/spelling"
	"github.com/modelplaneai/otelcol-modelplane/internal/units"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/internal/identity"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/internal/rules"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/metricmapping"
)

// Config of the modelplane_mapping processor.
type Config struct {
	// Builtin names the built-in mappings to run; default stands for every one on by default
	// ([default], the default), so [default, modelplane-nim] adds NIM's and [] runs none.
	Builtin []string `mapstructure:"builtin"`
	// MappingFiles are paths and globs of YAML files holding MetricMapping documents, or
	// folders, which stand for their .yaml, .yml and .json files. They are watched and
	// reloaded when they change.
	MappingFiles []string `mapstructure:"mapping_files"`
	// ReloadInterval is how often mapping files are checked for changes.
	ReloadInterval time.Duration `mapstructure:"reload_interval"`
	// ClusterMappings reads MetricMapping objects from the Kubernetes API server and follows
	// every change. They run after the files, in name order.
	ClusterMappings ClusterMappingsConfig `mapstructure:"cluster_mappings"`
	// Mappings are inline MetricMappings, run after the files and the cluster's objects, in
	// order; spelt as in a MetricMapping (fromUnit), so a spec pastes unchanged. Decoded by
	// Unmarshal.
	Mappings []InlineMapping `mapstructure:"-"`
	// Identity keeps each series' identity on its resource.
	Identity IdentityConfig `mapstructure:"identity"`
	// DropUnmapped drops every metric that is not modelplane_* after mapping.
	DropUnmapped bool `mapstructure:"drop_unmapped"`
	// KeepSources are metric names, * matching any run of characters (DCGM_FI_*, vllm:*),
	// whose series also go on as they came, beside what the mappings make of them: for
	// dashboards that read the native names while they move to modelplane_*.
	KeepSources []string `mapstructure:"keep_sources"`
	// ScrapeFilter has otelcol-modelplane drop, at scrape time, the series no mapping reads:
	// the Prometheus receivers of this processor's pipelines get a keep rule naming every
	// source of the mappings and modelplane_*. Needs drop_unmapped.
	ScrapeFilter bool `mapstructure:"scrape_filter"`
	// OTLPNames lets mappings also read metrics pushed over OTLP, under the name the
	// OpenTelemetry Prometheus exporters give them (gen_ai_server_request_duration_seconds),
	// their attributes under the same translated keys. Off, as in the reference.
	OTLPNames bool `mapstructure:"otlp_names"`
}

// InlineMapping is a MetricMapping written in the collector config.
type InlineMapping struct {
	Name    string                `yaml:"name"`
	Metrics []metricmapping.Entry `yaml:"metrics"`
}

// IdentityConfig keeps only identity resource attributes and lifts identity datapoint
// attributes to the resource, so replicas are never merged.
type IdentityConfig struct {
	Enabled bool     `mapstructure:"enabled"`
	Keys    []string `mapstructure:"keys"`
}

func createDefaultConfig() *Config {
	return &Config{
		Builtin:        []string{metricmapping.DefaultSet},
		ReloadInterval: 2 * time.Second,
		Identity:       IdentityConfig{Enabled: true, Keys: append([]string(nil), identity.DefaultKeys...)},
		DropUnmapped:   true,
		ClusterMappings: ClusterMappingsConfig{
			AuthType:    AuthServiceAccount,
			SyncTimeout: 10 * time.Second,
		},
	}
}

// Unmarshal reads `mappings` strictly, with the MetricMapping field names, then the rest as
// usual.
func (c *Config) Unmarshal(conf *confmap.Conf) error {
	raw := conf.ToStringMap()
	if v, ok := raw["mappings"]; ok {
		delete(raw, "mappings")
		// Decode strictly with the MetricMapping field names: a misspelt field is an error.
		data, err := yaml.Marshal(v)
		if err != nil {
			return fmt.Errorf("mappings: %w", err)
		}
		var node yaml.Node
		if err := yaml.Unmarshal(data, &node); err != nil {
			return fmt.Errorf("mappings: %w", err)
		}
		if unknown := metricmapping.ShapeErrors(&node, reflect.TypeOf([]InlineMapping{}), "mappings", false); len(unknown) > 0 {
			return errors.New(strings.Join(unknown, "; "))
		}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		var ms []InlineMapping
		if err := dec.Decode(&ms); err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("mappings: %w", err)
		}
		c.Mappings = ms
	}
	type plain Config // without Unmarshal, so the next call does not recurse
	return confmap.NewFromStringMap(raw).Unmarshal((*plain)(c))
}

// Validate checks the config. Inline mappings are part of the config, so any problem in
// them is a config error.
func (c *Config) Validate() error {
	var errs []error
	if err := units.CheckInterval(c.ReloadInterval, "2s"); err != nil {
		errs = append(errs, fmt.Errorf("reload_interval: %w", err))
	}
	for i, p := range c.MappingFiles {
		if p == "" {
			errs = append(errs, fmt.Errorf("mapping_files[%d]: empty path", i))
		} else if _, err := filepath.Match(p, ""); err != nil {
			errs = append(errs, fmt.Errorf("mapping_files[%d]: bad glob %q: %w", i, p, err))
		}
	}
	if len(c.Builtin) > 0 {
		cat, err := metricmapping.LoadBuiltin()
		if err != nil {
			errs = append(errs, err)
		} else if _, unknown := cat.Select(c.Builtin); len(unknown) > 0 {
			errs = append(errs, unknownBuiltins(unknown, cat))
		}
	}
	for i, im := range c.Mappings {
		m := im.toMetricMapping(i)
		if err := metricmapping.Validate(&m); err != nil {
			errs = append(errs, err)
		}
	}
	if err := c.ClusterMappings.validate(); err != nil {
		errs = append(errs, err)
	}
	if c.ScrapeFilter && !c.DropUnmapped {
		errs = append(errs, errors.New("scrape_filter: needs drop_unmapped: true (the scrape filter drops what drop_unmapped would)"))
	}
	if c.Identity.Enabled && len(c.Identity.Keys) == 0 {
		errs = append(errs, errors.New("identity.keys: needs at least one key when identity is enabled"))
	}
	for i, p := range c.KeepSources {
		if strings.Trim(p, "*") == "" {
			errs = append(errs, fmt.Errorf("keep_sources[%d]: %q names no metric; give a name or a prefix, such as DCGM_FI_*", i, p))
		}
	}
	return errors.Join(errs...)
}

// CheckSources reads the mapping files as `otelcol-modelplane validate` checks them: any
// problem is an error (a running collector skips the document), and what loads but misleads
// is a warning. The cluster's objects are read only by a collector.
func (c *Config) CheckSources() (warnings []string, err error) {
	warnings = c.identityKeyWarnings()
	files, errs := loadFiles(c.MappingFiles, nil)
	for _, i := range missingFiles(c.MappingFiles) {
		warnings = append(warnings, fmt.Sprintf("mapping_files[%d]: %s does not exist: its mappings load once it does", i, c.MappingFiles[i]))
	}
	if builtins, inline, err := c.builtinAndInline(); err == nil {
		all := runOrder(builtins, files, nil, inline)
		warnings = append(warnings, append(rules.Overlaps(all), rules.NameNotes(all)...)...)
	}
	// A kubeconfig that does not load fails the collector's start; the service account's
	// credentials exist only in a pod, where validate rarely runs.
	if c.ClusterMappings.Enabled && c.ClusterMappings.AuthType == AuthKubeConfig {
		if _, err := c.ClusterMappings.restConfig(); err != nil {
			errs = append(errs, err)
		}
	}
	return warnings, errors.Join(errs...)
}

// identityKeyWarnings name the identity keys that look like a misspelt reference key absent
// from the list: a series keeps only its identity attributes, so `namspace` drops the
// namespace it meant, and two namespaces' replicas of one name become one series.
func (c *Config) identityKeyWarnings() []string {
	if !c.Identity.Enabled {
		return nil
	}
	var out []string
	for i, k := range c.Identity.Keys {
		if slices.Contains(identity.DefaultKeys, k) {
			continue
		}
		near := spelling.Nearest(k, slices.Values(identity.DefaultKeys))
		if near != "" && !slices.Contains(c.Identity.Keys, near) {
			out = append(out, fmt.Sprintf("identity.keys[%d]: %q is not an identity key of the reference, and %q is missing: did you mean it? A series keeps only its identity attributes, so %s would be dropped", i, k, near, near))
		}
	}
	return out
}

// unknownBuiltins names every unknown built-in mapping of a builtin list, each with the name
// it most likely meant, and the names there are.
func unknownBuiltins(unknown []string, cat metricmapping.Catalog) error {
	// Compared without the prefix every name shares, which would let any short name pass
	// for a misspelling ("modelplane-nope" for "modelplane-gpu").
	const prefix = "modelplane-"
	known := map[string]string{metricmapping.DefaultSet: metricmapping.DefaultSet}
	for _, n := range cat.Names() {
		known[strings.TrimPrefix(n, prefix)] = n
	}
	parts := make([]string, len(unknown))
	for i, n := range unknown {
		parts[i] = fmt.Sprintf("unknown mapping %q", n)
		if near := spelling.Nearest(strings.TrimPrefix(n, prefix), maps.Keys(known)); near != "" {
			parts[i] += fmt.Sprintf(" (did you mean %q?)", known[near])
		}
	}
	return fmt.Errorf("builtin: %s; want %s or some of %v", strings.Join(parts, ", "), metricmapping.DefaultSet, cat.Names())
}

// builtinAndInline returns the built-in mappings the config selects and its inline mappings,
// which run first and last; mapping files and the cluster's objects run between them.
func (c *Config) builtinAndInline() (builtins, inline []metricmapping.MetricMapping, err error) {
	if len(c.Builtin) > 0 {
		cat, err := metricmapping.LoadBuiltin()
		if err != nil {
			return nil, nil, err
		}
		var unknown []string
		if builtins, unknown = cat.Select(c.Builtin); len(unknown) > 0 {
			return nil, nil, fmt.Errorf("builtin: unknown mapping %q", unknown[0])
		}
	}
	for i, im := range c.Mappings {
		inline = append(inline, im.toMetricMapping(i))
	}
	return builtins, inline, nil
}

func (im InlineMapping) toMetricMapping(i int) metricmapping.MetricMapping {
	return metricmapping.MetricMapping{Name: im.Name, Source: fmt.Sprintf("config mappings[%d]", i), Metrics: im.Metrics}
}

// IdentityKeys reads the config of one modelplane_mapping processor and returns the resource
// attributes its identity keeps (nil with identity off). otelcol-modelplane's identitylabels
// converter checks that each Prometheus exporter the processor feeds turns them into labels.
func IdentityKeys(conf *confmap.Conf) ([]string, error) {
	cfg := createDefaultConfig()
	if conf != nil {
		if err := cfg.Unmarshal(conf); err != nil {
			return nil, err
		}
	}
	if !cfg.Identity.Enabled {
		return nil, nil
	}
	return cfg.Identity.Keys, nil
}
