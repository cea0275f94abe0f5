package defaultconfig

import (
	"fmt"
	"net"
	"slices"
	"time"
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

// orNone accepts none besides what check accepts.
func orNone(check func(string) error) func(string) error {
	return func(s string) error {
		if s == none {
			return nil
		}
		return check(s)
	}
}

// leaveOut removes from raw, the default as parsed, the jobs whose variable says none, or
// whose variable is unset and defaults to none (NIM's).
// Without a dcgm-exporter the GPU receiver has nothing to defer to and reads the GPUs itself;
// with no job left, the Prometheus receiver goes too (it refuses to start without one).
func leaveOut(raw map[string]any, lookup func(string) (string, bool)) error {
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
	prometheus, _ := receivers["prometheus"].(map[string]any)
	cfg, _ := prometheus["config"].(map[string]any)
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
	delete(receivers, "prometheus")
	service, _ := raw["service"].(map[string]any)
	pipelines, _ := service["pipelines"].(map[string]any)
	metrics, _ := pipelines["metrics"].(map[string]any)
	if list, ok := metrics["receivers"].([]any); ok {
		metrics["receivers"] = slices.DeleteFunc(list, func(r any) bool { return r == "prometheus" })
	}
	return nil
}

const dcgmExporterVariable = "MODELPLANE_DCGM_EXPORTER_TARGET"

// probedTarget is a target of the default that, with its variable unset, is scraped only
// where something answers at its default address when the configuration is loaded.
type probedTarget struct {
	variable      string
	article, name string // as the log names it: "A vLLM answers now", "An SGLang ..."
	// meanwhile says what stands in while it is left out, and then what changes once it is
	// scraped; empty: nothing.
	meanwhile, then string
}

// probedTargets are the targets a host may or may not run. A vLLM-only host has no SGLang,
// most have no dcgm-exporter, and a container without the host's network has none of them:
// a job scraping a default address that nothing serves would log a failed scrape every
// interval, and count one, for as long as the collector runs. One that starts later (at
// boot, or installed later) has the collector reload (watchForTargets) and is scraped from
// then on. A variable that is set, to an address or to none, is used as it is: the way to
// have an address scraped, and its failures counted, whether it answers or not. NIM's job
// runs only when asked for, so it is never probed.
var probedTargets = []probedTarget{
	{variable: "MODELPLANE_VLLM_TARGET", article: "A", name: "vLLM"},
	{variable: "MODELPLANE_SGLANG_TARGET", article: "An", name: "SGLang"},
	{variable: dcgmExporterVariable, article: "A", name: "dcgm-exporter",
		meanwhile: "the dcgm receiver reads the GPUs itself", then: "the dcgm receiver then leaves it the GPUs"},
}

// absentTarget is a probed target left out of the default, and the address looked at.
type absentTarget struct {
	probedTarget
	addr string
}

// withoutAbsentTargets gives each probed target's variable as none where it is unset and
// nothing answers at its default address, and lists those left out.
func withoutAbsentTargets(lookup func(string) (string, bool), answers func(addr string) bool) (func(string) (string, bool), []absentTarget) {
	var absent []absentTarget
	for _, p := range probedTargets {
		if _, set := lookup(p.variable); set {
			continue
		}
		if addr := valueOf(p.variable, unset); !answers(addr) {
			absent = append(absent, absentTarget{p, addr})
		}
	}
	if len(absent) == 0 {
		return lookup, nil
	}
	names := make([]string, len(absent))
	for i, a := range absent {
		names[i] = a.variable
	}
	return asNone(lookup, names), absent
}

// asNone is lookup with the variables named given as none.
func asNone(lookup func(string) (string, bool), variables []string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		if slices.Contains(variables, name) {
			return none, true
		}
		return lookup(name)
	}
}

// unset is a lookup that finds no variable, for the defaults.
func unset(string) (string, bool) { return "", false }

// answers reports whether something accepts a TCP connection at addr within a moment.
func answers(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 300*time.Millisecond)
	if err != nil {
		return false
	}
	_ = c.Close()
	return true
}
