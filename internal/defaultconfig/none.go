// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package defaultconfig

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// none, as a target variable's value, leaves that scrape job out of the default. A host runs
// vLLM or SGLang, seldom both, and not always a dcgm-exporter; a job whose target never
// answers logs a failed scrape every interval and counts one in the collector's own metrics.
const none = "none"

// targetJobs are the scrape jobs of the default, by the variable naming their target.
var targetJobs = map[string]string{
	"MODELPLANE_VLLM_TARGET":          "vllm",
	"MODELPLANE_SGLANG_TARGET":        "sglang",
	"MODELPLANE_NIM_TARGET":           "nim",
	"MODELPLANE_DCGM_EXPORTER_TARGET": "dcgm-exporter",
}

// allowNone accepts none besides what check accepts.
func allowNone(check func(string) error) func(string) error {
	return func(s string) error {
		if s == none {
			return nil
		}
		return check(s)
	}
}

// dropDisabledJobs removes from raw the jobs whose variable says none, or is unset and
// defaults to none (NIM's); with no job left, the Prometheus receiver goes too (it refuses to
// start without one), and without a dcgm-exporter the GPU receiver reads the GPUs itself.
func dropDisabledJobs(raw map[string]any, lookup func(string) (string, bool)) error {
	off := map[string]bool{}
	for variable, job := range targetJobs {
		if valueOf(variable, lookup) == none {
			off[job] = true
		}
	}
	if len(off) == 0 {
		return nil
	}
	receivers, _ := raw["receivers"].(map[string]any)
	scrapes, _ := receivers[scraper].(map[string]any)
	cfg, _ := scrapes["config"].(map[string]any)
	jobs, ok := cfg["scrape_configs"].([]any)
	if !ok {
		return fmt.Errorf("the default has no scrape_configs to leave %v out of", off)
	}
	cfg["scrape_configs"] = slices.DeleteFunc(jobs, func(j any) bool {
		job, _ := j.(map[string]any)
		return off[fmt.Sprint(job["job_name"])]
	})
	if off["dcgm-exporter"] {
		if dcgm, ok := receivers["dcgm"].(map[string]any); ok {
			delete(dcgm, "defer_to_exporter")
		}
	}
	if len(cfg["scrape_configs"].([]any)) > 0 {
		return nil
	}
	delete(receivers, scraper)
	service, _ := raw["service"].(map[string]any)
	pipelines, _ := service["pipelines"].(map[string]any)
	metrics, _ := pipelines["metrics"].(map[string]any)
	if list, ok := metrics["receivers"].([]any); ok {
		metrics["receivers"] = slices.DeleteFunc(list, func(r any) bool { return r == scraper })
	}
	return nil
}

const dcgmExporterVariable = "MODELPLANE_DCGM_EXPORTER_TARGET"

// probedTarget is a target of the default that, with its variable unset, is scraped only
// where its page is served at its default address when the configuration is loaded.
type probedTarget struct {
	variable      string
	article, name string // as the log names it: "A vLLM answers now", "An SGLang ..."
	marker        string // how its page's metric names begin
	// engine: an engine's page found at another engine's default address (an SGLang started
	// with --port 8000) is scraped by its own engine's job, with its own labels.
	engine bool
	// noPageHint says why its port may serve HTTP but no /metrics; empty: nothing to add.
	noPageHint string
	// meanwhile says what stands in while it is left out, and then what changes once it is
	// scraped; empty: nothing.
	meanwhile, then string
}

// probedTargets are the targets a host may or may not run: a job scraping an address that
// serves no such page would fail every scrape for as long as the collector runs. A variable
// that is set is used as it is; NIM's job runs only when asked for, and is never probed.
var probedTargets = []probedTarget{
	{variable: "MODELPLANE_VLLM_TARGET", article: "A", name: "vLLM", marker: "vllm:", engine: true,
		noPageHint: "a vLLM serves /metrics; an NVIDIA NIM, which serves on this port too, has its metrics at /v1/metrics, read with MODELPLANE_NIM_TARGET=127.0.0.1:8000"},
	{variable: "MODELPLANE_SGLANG_TARGET", article: "An", name: "SGLang", marker: "sglang:", engine: true,
		noPageHint: "SGLang serves /metrics only when started with --enable-metrics"},
	{variable: dcgmExporterVariable, article: "A", name: "dcgm-exporter", marker: "DCGM_FI_",
		meanwhile: "the dcgm receiver reads the GPUs itself", then: "the dcgm receiver then leaves it the GPUs"},
}

