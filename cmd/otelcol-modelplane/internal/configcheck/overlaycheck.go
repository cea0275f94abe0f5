// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package configcheck

import (
	"fmt"
	"strings"

	"go.opentelemetry.io/collector/confmap"

	"github.com/modelplaneai/otelcol-modelplane/internal/pipelines"
)

// overlayAlone fails on a pipeline that only an overlay of the embedded default could have
// left.
func overlayAlone(_ *checker, conf *confmap.Conf) error {
	if receivers, _ := conf.Get("receivers").(map[string]any); len(receivers) > 0 {
		return nil
	}
	exporters, _ := conf.Get("exporters").(map[string]any)
	for _, p := range pipelines.All(conf) {
		if len(p.Receivers) > 0 {
			continue
		}
		var missing []string
		for _, id := range p.Exporters {
			if _, ok := exporters[id]; !ok {
				missing = append(missing, id)
			}
		}
		if len(missing) == 0 {
			continue
		}
		return fmt.Errorf("service::pipelines::%s: no receivers, and its exporters name %s, which no --config configures: "+
			"modelplane:remote-write and modelplane:otlp add a backend to the embedded default and go after it "+
			"(--config modelplane:default --config modelplane:%s); a configuration of your own names its receivers "+
			"(otelcol-modelplane default-config prints the default to start from)", p.ID, strings.Join(missing, ", "), overlay(exporters))
	}
	return nil
}

// overlay is the embedded overlay that configures exporters, for the example: remote-write
// unless only OTLP is there.
func overlay(exporters map[string]any) string {
	if _, ok := exporters["otlp_http"]; ok {
		if _, rw := exporters["prometheus_remote_write"]; !rw {
			return "otlp"
		}
	}
	return "remote-write"
}
