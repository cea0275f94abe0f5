// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package configcheck

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/confmap"

	"github.com/modelplaneai/otelcol-modelplane/internal/pipelines"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping"
)

// prometheusTypes are the exporters (deprecated aliases included) that take labels from
// resource attributes through contrib's resourcetotelemetry settings.
var prometheusTypes = map[string]bool{"prometheus_remote_write": true, "prometheusremotewrite": true, "prometheus": true}

// asJobAndInstance are the identity keys these exporters always carry, as job and instance.
var asJobAndInstance = map[string]bool{"service.name": true, "service.instance.id": true}

// identityLabels fails naming each Prometheus exporter fed by a mapping processor whose
// identity keys it would not send as labels, and the keys.
func identityLabels(_ *checker, conf *confmap.Conf) error {
	var errs []error
	seen := map[string]bool{}
	for _, p := range pipelines.Metrics(conf) {
		var keys, processors []string
		for _, id := range p.Processors {
			if !pipelines.IsType(id, "modelplane_mapping") {
				continue
			}
			sub, err := conf.Sub("processors::" + id)
			if err != nil {
				return fmt.Errorf("processors::%s: %w", id, err)
			}
			k, err := modelplanemapping.IdentityKeys(sub)
			if err != nil {
				return fmt.Errorf("processors::%s: %w", id, err)
			}
			if len(k) > 0 {
				keys = append(keys, k...)
				processors = append(processors, id)
			}
		}
		for _, id := range p.Exporters {
			typ, _, _ := strings.Cut(id, "/")
			if len(keys) == 0 || !prometheusTypes[typ] || seen[id] {
				continue
			}
			seen[id] = true
			body, _ := conf.Get("exporters::" + id).(map[string]any)
			labelled := labels(body)
			var missing []string
			for _, k := range keys {
				if !asJobAndInstance[k] && !labelled(k) && !slices.Contains(missing, k) {
					missing = append(missing, k)
				}
			}
			if len(missing) > 0 {
				errs = append(errs, fmt.Errorf("exporters::%s: would send the series of processors::%s without the identity labels %s, resource attributes this exporter makes labels only where resource_constant_labels says so: two replicas' series would arrive as one. Set exporters::%s::resource_constant_labels: {included: [\"*\"]}",
					id, strings.Join(processors, ", processors::"), strings.Join(missing, ", "), id))
			}
		}
	}
	return errors.Join(errs...)
}

// labels returns which resource attributes an exporter with config body turns into labels,
// as contrib's resourcetotelemetry decides: resource_constant_labels where set,
// else resource_to_telemetry_conversion, else none.
func labels(body map[string]any) func(key string) bool {
	s := settingsOf(body["resource_constant_labels"])
	if s.empty() {
		s = settingsOf(body["resource_to_telemetry_conversion"])
	}
	switch {
	case len(s.included) > 0 || len(s.excluded) > 0:
		return func(key string) bool {
			if matchesAny(s.excluded, key) {
				return false
			}
			return len(s.included) == 0 || matchesAny(s.included, key)
		}
	case s.enabled:
		return func(string) bool { return true }
	}
	return func(string) bool { return false }
}

type settings struct {
	included, excluded      []string
	enabled, excludeService bool
}

func (s settings) empty() bool {
	return !s.enabled && !s.excludeService && len(s.included) == 0 && len(s.excluded) == 0
}

func settingsOf(v any) settings {
	m, _ := v.(map[string]any)
	return settings{
		included:       pipelines.Strings(m["included"]),
		excluded:       pipelines.Strings(m["excluded"]),
		enabled:        pipelines.IsTrue(m["enabled"]),
		excludeService: pipelines.IsTrue(m["exclude_service_attributes"]),
	}
}

// matchesAny reports whether key matches one of the patterns, '*' and '?' as wildcards.
func matchesAny(patterns []string, key string) bool {
	for _, p := range patterns {
		quoted := regexp.QuoteMeta(p)
		re, err := regexp.Compile("(?s)^" + strings.ReplaceAll(strings.ReplaceAll(quoted, `\*`, `.*`), `\?`, `.`) + "$")
		if err == nil && re.MatchString(key) {
			return true
		}
	}
	return false
}
