// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package nodescrapereceiver // import "github.com/modelplaneai/otelcol-modelplane/receiver/nodescrapereceiver"

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"

	promconfig "github.com/prometheus/prometheus/config"
	"go.opentelemetry.io/collector/confmap"
	"go.yaml.in/yaml/v3"
)

// Config is a Prometheus configuration's scrape section, under `config`, as the
// Prometheus receiver takes it: the same file moves between the two receivers.
type Config struct {
	// promConfig is the parsed `config`: global and scrape_configs, with Prometheus'
	// defaults applied. Unexported, so that the collector's validation does not walk into
	// Prometheus' types, whose own checks Load has already run.
	promConfig *promconfig.Config
}

// Unmarshal parses `config` with Prometheus' own loader, which checks every field and
// applies its defaults; any other key is refused.
func (c *Config) Unmarshal(conf *confmap.Conf) error {
	for _, k := range conf.AllKeys() {
		if k != "config" && !strings.HasPrefix(k, "config"+confmap.KeyDelimiter) {
			return fmt.Errorf("'%s' is not a setting of the node_scrape receiver (it takes `config`, a Prometheus configuration's global and scrape_configs)", k)
		}
	}
	sub, err := conf.Sub("config")
	if err != nil {
		return err
	}
	raw := sub.ToStringMap()
	if len(raw) == 0 {
		return nil
	}
	text, err := yaml.Marshal(raw)
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	pc, err := promconfig.Load(string(text), slog.New(slog.DiscardHandler))
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	c.promConfig = pc
	return nil
}

// Validate refuses what the receiver does not do, naming the job and setting, so that a
// configuration moved from the Prometheus receiver does not lose a setting unseen.
func (c *Config) Validate() error {
	pc := c.promConfig
	if pc == nil || len(pc.ScrapeConfigs) == 0 {
		return errors.New("config::scrape_configs: no scrape job; the receiver needs at least one")
	}
	if pc.GlobalConfig.ExternalLabels.Len() > 0 {
		return errors.New("config::global::external_labels: not supported; set labels on the targets, or with the resource processor")
	}
	if len(pc.RuleFiles) > 0 || len(pc.RemoteWriteConfigs) > 0 || len(pc.RemoteReadConfigs) > 0 || len(pc.ScrapeConfigFiles) > 0 {
		return errors.New("config: only global and scrape_configs are read (rule_files, remote_write, remote_read and scrape_config_files are not)")
	}
	var errs []error
	for _, sc := range pc.ScrapeConfigs {
		bad := func(field string) {
			errs = append(errs, fmt.Errorf("config::scrape_configs::%s::%s: not supported by the node_scrape receiver", sc.JobName, field))
		}
		if sc.LabelLimit > 0 || sc.LabelNameLengthLimit > 0 || sc.LabelValueLengthLimit > 0 {
			bad("label_limit, label_name_length_limit, label_value_length_limit")
		}
		if sc.TargetLimit > 0 {
			bad("target_limit")
		}
		if sc.KeepDroppedTargets > 0 {
			bad("keep_dropped_targets")
		}
		if sc.ScrapeNativeHistograms != nil && *sc.ScrapeNativeHistograms {
			bad("scrape_native_histograms")
		}
		if sc.AlwaysScrapeClassicHistograms != nil && *sc.AlwaysScrapeClassicHistograms {
			bad("always_scrape_classic_histograms")
		}
		if sc.ConvertClassicHistogramsToNHCB != nil && *sc.ConvertClassicHistogramsToNHCB {
			bad("convert_classic_histograms_to_nhcb")
		}
		if sc.TrackTimestampsStaleness {
			bad("track_timestamps_staleness")
		}
		if sc.ScrapeFailureLogFile != "" {
			bad("scrape_failure_log_file")
		}
		for _, p := range sc.ScrapeProtocols {
			if p == promconfig.PrometheusProto {
				bad("scrape_protocols: PrometheusProto")
			}
		}
	}
	return errors.Join(errs...)
}