// absentTarget is a probed target left out of the default, the address looked at, and what
// was found there.
type absentTarget struct {
	probedTarget
	addr  string
	found finding
}

// movedTarget is an engine found at another probed target's default address, and scraped
// there by its own job.
type movedTarget struct {
	found *probedTarget
	at    probedTarget
	addr  string
}

// placeProbedTargets probes, all at once, the default address of each probed target whose
// variable is unset: the variable is none where no page of that target is served there, and
// an engine's page found at another's default address has that engine's variable name it.
func placeProbedTargets(lookup func(string) (string, bool), probe func(addr string) finding) (func(string) (string, bool), []movedTarget, []absentTarget) {
	var probed []probedTarget
	for _, p := range probedTargets {
		if _, set := lookup(p.variable); !set {
			probed = append(probed, p)
		}
	}
	findings := make([]finding, len(probed))
	var wg sync.WaitGroup
	for i, p := range probed {
		wg.Go(func() { findings[i] = probe(valueOf(p.variable, unset)) })
	}
	wg.Wait()

	placed := map[string][]string{} // variable -> the addresses its job scrapes
	var moved []movedTarget
	var absent []absentTarget
	for i, p := range probed {
		addr, f := valueOf(p.variable, unset), findings[i]
		switch by := scrapedBy(p, f, lookup); {
		case by == nil:
			absent = append(absent, absentTarget{p, addr, f})
		case by.variable == p.variable:
			placed[p.variable] = append([]string{addr}, placed[p.variable]...)
		default:
			placed[by.variable] = append(placed[by.variable], addr)
			moved = append(moved, movedTarget{by, p, addr})
		}
	}
	// An engine scraped where another's default address serves it is not looked for at its
	// own as well: the log would say none answers while one is scraped.
	absent = slices.DeleteFunc(absent, func(a absentTarget) bool { return len(placed[a.variable]) > 0 })
	if len(absent) == 0 && len(moved) == 0 {
		return lookup, nil, nil
	}
	given := map[string]string{} // each probed variable as the probe places it
	for _, p := range probed {
		given[p.variable] = none
		if addrs := placed[p.variable]; len(addrs) > 0 {
			given[p.variable] = strings.Join(addrs, ",")
		}
	}
	return func(name string) (string, bool) {
		if v, ok := given[name]; ok {
			return v, true
		}
		return lookup(name)
	}, moved, absent
}

// scrapedBy is the probed target whose job scrapes what f found at at's default address: at,
// an engine of another kind whose variable is unset, or nil for none.
func scrapedBy(at probedTarget, f finding, lookup func(string) (string, bool)) *probedTarget {
	switch {
	case f.serves == nil:
		return nil
	case f.serves.variable == at.variable:
		return f.serves
	case at.engine && f.serves.engine:
		if _, set := lookup(f.serves.variable); !set {
			return f.serves
		}
	}
	return nil
}

// what says what a probe found where its target was left out, for the log.
func (a absentTarget) what() string {
	switch {
	case a.found.serves != nil:
		return "it serves " + a.found.serves.name + "'s page, and " + a.found.serves.variable + " is set: list this address in it to scrape it"
	case a.found.notFound && a.noPageHint != "":
		return a.found.why + "; " + a.noPageHint
	}
	return a.found.why
}

// withNone is lookup with the variables named given as none.
func withNone(lookup func(string) (string, bool), variables []string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		if slices.Contains(variables, name) {
			return none, true
		}
		return lookup(name)
	}
}

// unset is a lookup that finds no variable, for the defaults.
func unset(string) (string, bool) { return "", false }
