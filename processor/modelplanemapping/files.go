package modelplanemapping

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/modelplaneai/otelcol-modelplane/internal/metricmapping"
)

// fileState is the last good content of one mapping file.
type fileState struct {
	data     []byte
	mappings []metricmapping.MetricMapping
}

// expand resolves the configured paths and globs into files, in config order, each glob's
// matches sorted, without duplicates. Kubernetes ConfigMap volumes hold hidden ..data
// folders and timestamped copies; globs skip names starting with a dot.
func expand(patterns []string) ([]string, []error) {
	var out []string
	var errs []error
	seen := map[string]bool{}
	for _, p := range patterns {
		matches, err := filepath.Glob(p)
		if err != nil {
			errs = append(errs, fmt.Errorf("mapping_files: bad glob %q: %w", p, err))
			continue
		}
		sort.Strings(matches)
		for _, m := range matches {
			if seen[m] || filepath.Base(m)[0] == '.' {
				continue
			}
			if st, err := os.Stat(m); err != nil || st.IsDir() {
				continue
			}
			seen[m] = true
			out = append(out, m)
		}
	}
	return out, errs
}

// loadFiles reads every mapping file. For a file that changed and now has problems, the
// last good state in prev is kept, so a broken update never removes working mappings. It
// returns the new state per file and every problem found.
func loadFiles(patterns []string, prev map[string]*fileState) (*fileSet, []error) {
	files, errs := expand(patterns)
	next := make(map[string]*fileState, len(files))
	var skipped []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", f, err))
			if old, ok := prev[f]; ok {
				next[f] = old
			}
			continue
		}
		if old, ok := prev[f]; ok && bytes.Equal(old.data, data) {
			next[f] = old
			continue
		}
		res := metricmapping.Decode(f, data)
		skipped = append(skipped, res.Skipped...)
		if old, ok := prev[f]; ok && len(res.Errors) > 0 {
			for _, err := range res.Errors {
				errs = append(errs, fmt.Errorf("%w; kept the last good version of the file", err))
			}
			next[f] = &fileState{data: data, mappings: old.mappings}
			continue
		}
		errs = append(errs, res.Errors...)
		next[f] = &fileState{data: data, mappings: res.Mappings}
	}
	return &fileSet{files: files, state: next, skipped: skipped}, errs
}

// fileSet is one load of every mapping file.
type fileSet struct {
	files []string // in the order the patterns name them
	state map[string]*fileState
	// skipped names the documents of other kinds in the files this load read anew.
	skipped []string
}

// mappings returns the mappings of every file in order.
func (fs *fileSet) mappings() []metricmapping.MetricMapping {
	var out []metricmapping.MetricMapping
	for _, f := range fs.files {
		if st, ok := fs.state[f]; ok {
			out = append(out, st.mappings...)
		}
	}
	return out
}

// same reports whether two loads hold the same files with the same contents.
func (fs *fileSet) same(o *fileSet) bool {
	if o == nil || len(fs.files) != len(o.files) {
		return false
	}
	for i, f := range fs.files {
		if o.files[i] != f || !bytes.Equal(fs.state[f].data, o.state[f].data) {
			return false
		}
	}
	return true
}
