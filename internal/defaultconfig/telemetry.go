// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package defaultconfig

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"syscall"

	"go.opentelemetry.io/collector/confmap"
)

// telemetryVariable sets where the default serves the collector's own metrics. The reader
// takes a host and a port, so the provider splits the variable's host:port over them.
const telemetryVariable = "MODELPLANE_TELEMETRY_ENDPOINT"

// setTelemetryEndpoint points the default's metric reader at the variable's address, if set
// (checked by checkEnv before).
func setTelemetryEndpoint(conf *confmap.Conf, lookup func(string) (string, bool)) error {
	v, ok := lookup(telemetryVariable)
	if !ok {
		return nil
	}
	host, p, err := net.SplitHostPort(v)
	if err != nil {
		return err
	}
	port, err := strconv.Atoi(p)
	if err != nil {
		return err
	}
	reader := map[string]any{"pull": map[string]any{"exporter": map[string]any{"prometheus": map[string]any{"host": host, "port": port}}}}
	return conf.Merge(confmap.NewFromStringMap(map[string]any{"service": map[string]any{"telemetry": map[string]any{"metrics": map[string]any{"readers": []any{reader}}}}}))
}

// listeners are the addresses the default listens on, each with the variable that moves it
// and what it serves there.
var listeners = []struct{ variable, serves, who string }{
	{"MODELPLANE_PROMETHEUS_ENDPOINT", "the modelplane_* series", "OpenTelemetry SDKs' Prometheus exporters listen on 9464 by default"},
	{telemetryVariable, "the collector's own metrics", "Jupyter and other collectors listen on 8888 by default"},
}

// CheckListeners names each of the default's listen addresses another process already holds,
// with the variable that moves it: the collector's own error names only the address. Values
// that are not host:port are left to checkEnv.
func CheckListeners(lookup func(string) (string, bool)) error {
	var errs []error
	for _, l := range listeners {
		addr, set := lookup(l.variable)
		if !set {
			addr = defaultOf(l.variable)
		}
		if listenAddress(addr) != nil {
			continue
		}
		ln, err := net.Listen("tcp", addr)
		if err == nil {
			_ = ln.Close()
			continue
		}
		if errors.Is(err, syscall.EADDRINUSE) {
			host, _, _ := net.SplitHostPort(addr)
			errs = append(errs, fmt.Errorf("%s, where the embedded default serves %s, is taken by another process (%s): set %s to a free host:port, such as %s",
				addr, l.serves, l.who, l.variable, net.JoinHostPort(host, "PORT")))
		}
	}
	return errors.Join(errs...)
}

// defaultOf is the default value of one of the default's variables.
func defaultOf(name string) string {
	for _, v := range variables {
		if v.name == name {
			return v.def
		}
	}
	return ""
}
