// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package defaultconfig

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"strings"

	"go.opentelemetry.io/collector/confmap"
)

// Several engines of one kind on a host are one variable listing them
// (MODELPLANE_VLLM_TARGET=127.0.0.1:8000,127.0.0.1:8001), each a static_configs entry with a
// replica label of its own: targets of one entry share its labels, and would be one replica.

// targets checks a value that may list several targets, separated by commas.
func targets(s string) error {
	list := splitTargets(s)
	if len(list) == 1 {
		if err := target(s); err != nil {
			return fmt.Errorf("%w; several are separated by commas", err)
		}
		return nil
	}
	seen := map[string]bool{}
	for _, t := range list {
		if err := target(t); err != nil {
			return fmt.Errorf("%q, one of the targets listed, is %w", t, err)
		}
		if seen[t] {
			return fmt.Errorf("%q is listed twice", t)
		}
		seen[t] = true
	}
	return nil
}

func splitTargets(s string) []string {
	list := strings.Split(s, ",")
	for i, t := range list {
		list[i] = strings.TrimSpace(t)
	}
	return list
}

// spreadTargets writes each job's targets as lookup gives its variable (a probed address is
// not in the environment ${env:...} reads), a variable naming several spread over
// static_configs entries of their own.
func spreadTargets(conf *confmap.Conf, lookup func(string) (string, bool)) error {
	given := map[string][]string{} // job -> targets
	for variable, job := range targetJobs {
		if v, ok := lookup(variable); ok && v != none {
			given[job] = splitTargets(v)
		}
	}
	if len(given) == 0 {
		return nil
	}
	jobs, _ := conf.Get("receivers::" + scraper + "::config::scrape_configs").([]any)
	for i, j := range jobs {
		job, _ := j.(map[string]any)
		list, ok := given[fmt.Sprint(job["job_name"])]
		if !ok {
			continue
		}
		entries, err := perTarget(job, list)
		if err != nil {
			return err
		}
		job = maps.Clone(job)
		job["static_configs"] = entries
		jobs[i] = job
	}
	return conf.Merge(confmap.NewFromStringMap(map[string]any{"receivers": map[string]any{scraper: map[string]any{"config": map[string]any{"scrape_configs": jobs}}}}))
}

// perTarget returns the job's one static_configs entry with one target as its own, or an entry
// per target, with the labels of that entry and replica REPLICA-PORT (REPLICA-HOST:PORT
// where ports repeat).
func perTarget(job map[string]any, list []string) ([]any, error) {
	statics, _ := job["static_configs"].([]any)
	if len(statics) != 1 {
		return nil, fmt.Errorf("job %v: want one static_configs entry to spread targets over, have %d", job["job_name"], len(statics))
	}
	entry, _ := statics[0].(map[string]any)
	if len(list) == 1 {
		entry = maps.Clone(entry)
		entry["targets"] = []any{list[0]}
		return []any{entry}, nil
	}
	labels, _ := entry["labels"].(map[string]any)
	replica, ok := labels["replica"].(string)
	if !ok {
		return nil, errors.New("job " + fmt.Sprint(job["job_name"]) + ": no replica label to name each target's replica after")
	}
	ports := map[string]bool{}
	for _, t := range list {
		_, port, _ := net.SplitHostPort(t)
		ports[port] = true
	}
	out := make([]any, len(list))
	for i, t := range list {
		suffix := t
		if len(ports) == len(list) {
			_, suffix, _ = net.SplitHostPort(t)
		}
		l := maps.Clone(labels)
		l["replica"] = replica + "-" + suffix
		out[i] = map[string]any{"targets": []any{t}, "labels": l}
	}
	return out, nil
}
