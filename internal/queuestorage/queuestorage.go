// Package queuestorage is otelcol-modelplane's confmap converter that fails a configuration
// whose exporter queues on a storage extension the collector does not run.
//
// An exporter's sending_queue names its storage (`storage: file_storage`). The collector
// looks for it only when it starts the exporter, after building every pipeline, and then
// fails with "no storage client extension found", which names neither the key nor the
// extension; `validate` passes. A storage declared under extensions but left out of
// service::extensions fails the same way, since the collector starts only the extensions
// the service lists. This check fails both at load, `validate` included, naming the exporter,
// the key, the extension and what to add.
package queuestorage // import "github.com/modelplaneai/otelcol-modelplane/internal/queuestorage"

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"go.opentelemetry.io/collector/confmap"

	"github.com/modelplaneai/otelcol-modelplane/internal/pipelines"
)

// NewFactory returns the factory of the converter.
func NewFactory() confmap.ConverterFactory {
	return confmap.NewConverterFactory(func(confmap.ConverterSettings) confmap.Converter { return converter{} })
}

type converter struct{}

// Convert changes nothing; it fails on each exporter of a pipeline whose sending queue names
// a storage extension that is not declared, or not run.
func (converter) Convert(_ context.Context, conf *confmap.Conf) error {
	exporters, _ := conf.Get("exporters").(map[string]any)
	declared, _ := conf.Get("extensions").(map[string]any)
	running := pipelines.Strings(conf.Get("service::extensions"))
	used := map[string]bool{}
	for _, p := range pipelines.All(conf) {
		for _, id := range p.Exporters {
			used[id] = true
		}
	}
	var errs []error
	for _, id := range slices.Sorted(maps.Keys(exporters)) {
		if !used[id] {
			continue // never started
		}
		body, _ := exporters[id].(map[string]any)
		queue, _ := body["sending_queue"].(map[string]any)
		if enabled, ok := queue["enabled"].(bool); ok && !enabled {
			continue
		}
		storage, _ := queue["storage"].(string)
		if storage == "" {
			continue // in memory
		}
		key := fmt.Sprintf("exporters::%s::sending_queue::storage: %q", id, storage)
		_, isDeclared := declared[storage]
		switch {
		case !isDeclared:
			errs = append(errs, fmt.Errorf("%s: no extension of that name; declare it under extensions "+
				"(%s: {directory: /var/lib/otelcol-modelplane}) and list it in service::extensions", key, storage))
		case !slices.Contains(running, storage):
			errs = append(errs, fmt.Errorf("%s: declared under extensions but not listed in service::extensions, "+
				"so the collector would not start it and the exporter would fail at start; add it there", key))
		}
	}
	return errors.Join(errs...)
}
