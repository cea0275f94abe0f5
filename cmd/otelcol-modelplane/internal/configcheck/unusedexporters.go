// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package configcheck

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/confmap"
	"go.uber.org/zap"

	"github.com/modelplaneai/otelcol-modelplane/internal/pipelines"
)

// why is what the warning says of an unused exporter.
const why = "nothing is sent to it. A list in a later --config replaces the earlier one's, " +
	"so overrides go last (--config modelplane:default --config modelplane:remote-write)"

// advice is why, and where the configuration has one pipeline, the --config that gives it
// every exporter: the way out when two overrides each set the list (modelplane:remote-write
// and modelplane:otlp), which no order of them mends.
func advice(conf *confmap.Conf, unused []string) string {
	all := pipelines.All(conf)
	if len(all) != 1 {
		return why
	}
	list := append(slices.Clone(all[0].Exporters), unused...)
	return fmt.Sprintf("%s, or one more --config names them all: --config 'yaml:service::pipelines::%s::exporters: [%s]'",
		why, all[0].ID, strings.Join(list, ", "))
}

// unusedExporters warns of each exporter no pipeline names.
func unusedExporters(c *checker, conf *confmap.Conf) error {
	unused := Unused(conf)
	if len(unused) == 0 {
		return nil
	}
	msg := advice(conf, unused)
	for _, id := range unused {
		c.logger.Warn("Exporter configured but in no pipeline: "+msg, zap.String("exporter", id))
		c.note("exporters::%s: in no pipeline: %s", id, msg)
	}
	return nil
}

// Unused returns the ids of the exporters of conf that no pipeline names, sorted.
func Unused(conf *confmap.Conf) []string {
	exporters, _ := conf.Get("exporters").(map[string]any)
	if len(exporters) == 0 {
		return nil
	}
	used := map[string]bool{}
	for _, p := range pipelines.All(conf) {
		for _, id := range p.Exporters {
			used[id] = true
		}
	}
	var unused []string
	for _, id := range slices.Sorted(maps.Keys(exporters)) {
		if !used[id] {
			unused = append(unused, id)
		}
	}
	return unused
}
