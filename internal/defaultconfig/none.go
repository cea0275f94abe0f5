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

// withoutAbsentExporter gives the dcgm-exporter variable as none where it is unset and no
// dcgm-exporter answers at its default address when the configuration is loaded. Most hosts
// that run this binary have none: the GPU receiver reads their GPUs, and a job scraping the
// default address would log a failed scrape every interval, and count one, for as long as the
// collector runs (in a container, whose loopback is its own, always). An exporter that
// starts later has the collector reload (watchForExporter), and is scraped from then on;
// until then the receiver reads the GPUs, so each is reported once either way. A variable that is set,
// to an address or to none, is used as it is.
func withoutAbsentExporter(lookup func(string) (string, bool), answers func(addr string) bool) (func(string) (string, bool), bool) {
	if _, set := lookup(dcgmExporterVariable); set || answers(valueOf(dcgmExporterVariable, unset)) {
		return lookup, false
	}
	return func(name string) (string, bool) {
		if name == dcgmExporterVariable {
			return none, true
		}
		return lookup(name)
	}, true
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
