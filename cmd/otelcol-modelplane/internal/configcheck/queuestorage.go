// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package configcheck

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"go.opentelemetry.io/collector/confmap"

	"github.com/modelplaneai/otelcol-modelplane/internal/pipelines"
)

// queueStorage fails on each exporter of a pipeline whose sending queue names a storage
// extension that is not declared, or not run.
func queueStorage(_ *checker, conf *confmap.Conf) error {
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
