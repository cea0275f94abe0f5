// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package defaultconfig

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

// finding is what a probe found at a default address: the probed target whose page is served
// there, or why none is.
type finding struct {
	serves *probedTarget // nil: no page of ours
	why    string        // where serves is nil
	// notFound: something serves HTTP there, but no /metrics (an SGLang started without
	// --enable-metrics).
	notFound bool
}

// probeTimeout is how long a probe waits for a page. A loaded engine answers /metrics in
// milliseconds; vLLM binds its port before it loads its model, and answers nothing until it
// has, which can take minutes.
var probeTimeout = 3 * time.Second

var probeClient = &http.Client{
	Transport: &http.Transport{
		Proxy:             nil, // default addresses are this host's
		DialContext:       (&net.Dialer{Timeout: 300 * time.Millisecond}).DialContext,
		DisableKeepAlives: true,
	},
}

// probeReadLimit bounds what a probe reads of a page that has none of the names it looks for:
// the default's body_size_limit, which a scrape would not read past either.
const probeReadLimit = 16 << 20

// identify reads the /metrics page at addr and tells whose it is by its names (vllm:,
// sglang:, DCGM_FI_): a port that merely accepts connections (vLLM loading its model), or
// serves another program's page, is not the engine its port is the default of.
func identify(addr string) finding {
	// The deadline covers reading the page too.
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", nil)
	if err != nil {
		return finding{why: err.Error()}
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := probeClient.Do(req)
	if err != nil {
		switch {
		case errors.Is(err, syscall.ECONNREFUSED):
			return finding{why: "nothing listens there"}
		case errors.Is(err, context.DeadlineExceeded) || os.IsTimeout(err):
			return finding{why: "it accepts connections but did not answer GET /metrics within " + probeTimeout.String() +
				" (an engine loading its model listens before it answers)"}
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
			// net/http's error for a connection closed before the request went out, which it
			// does not export.
			strings.Contains(err.Error(), "server closed idle connection"):
			return finding{why: "it accepts connections but closes them without an answer (as Docker's proxy does for a published port whose container does not listen yet)"}
		}
		if u, ok := errors.AsType[*url.Error](err); ok {
			err = u.Err // the URL is the one every finding is about
		}
		return finding{why: "GET /metrics: " + err.Error()}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return finding{why: "GET /metrics answered " + resp.Status, notFound: resp.StatusCode == http.StatusNotFound}
	}
	page, _ := io.ReadAll(io.LimitReader(resp.Body, probeReadLimit)) // what arrived is read
	p, err := textparse.New(page, "text/plain; version=0.0.4", labels.NewSymbolTable(), textparse.ParserOptions{})
	if err != nil {
		return finding{why: "GET /metrics: " + err.Error()}
	}
	var lset labels.Labels
	for {
		entry, err := p.Next()
		if err != nil {
			break // the end, or a line past which nothing is read
		}
		var name []byte
		switch entry {
		case textparse.EntryHelp:
			name, _ = p.Help()
		case textparse.EntryType:
			name, _ = p.Type()
		case textparse.EntrySeries:
			p.Labels(&lset)
			name = []byte(lset.Get(model.MetricNameLabel))
		}
		for i := range probedTargets {
			if bytes.HasPrefix(name, []byte(probedTargets[i].marker)) {
				return finding{serves: &probedTargets[i]}
			}
		}
	}
	// "yet": an engine that sets its gauges only when it logs its stats may serve a page
	// without them at first; the watch looks again every interval.
	return finding{why: "its /metrics has no series of vLLM (vllm:), SGLang (sglang:) or a dcgm-exporter (DCGM_FI_) yet"}
}
