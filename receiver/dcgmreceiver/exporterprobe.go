// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package dcgmreceiver

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// exporterProbe asks whether a dcgm-exporter answers at an address, so that the receiver can
// leave the host's GPUs to it: a host that runs both would report every GPU twice.
type exporterProbe struct {
	url    string
	client *http.Client
}

// probeHead is how much of the page the probe reads: dcgm-exporter's page begins with a
// DCGM field's HELP line, so the first bytes say whether it is one.
const probeHead = 64 << 10

func newExporterProbe(addr string, interval time.Duration) *exporterProbe {
	// An exporter on the same host answers in milliseconds; the probe must never hold up a
	// collection for long, nor overlap the next one.
	timeout := min(2*time.Second, interval/2)
	return &exporterProbe{
		url: "http://" + addr + "/metrics",
		// One connection per probe, closed after it, and no proxy from the environment: the
		// exporter is on this host, and nothing is left open between collections or after
		// the receiver stops.
		client: &http.Client{Timeout: timeout, Transport: &http.Transport{DisableKeepAlives: true}},
	}
}

// answers reports whether a dcgm-exporter serves GPU metrics at the address now, and if
// not, why not.
func (p *exporterProbe) answers(ctx context.Context) (bool, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.url, nil)
	if err != nil {
		return false, err.Error()
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return false, err.Error()
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Sprintf("GET %s: %s", p.url, resp.Status)
	}
	head, err := io.ReadAll(io.LimitReader(resp.Body, probeHead))
	if err != nil {
		return false, fmt.Sprintf("GET %s: %v", p.url, err)
	}
	if !bytes.Contains(head, []byte("DCGM_FI_")) {
		return false, fmt.Sprintf("GET %s: the page holds no DCGM field, so it is not a dcgm-exporter", p.url)
	}
	return true, ""
}
