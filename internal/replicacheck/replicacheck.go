// Package replicacheck is otelcol-modelplane's confmap converter that warns of scrape targets
// labelled as one replica.
//
// The mapping processor's identity keeps only the identity attributes of a series. Where its
// keys leave out service.instance.id (the scrape target), as the embedded default and the
// standalone config do so that a host's endpoint serves modelplane_* only, the target labels
// (replica, engine, ...) are all that tells two engines apart. A second vLLM added to the
// targets of the first's static_configs entry gets that entry's labels: both are then one
// replica, and every series they both report (same name and labels, as two servers of one
// model have) is merged into one that carries either engine's value, while the other's is
// lost. Nothing failed or said so.
//
// The check is static and conservative: it names targets whose static labels give the same
// replica label and identity, in a job whose relabelling sets no identity key, to a mapping
// processor whose identity keys leave out service.instance.id. Two such targets that report
// different series (two models) lose nothing, which is why it warns instead of failing.
package replicacheck // import "github.com/modelplaneai/otelcol-modelplane/internal/replicacheck"

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
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping"
)

const (
	processorType = "modelplane_mapping"
	receiverType  = "prometheus"
	// instanceKey is the resource attribute the Prometheus receiver sets to the target.
	instanceKey = "service.instance.id"
	// replicaKey is the label whose purpose is to tell replicas apart: two targets that
	// give it the same value claim to be one process.
	replicaKey = "replica"
)

// NewFactory returns the factory of the converter.
func NewFactory() confmap.ConverterFactory {
	// The collector gives converters a logger (a no-op one where it has none).
	return confmap.NewConverterFactory(func(set confmap.ConverterSettings) confmap.Converter {
		return converter{logger: set.Logger}
	})
}

type converter struct{ logger *zap.Logger }

// Convert changes nothing; it warns of each group of targets that are one replica.
func (c converter) Convert(_ context.Context, conf *confmap.Conf) error {
	for _, w := range Shared(conf) {
		c.logger.Warn("Scrape targets labelled as one replica: " + w)
		validatenotes.Warn("%s", w)
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
				if !pipelines.IsType(rid, receiverType) {
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
