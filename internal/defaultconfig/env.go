// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package defaultconfig

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/prometheus/common/model"
)

// variable is an environment variable the embedded default reads, with the default that
// default.yaml gives it (a test keeps the two equal) and what a value must be.
type variable struct {
	name, def string
	check     func(string) error // nil: any value
	emptyOK   bool               // set but empty is a value, not a mistake
}

// variables are checked before the default is served: the collector's own error for a bad
// value names the component's field, not the variable a user set, and a listen address
// without a host fails only when the exporter starts.
var variables = []variable{
	{"MODELPLANE_VLLM_TARGET", "127.0.0.1:8000", allowNone(targets), false},
	{"MODELPLANE_SGLANG_TARGET", "127.0.0.1:30000", allowNone(targets), false},
	// NIM serves on vLLM's port 8000, so its job is one a host asks for.
	{"MODELPLANE_NIM_TARGET", none, allowNone(targets), false},
	{"MODELPLANE_DCGM_EXPORTER_TARGET", "127.0.0.1:9400", allowNone(target), false},
	{"MODELPLANE_PROMETHEUS_ENDPOINT", "127.0.0.1:9464", listenAddress, false},
	{telemetryVariable, "127.0.0.1:8888", listenAddress, false},
	{"MODELPLANE_SCRAPE_INTERVAL", "15s", interval, false},
	{"MODELPLANE_CLUSTER", "standalone", nil, false},
	// Unset, the host's name (HOSTNAME, which the env provider gives where nothing sets
	// it); set but empty, no node label.
	{"NODE_NAME", "${env:HOSTNAME}", nil, true},
}

// checkEnv checks the variables that are set, by lookup (os.LookupEnv).
func checkEnv(lookup func(string) (string, bool)) error {
	var errs []error
	for _, v := range variables {
		val, set := lookup(v.name)
		switch {
		case !set:
		case val == "" && !v.emptyOK:
			// The collector takes a variable that is set but empty as the empty value, not
			// as unset.
			errs = append(errs, fmt.Errorf("%s is set but empty; unset it for the default %s", v.name, v.def))
		case val != "" && v.check != nil:
			if err := v.check(val); err != nil {
				errs = append(errs, fmt.Errorf("%s=%q: %w", v.name, val, err))
			}
		}
	}
	if len(errs) == 0 {
		if err := oneListenerEach(lookup); err != nil {
			errs = append(errs, err)
		}
		if err := oneJobPerTarget(lookup); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// oneListenerEach refuses the series' endpoint and the collector's own metrics on one
// address: the second listener then failed the start with "bind: address already in use",
// which sends the reader looking for another process holding the port.
func oneListenerEach(lookup func(string) (string, bool)) error {
	const series = "MODELPLANE_PROMETHEUS_ENDPOINT"
	a, b := valueOf(series, lookup), valueOf(telemetryVariable, lookup)
	hostA, portA, _ := net.SplitHostPort(a)
	hostB, portB, _ := net.SplitHostPort(b)
	if portA != portB || (hostA != hostB && !everyInterface(hostA) && !everyInterface(hostB)) {
		return nil
	}
	return fmt.Errorf("%s=%q and %s=%q share port %s: the series and the collector's own metrics each need an address of their own", series, a, telemetryVariable, b, portA)
}

// oneJobPerTarget refuses one address named by two target variables that are set: each job
// would read the same engine, the second time under another engine's mapping and labels. A
// variable left unset yields its default address to one that names it (yieldedDefaults).
func oneJobPerTarget(lookup func(string) (string, bool)) error {
	named := map[string]string{} // address -> the variable naming it
	for _, v := range variables {
		if _, isTarget := targetJobs[v.name]; !isTarget {
			continue
		}
		val, set := lookup(v.name)
		if !set || val == none {
			continue
		}
		for _, addr := range splitTargets(val) {
			first, taken := named[addr]
			if !taken {
				named[addr] = v.name
				continue
			}
			return fmt.Errorf("%s and %s both name %s: a target is one engine, read by one job; set the other to its own address, or to none",
				first, v.name, addr)
		}
	}
	return nil
}

// yieldedDefault is a target variable left unset whose default address another target
// variable names.
type yieldedDefault struct{ variable, addr, to string }

// yieldedDefaults gives as none each unset target variable whose default address a set one
// names: a NIM at 127.0.0.1:8000, vLLM's port, leaves the vLLM job out, which would read the
// NIM a second time as a vLLM.
func yieldedDefaults(lookup func(string) (string, bool)) (func(string) (string, bool), []yieldedDefault) {
	named := map[string]string{} // address -> the set variable naming it
	for _, v := range variables {
		if val, set := lookup(v.name); set && val != none && targetJobs[v.name] != "" {
			for _, addr := range splitTargets(val) {
				named[addr] = v.name
			}
		}
	}
	var yielded []yieldedDefault
	for _, v := range variables {
		if _, set := lookup(v.name); set || targetJobs[v.name] == "" || v.def == none {
			continue
		}
		if to, ok := named[v.def]; ok {
			yielded = append(yielded, yieldedDefault{v.name, v.def, to})
		}
	}
	if len(yielded) == 0 {
		return lookup, nil
	}
	names := make([]string, len(yielded))
	for i, y := range yielded {
		names[i] = y.variable
	}
	return withNone(lookup, names), yielded
}

// valueOf is a variable's value, or its default where it is unset.
func valueOf(name string, lookup func(string) (string, bool)) string {
	if v, ok := lookup(name); ok {
		return v
	}
	for _, v := range variables {
		if v.name == name {
			return v.def
		}
	}
	return ""
}

// everyInterface reports whether a listen host takes every interface's address.
func everyInterface(host string) bool {
	return host == "" || net.ParseIP(host).IsUnspecified()
}

func target(s string) error {
	host, port, err := net.SplitHostPort(s)
	if err != nil || host == "" || !validPort(port) {
		return errors.New("not host:port, such as 127.0.0.1:8000 (no scheme, no path)")
	}
	return nil
}

func listenAddress(s string) error {
	_, port, err := net.SplitHostPort(s)
	if err != nil || !validPort(port) {
		return errors.New("not host:port, such as 127.0.0.1:9464 (0.0.0.0:9464 to serve every interface)")
	}
	return nil
}

func validPort(p string) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n > 0 && n < 1<<16
}

// interval must read as a duration to Prometheus (scrape_interval) and to Go (the dcgm
// receiver's collection_interval): whole units such as 15s, 1m or 1m30s.
func interval(s string) error {
	d, err := time.ParseDuration(s)
	if _, perr := model.ParseDuration(s); err != nil || perr != nil || d <= 0 {
		return errors.New("not a duration such as 15s, 1m or 1m30s")
	}
	return nil
}
