package builtin

import (
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every target the catalog reaches has one canonical description, and the table names
// nothing the catalog does not reach.
func TestDescriptionsCoverTheCatalog(t *testing.T) {
	cat, err := Load()
	require.NoError(t, err)
	d, err := Descriptions()
	require.NoError(t, err)
	targets := map[string]bool{}
	for _, m := range cat.Mappings {
		for _, e := range m.Metrics {
			targets[e.To] = true
		}
	}
	var missing, extra []string
	for to := range targets {
		if strings.TrimSpace(d[to]) == "" {
			missing = append(missing, to)
		}
	}
	for name := range d {
		if !targets[name] {
			extra = append(extra, name)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	assert.Empty(t, missing, "targets without a description")
	assert.Empty(t, extra, "descriptions of targets no built-in mapping reaches")
}
