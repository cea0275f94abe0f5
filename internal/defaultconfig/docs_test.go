// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package defaultconfig

import (
	"regexp"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/modelplaneai/otelcol-modelplane/internal/deliverywatch"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil"
)

// docs/configuration.md lists every variable the embedded configurations and the process read,
// each default the one the code gives, and none that the code does not read.
func TestConfigurationDocListsEveryVariable(t *testing.T) {
	rows := testutil.DocTable(t, "../../docs/configuration.md", "Environment variables")
	doc := map[string]string{}
	for _, r := range rows {
		doc[r[0]] = r[1]
	}

	want := map[string]bool{QueueDirVariable: true, deliverywatch.GiveUpEnv: true}
	ref := regexp.MustCompile(`\$\{env:([A-Z0-9_]+)`)
	for _, raw := range Documents {
		for _, m := range ref.FindAllStringSubmatch(string(raw), -1) {
			if m[1] != "HOSTNAME" { // the host's name, which the env provider fills in
				want[m[1]] = true
			}
		}
	}
	for _, v := range variables {
		want[v.name] = true
		if v.name != "NODE_NAME" {
			assert.Equal(t, v.def, doc[v.name], "the default of %s in docs/configuration.md", v.name)
		}
	}
	for name := range want {
		assert.Contains(t, doc, name, "docs/configuration.md does not list %s", name)
	}
	var extra []string
	for name := range doc {
		if !want[name] {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	assert.Empty(t, extra, "docs/configuration.md lists variables the code does not read")
}
