// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package defaultconfig

import "slices"

// noNodeLabel removes the resource processor's node action where NODE_NAME is set but empty:
// the processor refuses an action without a value, naming neither the variable nor the label.
func noNodeLabel(raw map[string]any, lookup func(string) (string, bool)) {
	if v, set := lookup("NODE_NAME"); !set || v != "" {
		return
	}
	processors, _ := raw["processors"].(map[string]any)
	resource, _ := processors["resource"].(map[string]any)
	actions, ok := resource["attributes"].([]any)
	if !ok {
		return
	}
	resource["attributes"] = slices.DeleteFunc(actions, func(a any) bool {
		action, _ := a.(map[string]any)
		return action["key"] == "node"
	})
}
