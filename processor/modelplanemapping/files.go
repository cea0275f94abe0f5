// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package modelplanemapping

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/metricmapping"
)

// fileState is the last good content of one mapping file, and why the last read of it
// failed, if it did. Every file a load found has one, readable or not.
type fileState struct {
	data     []byte
	mappings []metricmapping.MetricMapping
	problem  string // the read error; a new one is a change, so it is said once
}

// expand resolves the configured paths and globs into files, in config order, each glob's
// matches sorted, without duplicates or dot names (a ConfigMap volume's ..data). A folder
// named without a wildcard stands for its .yaml, .yml and .json files.
func expand(patterns []string) ([]string, []error) {
	var out []string
	var errs []error
	seen := map[string]bool{}
	for _, p := range patterns {
		globs := []string{p}
		if isFolder(p) {
			globs = []string{filepath.Join(p, "*.yaml"), filepath.Join(p, "*.yml"), filepath.Join(p, "*.json")}
		}
		var matches []string
		var err error
		for _, g := range globs {
			var m []string
			if m, err = filepath.Glob(g); err != nil {
				break
			}
			matches = append(matches, m...)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("mapping_files: bad glob %q: %w", p, err))
			continue
		}
		sort.Strings(matches)
		for _, m := range matches {
			if seen[m] || filepath.Base(m)[0] == '.' {
				continue
			}
			st, err := os.Stat(m)
			if err != nil || st.IsDir() {
				continue
			}
			if !st.Mode().IsRegular() {
				// Opening a named pipe for reading waits for a writer: the reload, and the
				// collector's start and shutdown with it, would wait forever.
				errs = append(errs, fmt.Errorf("%s: a %s, not a regular file; skipped", m, fileKind(st.Mode())))
				continue
			}
			seen[m] = true
			out = append(out, m)
		}
	}
	return out, errs
}

// isGlob reports whether a mapping_files entry has a wildcard, as filepath.Match reads one.
func isGlob(p string) bool { return strings.ContainsAny(p, "*?[") }

// isFolder reports whether a mapping_files entry names a folder, without a wildcard.
func isFolder(p string) bool {
	if isGlob(p) {
		return false
	}
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// missingFiles returns the indexes of the mapping_files entries that name a file without a
// wildcard and do not exist: most often a misspelt name, which loads nothing while nothing
// else says so (a glob that matches nothing yet is a folder still empty).
func missingFiles(patterns []string) []int {
	var out []int
	for i, p := range patterns {
		if isGlob(p) {
			continue
		}
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			out = append(out, i)
		}
	}
	return out
}

// fileKind names what a file that is not a regular one is.
func fileKind(mode os.FileMode) string {
	switch {
	case mode&os.ModeNamedPipe != 0:
		return "named pipe"
	case mode&os.ModeSocket != 0:
		return "socket"
	case mode&os.ModeDevice != 0:
		return "device"
	}
	return "file of mode " + mode.Type().String()
}

// loadFiles reads every mapping file. For a file that changed and now has problems, the
// last good state in prev is kept, so a broken update never removes working mappings. It
// returns the new state per file and every problem found.
func loadFiles(patterns []string, prev map[string]*fileState) (*fileSet, []error) {
	files, errs := expand(patterns)
	next := make(map[string]*fileState, len(files))
	var skipped []string
	for _, f := range files {
		data, err := readMappingFile(f)
		if err != nil {
			st := &fileState{problem: err.Error()}
			if old, ok := prev[f]; ok && old.data != nil {
				st.data, st.mappings = old.data, old.mappings
				err = fmt.Errorf("%w; kept the last good version of the file", err)
			}
			next[f] = st
			errs = append(errs, fmt.Errorf("%s: %w", f, err))
			continue
		}
		if old, ok := prev[f]; ok && bytes.Equal(old.data, data) {
			if old.problem != "" { // readable again, unchanged
				old = &fileState{data: old.data, mappings: old.mappings}
			}
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

// MappingFiles returns the valid mappings of the files patterns name, as mapping_files reads
// them, in run order, and the documents of other kinds it skipped (`f.yaml: document 1
// (ConfigMap "x")`); documents with problems are left out (validate names them).
func MappingFiles(patterns []string) (mappings []metricmapping.MetricMapping, skipped []string) {
	files, _ := loadFiles(patterns, nil)
	return files.mappings(), files.skipped
}

// maxFileSize bounds one mapping file. A ConfigMap holds at most 1 MiB and 3,000 mapping
// entries take about 200 KiB, so a larger file is a glob matching something else (a log, a
// dump), which would otherwise be read whole every reload_interval.
const maxFileSize = 4 << 20

// readMappingFile reads one mapping file of at most maxFileSize bytes.
func readMappingFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > maxFileSize { // refused unread
		return nil, fmt.Errorf("%d bytes, more than the %d (4 MiB) a mapping file may hold", st.Size(), maxFileSize)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxFileSize { // grown since, or a file that reports no size
		return nil, fmt.Errorf("more than the %d bytes (4 MiB) a mapping file may hold", maxFileSize)
	}
	return data, nil
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

// same reports whether two loads hold the same files with the same contents and the same
// read problems.
func (fs *fileSet) same(o *fileSet) bool {
	if o == nil || len(fs.files) != len(o.files) {
		return false
	}
	for i, f := range fs.files {
		a, b := fs.state[f], o.state[f]
		if o.files[i] != f || !bytes.Equal(a.data, b.data) || a.problem != b.problem {
			return false
		}
	}
	return true
}
