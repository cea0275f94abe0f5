// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package dcgmreceiver // import "github.com/modelplaneai/otelcol-modelplane/receiver/dcgmreceiver"

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/collector/scraper/scraperhelper"

	"github.com/modelplaneai/otelcol-modelplane/internal/spelling"
	"github.com/modelplaneai/otelcol-modelplane/internal/units"
)

// Config of the dcgm receiver.
type Config struct {
	// ControllerConfig is scraperhelper's: collection_interval (how often the GPUs are read),
	// initial_delay, and timeout, the longest a collection waits for NVML (and a stop for it).
	scraperhelper.ControllerConfig `mapstructure:",squash"`
	// RetryInterval is how often a missing NVML library or driver is looked for again.
	RetryInterval time.Duration `mapstructure:"retry_interval"`
	// LibraryPath is the NVML library to load; empty lets the dynamic loader find
	// libnvidia-ml.so.1.
	LibraryPath string `mapstructure:"library_path"`
	// Metrics turns single fields on or off, by dcgm-exporter name:
	// `DCGM_FI_DEV_THERMAL_VIOLATION: {enabled: true}`.
	Metrics map[string]MetricConfig `mapstructure:"metrics"`
	// Profiling is "auto" (DCGM_FI_PROF_* from NVML GPU Performance Monitoring where the GPU
	// supports it: Hopper and newer) or "off".
	Profiling string `mapstructure:"profiling"`
	// PodResourcesSocket is the kubelet PodResources v1 socket; used when it exists.
	PodResourcesSocket string `mapstructure:"pod_resources_socket"`
	// Hostname is the Hostname label; default NODE_NAME, then the host name.
	Hostname string `mapstructure:"hostname"`
	// DeferToExporter is the host:port of a dcgm-exporter the collector also scrapes: while
	// it answers, the receiver reads no GPU and ends its series, so each GPU is reported
	// once. Empty: never defer.
	DeferToExporter string `mapstructure:"defer_to_exporter"`
}

// MetricConfig switches one field.
type MetricConfig struct {
	Enabled bool `mapstructure:"enabled"`
}

const (
	ProfilingAuto = "auto"
	ProfilingOff  = "off"
)

func createDefaultConfig() *Config {
	cc := scraperhelper.NewDefaultControllerConfig()
	cc.CollectionInterval = 15 * time.Second
	cc.InitialDelay = 0
	cc.Timeout = 5 * time.Second
	return &Config{
		ControllerConfig:   cc,
		RetryInterval:      time.Minute,
		Profiling:          ProfilingAuto,
		PodResourcesSocket: "/var/lib/kubelet/pod-resources/kubelet.sock",
	}
}

// Validate checks the config.
func (c *Config) Validate() error {
	var errs []error
	if err := units.CheckInterval(c.CollectionInterval, "15s"); err != nil {
		errs = append(errs, fmt.Errorf("collection_interval: %w", err))
	}
	if err := units.CheckInterval(c.Timeout, "5s"); err != nil {
		// Unbounded, a collection stuck in NVML would hold up every stop and reload.
		errs = append(errs, fmt.Errorf("timeout: %w", err))
	}
	if err := units.CheckInterval(c.RetryInterval, "1m"); err != nil {
		errs = append(errs, fmt.Errorf("retry_interval: %w", err))
	}
	if c.Profiling != ProfilingAuto && c.Profiling != ProfilingOff {
		errs = append(errs, fmt.Errorf("profiling: %q is not one of auto, off", c.Profiling))
	}
	if c.DeferToExporter != "" {
		if _, port, err := net.SplitHostPort(c.DeferToExporter); err != nil || port == "" {
			errs = append(errs, fmt.Errorf("defer_to_exporter: %q is not host:port, such as 127.0.0.1:9400", c.DeferToExporter))
		} else if n, err := strconv.ParseUint(port, 10, 16); err != nil || n == 0 {
			errs = append(errs, fmt.Errorf("defer_to_exporter: %q: port %q is not a number from 1 to 65535", c.DeferToExporter, port))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.Metrics)) {
		if _, ok := fieldByName[name]; !ok {
			errs = append(errs, fmt.Errorf("metrics: unknown field %q (%s)", name, meantField(name)))
		}
	}
	return errors.Join(errs...)
}

// meantField says which field an unknown name most likely meant, or where the fields are.
func meantField(name string) string {
	upper := strings.ToUpper(name)
	if _, ok := fieldByName[upper]; ok {
		return fmt.Sprintf("did you mean %q? field names are upper case, as dcgm-exporter writes them", upper)
	}
	if near := spelling.Nearest(upper, maps.Keys(fieldByName)); near != "" {
		return fmt.Sprintf("did you mean %q?", near)
	}
	return "the receiver's README lists the fields"
}

// enabled reports whether a field is collected.
func (c *Config) enabled(f *field) bool {
	if mc, ok := c.Metrics[f.name]; ok {
		return mc.Enabled
	}
	return f.defaultOn
}

func (c *Config) hostname() string {
	if c.Hostname != "" {
		return c.Hostname
	}
	if n := os.Getenv("NODE_NAME"); n != "" {
		return n
	}
	h, _ := os.Hostname()
	return h
}
