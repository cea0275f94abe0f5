// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package configcheck

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/confmap"

	"github.com/modelplaneai/otelcol-modelplane/internal/pipelines"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping"
)

const (
	processorType = "modelplane_mapping"
	// instanceKey is the resource attribute the Prometheus receiver sets to the target.
	instanceKey = "service.instance.id"
	// replicaKey is the label whose purpose is to tell replicas apart: two targets that
	// give it the same value claim to be one process.
	replicaKey = "replica"
)

// sharedReplicas warns of each group of static targets that are one replica.
func sharedReplicas(c *checker, conf *confmap.Conf) error {
	for _, w := range Shared(conf) {
		c.logger.Warn("Scrape targets labelled as one replica: " + w)
		c.note("%s", w)
	}
	return nil
}

// target is one static target as the mapping's identity sees it.
type target struct{ job, addr string }

// Shared returns a warning for each group of static targets that a mapping processor of
// the same metrics pipeline would give one identity, sorted.
func Shared(conf *confmap.Conf) []string {
	warnings := map[string]bool{}
	for _, p := range pipelines.Metrics(conf) {
		for _, proc := range p.Processors {
			if !pipelines.IsType(proc, processorType) {
				continue
			}
			keys, ok := identityKeys(conf, proc)
			if !ok || slices.Contains(keys, instanceKey) || !slices.Contains(keys, replicaKey) {
				continue
			}
			for _, rid := range p.Receivers {
				if !pipelines.IsScraper(rid) {
					continue
				}
				for identity, targets := range groups(conf, rid, keys) {
					if len(targets) > 1 {
						warnings[warning(rid, proc, identity, targets)] = true
					}
				}
			}
		}
	}
	return slices.Sorted(maps.Keys(warnings))
}

// identityKeys returns the identity keys of the mapping processor id, and false where its
// identity is off (every resource attribute stays, the target's included) or its
// configuration does not load (the processor reports that itself).
func identityKeys(conf *confmap.Conf, id string) ([]string, bool) {
	cfg, ok := modelplanemapping.NewFactory().CreateDefaultConfig().(*modelplanemapping.Config)
	if !ok {
		return nil, false
	}
	sub, err := conf.Sub("processors::" + id)
	if err != nil || sub.Unmarshal(cfg) != nil || !cfg.Identity.Enabled {
		return nil, false
	}
	return cfg.Identity.Keys, true
}

// groups returns the static targets of receiver rid by the identity their labels give,
// written as the labels a series would carry.
func groups(conf *confmap.Conf, rid string, keys []string) map[string][]target {
	out := map[string][]target{}
	jobs, _ := conf.Get("receivers::" + rid + "::config::scrape_configs").([]any)
	for _, j := range jobs {
		job, _ := j.(map[string]any)
		if job == nil || relabelsIdentity(job, keys) {
			continue
		}
		name := fmt.Sprint(job["job_name"])
		statics, _ := job["static_configs"].([]any)
		for _, s := range statics {
			static, _ := s.(map[string]any)
			labels, _ := static["labels"].(map[string]any)
			if _, ok := labels[replicaKey]; !ok {
				continue
			}
			var identity []string
			for _, k := range keys {
				switch v, ok := labels[k]; {
				case ok:
					identity = append(identity, fmt.Sprintf("%s=%q", k, fmt.Sprint(v)))
				case k == "service.name":
					identity = append(identity, fmt.Sprintf("%s=%q", k, name))
				}
			}
			id := strings.Join(identity, ", ")
			for _, addr := range pipelines.Strings(static["targets"]) {
				out[id] = append(out[id], target{job: name, addr: addr})
			}
		}
	}
	return out
}

// relabelsIdentity tells whether the job's target relabelling may set an identity label
// (or keeps the page's own, with honor_labels), which a static check cannot follow.
func relabelsIdentity(job map[string]any, keys []string) bool {
	if honor, _ := job["honor_labels"].(bool); honor {
		return true
	}
	rules, _ := job["relabel_configs"].([]any)
	for _, r := range rules {
		rule, _ := r.(map[string]any)
		action := strings.ToLower(fmt.Sprint(rule["action"]))
		if action == "labelmap" || slices.Contains(keys, fmt.Sprint(rule["target_label"])) {
			return true
		}
	}
	return false
}

func warning(rid, proc, identity string, targets []target) string {
	sameJob := true
	for _, t := range targets {
		sameJob = sameJob && t.job == targets[0].job
	}
	names := make([]string, len(targets))
	for i, t := range targets {
		names[i] = t.addr
		if !sameJob {
			names[i] += " of job " + t.job
		}
	}
	list := strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	if sameJob {
		list += " of job " + targets[0].job
	}
	return fmt.Sprintf("receivers::%s: targets %s are one replica to processors::%s (%s), "+
		"whose identity keys leave out %s: a series they both report is merged into one, "+
		"with either target's value. Give each target its own static_configs entry with its "+
		"own %s label, or add %s to processors::%s::identity::keys",
		rid, list, proc, identity, instanceKey, replicaKey, instanceKey, proc)
}
