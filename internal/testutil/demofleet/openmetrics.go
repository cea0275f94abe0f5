// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package demofleet

import (
	"bytes"
	"fmt"
	"mime"
	"strings"
)

// ContentTypeOpenMetrics is what Python's prometheus_client answers with when a scraper asks
// for OpenMetrics.
const ContentTypeOpenMetrics = "application/openmetrics-text; version=1.0.0; charset=utf-8"

// AcceptsOpenMetrics says whether an Accept header lists OpenMetrics at all, as
// prometheus_client decides: a vLLM or SGLang scraped by a collector, whose Prometheus
// receiver lists it by default, answers in OpenMetrics.
func AcceptsOpenMetrics(accept string) bool {
	for _, part := range strings.Split(accept, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err == nil && mt == "application/openmetrics-text" {
			return true
		}
	}
	return false
}

// OpenMetrics rewrites a page Python's prometheus_client wrote in the text format as it writes
// it in OpenMetrics 1.0: counter families without `_total`, `_created` samples back in their
// families, `untyped` as `unknown`, and `# EOF` at the end.
func OpenMetrics(text []byte) ([]byte, error) {
	fams, err := splitFamilies(text)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	for i := 0; i < len(fams); i++ {
		f := fams[i]
		name, typ := f.name, f.typ
		var created *family
		switch typ {
		case "counter":
			base, ok := strings.CutSuffix(name, "_total")
			if !ok {
				return nil, fmt.Errorf("counter %s: prometheus_client names every counter ..._total in the text format", name)
			}
			name = base
		case "untyped":
			typ = "unknown"
		}
		if (typ == "counter" || typ == "histogram" || typ == "summary") && i+1 < len(fams) &&
			fams[i+1].name == name+"_created" && fams[i+1].typ == "gauge" {
			created = &fams[i+1]
			i++
		}
		if f.help != "" {
			// OpenMetrics also escapes double quotes in HELP; the text format does not.
			fmt.Fprintf(&out, "# HELP %s %s\n", name, helpQuotes.Replace(f.help))
		}
		fmt.Fprintf(&out, "# TYPE %s %s\n", name, typ)
		// Children in the order they first appear, each followed by its _created sample.
		var order []string
		children := map[string][]string{}
		for _, s := range f.samples {
			key, err := childKey(s)
			if err != nil {
				return nil, fmt.Errorf("family %s: %w", f.name, err)
			}
			if _, seen := children[key]; !seen {
				order = append(order, key)
			}
			children[key] = append(children[key], s)
		}
		if created != nil {
			for _, s := range created.samples {
				key, err := childKey(s)
				if err != nil {
					return nil, fmt.Errorf("family %s: %w", created.name, err)
				}
				if _, seen := children[key]; !seen {
					return nil, fmt.Errorf("family %s: %q has no series in %s", created.name, s, f.name)
				}
				children[key] = append(children[key], s)
			}
		}
		for _, key := range order {
			for _, s := range children[key] {
				out.WriteString(s)
				out.WriteByte('\n')
			}
		}
	}
	out.WriteString("# EOF\n")
	return out.Bytes(), nil
}

var helpQuotes = strings.NewReplacer(`"`, `\"`)

// family is one metric family of a text page: its HELP text, type and sample lines.
type family struct {
	name, help, typ string
	samples         []string
}

// splitFamilies reads a text page family by family. prometheus_client writes HELP, then
// TYPE, then the samples of each family.
func splitFamilies(text []byte) ([]family, error) {
	var fams []family
	for _, line := range strings.Split(strings.TrimRight(string(text), "\n"), "\n") {
		switch {
		case line == "":
		case strings.HasPrefix(line, "# HELP "):
			name, help, _ := strings.Cut(strings.TrimPrefix(line, "# HELP "), " ")
			fams = append(fams, family{name: name, help: help})
		case strings.HasPrefix(line, "# TYPE "):
			f := strings.Fields(line)
			if len(f) != 4 {
				return nil, fmt.Errorf("malformed TYPE line %q", line)
			}
			if n := len(fams); n == 0 || fams[n-1].name != f[2] || fams[n-1].typ != "" {
				fams = append(fams, family{name: f[2]})
			}
			fams[len(fams)-1].typ = f[3]
		case line[0] == '#':
		default:
			if len(fams) == 0 || fams[len(fams)-1].typ == "" {
				return nil, fmt.Errorf("sample %q before any TYPE line", line)
			}
			fams[len(fams)-1].samples = append(fams[len(fams)-1].samples, line)
		}
	}
	return fams, nil
}

// childKey identifies the series a sample belongs to: its labels without `le` and
// `quantile`, which tell a histogram's buckets and a summary's quantiles apart.
func childKey(sample string) (string, error) {
	open := strings.IndexByte(sample, '{')
	if open < 0 {
		return "", nil
	}
	var key strings.Builder
	rest := sample[open+1:]
	for {
		rest = strings.TrimLeft(rest, ", ")
		if strings.HasPrefix(rest, "}") {
			return key.String(), nil
		}
		eq := strings.IndexByte(rest, '=')
		if eq < 0 || len(rest) < eq+2 || rest[eq+1] != '"' {
			return "", fmt.Errorf("malformed labels in %q", sample)
		}
		name := rest[:eq]
		// The value runs to the first quote not escaped by a backslash.
		end := eq + 2
		for ; end < len(rest) && rest[end] != '"'; end++ {
			if rest[end] == '\\' {
				end++
			}
		}
		if end >= len(rest) {
			return "", fmt.Errorf("unterminated label value in %q", sample)
		}
		if name != "le" && name != "quantile" {
			key.WriteString(rest[:end+1])
			key.WriteByte(',')
		}
		rest = rest[end+1:]
	}
}
