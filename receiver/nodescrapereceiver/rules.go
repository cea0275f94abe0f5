// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package nodescrapereceiver // import "github.com/modelplaneai/otelcol-modelplane/receiver/nodescrapereceiver"

import (
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/relabel"
)

// splitRules splits a job's metric_relabel_configs into the keep and drop rules that read
// the metric name alone and can be decided before a line's labels are parsed, and the rest,
// applied in order to each kept series. A name rule is taken out only where every rule
// before it leaves the name as it is, so the series kept are the same as Prometheus keeps.
func splitRules(rules []*relabel.Config) (byName, rest []*relabel.Config) {
	nameIntact := true
	for _, r := range rules {
		if nameIntact && isNameFilter(r) {
			byName = append(byName, r)
			continue
		}
		rest = append(rest, r)
		nameIntact = nameIntact && keepsName(r)
	}
	return byName, rest
}

func isNameFilter(r *relabel.Config) bool {
	return (r.Action == relabel.Keep || r.Action == relabel.Drop) &&
		len(r.SourceLabels) == 1 && r.SourceLabels[0] == model.MetricNameLabel
}

// keepsName reports whether a rule can neither change nor remove __name__.
func keepsName(r *relabel.Config) bool {
	switch r.Action {
	case relabel.Keep, relabel.Drop, relabel.KeepEqual, relabel.DropEqual:
		return true
	case relabel.Replace, relabel.Lowercase, relabel.Uppercase, relabel.HashMod:
		return r.TargetLabel != model.MetricNameLabel
	case relabel.LabelDrop:
		return !r.Regex.MatchString(model.MetricNameLabel)
	case relabel.LabelKeep:
		return r.Regex.MatchString(model.MetricNameLabel)
	default: // labelmap may write any name
		return false
	}
}

// keepName applies the name rules to a name.
func keepName(byName []*relabel.Config, name string) bool {
	if len(byName) == 0 {
		return true
	}
	return relabel.ProcessBuilder(labels.NewBuilder(labels.FromStrings(model.MetricNameLabel, name)), byName...)
}
