// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package demofleet

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Engine serves one page on one address; each scrape of /metrics advances it one round.
type Engine struct {
	Name string
	Addr string
	page Page

	// Keep, when set before Start, lets a scrape ask with ?only=kept for the lines of the
	// metrics Keep accepts, and their HELP and TYPE lines: the page a collector would parse if
	// the rest were never sent or skipped before parsing (bench/e2e -ours-kept-pages).
	Keep func(metric string) bool

	// OpenMetrics, when set before Start, answers a scrape that accepts OpenMetrics in it, as
	// vLLM and SGLang (Python's prometheus_client) do; the text format otherwise.
	OpenMetrics bool

	// Path, when set before Start, is where the page is served; by default /metrics (NVIDIA
	// NIM serves /v1/metrics).
	Path string

	mu    sync.Mutex
	round int
	srv   *http.Server
	ln    net.Listener
}

// NewEngine reads an exposition file for an engine that will listen on addr.
func NewEngine(name, addr, file string) (*Engine, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("demo engine %s: %w", name, err)
	}
	page, err := Parse(data)
	if err != nil {
		// A page Prometheus' parser refuses is served as it is, as a broken target serves it
		// (TestEverySharedPageReads keeps the shared pages readable).
		page = verbatim(data)
	}
	return &Engine{Name: name, Addr: addr, page: page}, nil
}

// Start listens and serves until Stop.
func (e *Engine) Start() error {
	ln, err := net.Listen("tcp", e.Addr)
	if err != nil {
		return fmt.Errorf("demo engine %s: %w", e.Name, err)
	}
	e.ln = ln
	e.Addr = ln.Addr().String()
	mux := http.NewServeMux()
	path := e.Path
	if path == "" {
		path = "/metrics"
	}
	mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		body := e.page.Render(e.round)
		e.round++
		e.mu.Unlock()
		if e.Keep != nil && r.URL.Query().Get("only") == "kept" {
			kept, err := keepLines(body, e.Keep)
			if err != nil {
				http.Error(w, fmt.Sprintf("demo engine %s: %v", e.Name, err), http.StatusInternalServerError)
				return
			}
			body = kept
		}
		contentType := "text/plain; version=0.0.4; charset=utf-8"
		if e.OpenMetrics && AcceptsOpenMetrics(r.Header.Get("Accept")) {
			om, err := OpenMetrics(body)
			if err != nil {
				http.Error(w, fmt.Sprintf("demo engine %s: %v", e.Name, err), http.StatusInternalServerError)
				return
			}
			body, contentType = om, ContentTypeOpenMetrics
		}
		w.Header().Set("Content-Type", contentType)
		_, _ = w.Write(body)
	})
	e.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = e.srv.Serve(ln) }()
	return nil
}

// keepLines returns the lines of page whose metric name keep accepts.
func keepLines(page []byte, keep func(string) bool) ([]byte, error) {
	lines, err := readLines(page)
	if err != nil {
		return nil, err
	}
	var out []byte
	for _, l := range lines {
		if l.name != "" && keep(l.name) {
			out = append(append(out, l.text...), '\n')
		}
	}
	return out, nil
}

// Rounds is how many scrapes the engine has served.
func (e *Engine) Rounds() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.round
}

// Page is the parsed exposition the engine serves.
func (e *Engine) Page() Page { return e.page }

// Stop closes the listener and waits for requests in flight.
func (e *Engine) Stop() error {
	if e.srv == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := e.srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// SpeaksOpenMetrics says whether the engine of a job serves /metrics through Python's
// prometheus_client, which answers in OpenMetrics when the scraper asks: vLLM and SGLang. The
// others (dcgm-exporter, the gateway, the endpoint picker) always answer in the text format.
func SpeaksOpenMetrics(job string) bool { return job == "vllm" || job == "sglang" || job == "nim" }

// DefaultFleet is the engines of `make run`, at the addresses of the embedded default.
func DefaultFleet(expositionDir string) ([]*Engine, error) {
	specs := []struct{ name, addr, file string }{
		{"vllm", "127.0.0.1:8000", "vllm.prom"},
		{"sglang", "127.0.0.1:30000", "sglang.prom"},
		{"dcgm-exporter", "127.0.0.1:9400", "dcgm-exporter.prom"},
	}
	var out []*Engine
	for _, s := range specs {
		e, err := NewEngine(s.name, s.addr, filepath.Join(expositionDir, s.file))
		if err != nil {
			return nil, err
		}
		e.OpenMetrics = SpeaksOpenMetrics(s.name)
		out = append(out, e)
	}
	return out, nil
}
