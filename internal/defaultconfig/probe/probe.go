// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package probe reads the /metrics page at an address and tells which of the metric name
// prefixes it is given the page serves, or why it serves none: how the embedded default
// finds the targets a host runs, when it loads and while it watches for one starting later.
package probe // import "github.com/modelplaneai/otelcol-modelplane/internal/defaultconfig/probe"

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/textparse"
)

// DefaultTimeout is how long a probe waits for a page. A loaded engine answers /metrics in
// milliseconds; vLLM binds its port before it loads its model, and answers nothing until it
// has, which can take minutes.
const DefaultTimeout = 3 * time.Second

// readLimit bounds what a probe reads of a page that has none of the names it looks for: the
// default's body_size_limit, which a scrape would not read past either.
const readLimit = 16 << 20

// Result is what a probe found at an address.
type Result struct {
	// Prefix is the index of the first prefix a name on the page begins with; -1 for none.
	Prefix int
	// Why says why no page is read there ("nothing listens there"); empty where a page was.
	Why string
	// NotFound: something serves HTTP there, but no /metrics (an SGLang started without
	// --enable-metrics).
	NotFound bool
}

// Prober probes addresses on this host.
type Prober struct {
	timeout time.Duration
	client  *http.Client
}

// New returns a prober that waits timeout for a page (DefaultTimeout where zero).
func New(timeout time.Duration) Prober {
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	return Prober{timeout: timeout, client: &http.Client{Transport: &http.Transport{
		Proxy:             nil, // the addresses probed are this host's
		DialContext:       (&net.Dialer{Timeout: 300 * time.Millisecond}).DialContext,
		DisableKeepAlives: true,
	}}}
}

// Page reads the /metrics page at addr and reports the first of prefixes a metric name on it
// begins with: a port that merely accepts connections (vLLM loading its model), or serves
// another program's page, serves none of them.
func (p Prober) Page(addr string, prefixes []string) Result {
	// The deadline covers reading the page too.
	ctx, cancel := context.WithTimeout(context.Background(), p.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", nil)
	if err != nil {
		return Result{Prefix: -1, Why: err.Error()}
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := p.client.Do(req)
	if err != nil {
		return Result{Prefix: -1, Why: failure(err, p.timeout)}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Result{Prefix: -1, Why: "GET /metrics answered " + resp.Status, NotFound: resp.StatusCode == http.StatusNotFound}
	}
	page, _ := io.ReadAll(io.LimitReader(resp.Body, readLimit)) // what arrived is read
	parser, err := textparse.New(page, "text/plain; version=0.0.4", labels.NewSymbolTable(), textparse.ParserOptions{})
	if err != nil {
		return Result{Prefix: -1, Why: "GET /metrics: " + err.Error()}
	}
	var lset labels.Labels
	for {
		entry, err := parser.Next()
		if err != nil {
			return Result{Prefix: -1} // the end, or a line past which nothing is read
		}
		var name []byte
		switch entry {
		case textparse.EntryHelp:
			name, _ = parser.Help()
		case textparse.EntryType:
			name, _ = parser.Type()
		case textparse.EntrySeries:
			parser.Labels(&lset)
			name = []byte(lset.Get(model.MetricNameLabel))
		}
		for i, prefix := range prefixes {
			if bytes.HasPrefix(name, []byte(prefix)) {
				return Result{Prefix: i}
			}
		}
	}
}

// failure says why a GET of the page got no answer.
func failure(err error, timeout time.Duration) string {
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "nothing listens there"
	case errors.Is(err, context.DeadlineExceeded) || os.IsTimeout(err):
		return "it accepts connections but did not answer GET /metrics within " + timeout.String() +
			" (an engine loading its model listens before it answers)"
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		// net/http's error for a connection closed before the request went out, which it
		// does not export.
		strings.Contains(err.Error(), "server closed idle connection"):
		return "it accepts connections but closes them without an answer (as Docker's proxy does for a published port whose container does not listen yet)"
	}
	if u, ok := errors.AsType[*url.Error](err); ok {
		err = u.Err // the URL is the one every finding is about
	}
	return "GET /metrics: " + err.Error()
}
