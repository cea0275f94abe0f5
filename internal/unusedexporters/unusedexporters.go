// Package unusedexporters is otelcol-modelplane's confmap converter that warns about exporters
// no pipeline uses.
//
// The collector builds only the components its pipelines name and says nothing of the others,
// so an exporter left out of every pipeline sends nothing, silently. The usual way in is the
// order of --config: a later file's list replaces an earlier one's, so `--config
// modelplane:remote-write --config modelplane:default` ends with the default's exporter list,
// and the remote write exporter, configured and valid, never gets a point.
package unusedexporters // import "github.com/modelplaneai/otelcol-modelplane/internal/unusedexporters"

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/confmap"
	"go.uber.org/zap"

	"github.com/modelplaneai/otelcol-modelplane/internal/pipelines"
	"github.com/modelplaneai/otelcol-modelplane/internal/validatenotes"
)

// NewFactory returns the factory of the converter.
func NewFactory() confmap.ConverterFactory {
	// The collector gives converters a logger (a no-op one where it has none).
	return confmap.NewConverterFactory(func(set confmap.ConverterSettings) confmap.Converter {
		return converter{logger: set.Logger}
	})
}

type converter struct{ logger *zap.Logger }

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

// Convert changes nothing; it warns of each exporter no pipeline names.
func (c converter) Convert(_ context.Context, conf *confmap.Conf) error {
	unused := Unused(conf)
	if len(unused) == 0 {
		return nil
	}
	msg := advice(conf, unused)
	for _, id := range unused {
		c.logger.Warn("Exporter configured but in no pipeline: "+msg, zap.String("exporter", id))
		validatenotes.Warn("exporters::%s: in no pipeline: %s", id, msg)
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
