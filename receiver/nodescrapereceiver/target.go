// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package nodescrapereceiver // import "github.com/modelplaneai/otelcol-modelplane/receiver/nodescrapereceiver"

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/scrape"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/receiver/receiverhelper"
	"go.uber.org/zap"

	"github.com/modelplaneai/otelcol-modelplane/internal/deliverywatch"
)

// target scrapes one target at its interval and sends each scrape on as it ends.
type target struct {
	url       string
	accept    string
	encoding  string
	timeout   time.Duration
	interval  time.Duration
	bodyLimit int64
	client    *http.Client
	page      *page
	resource  pcommon.Resource
	version   string
	labels    labels.Labels // public labels: the report series' and the failure log's
	report    []*cached
	next      consumer.Metrics
	obs       *receiverhelper.ObsReport
	logger    *zap.Logger
	buffers   *sync.Pool // of *bytes.Buffer: the receiver's, as few pages are read at once
}

func newTarget(j *job, t *scrape.Target, next consumer.Metrics, obs *receiverhelper.ObsReport, buffers *sync.Pool, logger *zap.Logger, version string) *target {
	lb := labels.NewBuilder(labels.EmptyLabels())
	public := t.Labels(lb)
	tg := &target{
		url: t.URL().String(), accept: j.accept, encoding: j.encoding, client: j.client,
		interval: time.Duration(j.cfg.ScrapeInterval), timeout: time.Duration(j.cfg.ScrapeTimeout),
		bodyLimit: int64(j.cfg.BodySizeLimit), next: next, obs: obs, buffers: buffers, logger: logger, version: version, labels: public,
		page:     newPage(j.byName, j.rest, public, j.cfg.HonorLabels, j.cfg.HonorTimestamps, int(j.cfg.SampleLimit)),
		resource: newResource(public.Get(model.JobLabel), public.Get(model.InstanceLabel), t.DiscoveredLabels(lb)),
	}
	if iv, err := model.ParseDuration(t.GetValue(model.ScrapeIntervalLabel)); err == nil && iv > 0 {
		tg.interval = time.Duration(iv)
	}
	if to, err := model.ParseDuration(t.GetValue(model.ScrapeTimeoutLabel)); err == nil && to > 0 {
		tg.timeout = time.Duration(to)
	}
	return tg
}

// reportPoints are the points of the report series, made again once a target's failures
// or losses have made them stale.
func (t *target) reportPoints() []*cached {
	if len(t.report) > 0 && !t.report[0].point.gone {
		return t.report
	}
	// The series Prometheus adds for every scrape of a target, in scrape's order of values.
	report := [...]struct{ name, help, unit string }{
		{"up", "The scraping was successful", ""},
		{"scrape_duration_seconds", "Duration of the scrape", "seconds"},
		{"scrape_samples_scraped", "The number of samples the target exposed", ""},
		{"scrape_samples_post_metric_relabeling", "The number of samples remaining after metric relabeling was applied", ""},
		{"scrape_series_added", "The approximate number of new series in this scrape", ""},
	}
	t.report = t.report[:0]
	lb := labels.NewBuilder(t.labels)
	for _, r := range report {
		lb.Set(model.MetricNameLabel, r.name)
		sn := &seriesName{keep: true, family: r.name, meta: meta{typ: model.MetricTypeGauge, help: r.help, unit: r.unit}}
		t.report = append(t.report, &cached{point: t.page.pointOf(sn, lb.Labels())})
	}
	return t.report
}

// run scrapes at the target's offset in the interval until ctx ends. A target that
// discovery lost (ctx ended, the receiver's parent still running) sends the staleness
// markers of every series it had two intervals later, unless it was found again by then
// (superseded), as Prometheus does; a stopping collector sends none.
func (t *target) run(parent, ctx context.Context, offset time.Duration, superseded *atomic.Bool) {
	timer := time.NewTimer(offset)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-ctx.Done():
		return
	}
	ticker := time.NewTicker(t.interval)
	defer ticker.Stop()
	for {
		t.scrape(ctx)
		select {
		case <-ticker.C:
		case <-ctx.Done():
			timer.Reset(2*t.interval + t.interval/10)
			select {
			case <-parent.Done():
			case <-timer.C:
				if !superseded.Load() {
					t.stop(parent)
				}
			}
			return
		}
	}
}

func (t *target) scrape(ctx context.Context) {
	start := time.Now()
	nowMs := start.UnixMilli()
	buf := t.buffers.Get().(*bytes.Buffer)
	contentType, err := t.fetch(ctx, buf)
	if ctx.Err() != nil { // stopped mid-scrape: no failure, as Prometheus reports none
		t.buffers.Put(buf)
		return
	}
	if err == nil {
		err = t.page.read(buf.Bytes(), contentType, nowMs)
	} else {
		_ = t.page.read(nil, "", nowMs)
	}
	t.buffers.Put(buf)
	up := 1.0
	if err != nil {
		up = 0
		t.logger.Warn(deliverywatch.FailedScrape, zap.Error(err), zap.Int64("scrape_timestamp", nowMs), zap.Stringer("target_labels", t.labels))
	}
	pg := t.page
	values := [...]float64{up, time.Since(start).Seconds(), float64(pg.scraped), float64(pg.kept), float64(pg.added)}
	for i, c := range t.reportPoints() {
		pg.add(c, nowMs, values[i])
	}
	t.send(ctx)
}

// stop sends a last scrape that holds nothing: every series goes stale.
func (t *target) stop(ctx context.Context) {
	_ = t.page.read(nil, "", time.Now().UnixMilli())
	t.send(ctx)
}

func (t *target) send(ctx context.Context) {
	md := pmetric.NewMetrics()
	rm := md.ResourceMetrics().AppendEmpty()
	t.resource.CopyTo(rm.Resource())
	scopes := map[familyKey]pmetric.ScopeMetrics{}
	t.page.emit(rm, func(k familyKey) pmetric.ScopeMetrics {
		k.name, k.typ = "", ""
		sm, ok := scopes[k]
		if !ok {
			sm = rm.ScopeMetrics().AppendEmpty()
			if k.scopeName == "" && k.scopeVersion == "" {
				sm.Scope().SetName(scopeName)
				sm.Scope().SetVersion(t.version)
			} else {
				sm.Scope().SetName(k.scopeName)
				sm.Scope().SetVersion(k.scopeVersion)
			}
			scopes[k] = sm
		}
		return sm
	})
	n := md.DataPointCount()
	if n == 0 {
		return
	}
	ctx = t.obs.StartMetricsOp(ctx)
	err := t.next.ConsumeMetrics(ctx, md)
	t.obs.EndMetricsOp(ctx, "prometheus", n, err)
}

var errBodySize = errors.New("body size limit exceeded")

// fetch reads the target's page into buf and returns its content type.
func (t *target) fetch(ctx context.Context, buf *bytes.Buffer) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.url, http.NoBody)
	if err != nil {
		return "", err
	}
	req.Header.Set("Accept", t.accept)
	if t.encoding != "" {
		req.Header.Set("Accept-Encoding", t.encoding)
	}
	req.Header.Set("User-Agent", scrape.UserAgent)
	req.Header.Set("X-Prometheus-Scrape-Timeout-Seconds", strconv.FormatFloat(t.timeout.Seconds(), 'f', -1, 64))
	resp, err := t.client.Do(req)
	if err != nil {
		return "", err
	}
	defer func() {
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("server returned HTTP status %s", resp.Status)
	}
	buf.Reset()
	r := io.Reader(resp.Body)
	if t.bodyLimit > 0 {
		r = io.LimitReader(r, t.bodyLimit+1)
	}
	if _, err := buf.ReadFrom(r); err != nil {
		return "", err
	}
	if t.bodyLimit > 0 && int64(buf.Len()) > t.bodyLimit {
		return "", fmt.Errorf("%w: %d", errBodySize, t.bodyLimit)
	}
	return resp.Header.Get("Content-Type"), nil
}

// newResource is the resource the Prometheus receiver gives a target's metrics: the job
// and instance as service name and instance ID, the instance's host and port, the scheme,
// and the pod, namespace, node and controller Kubernetes discovery found it on.
func newResource(job, instance string, discovered labels.Labels) pcommon.Resource {
	res := pcommon.NewResource()
	attrs := res.Attributes()
	attrs.PutStr("service.name", job)
	attrs.PutStr("service.instance.id", instance)
	host, port, err := net.SplitHostPort(instance)
	if err != nil {
		host = instance
	}
	if discernible(host) {
		attrs.PutStr("server.address", host)
	}
	attrs.PutStr("server.port", port)
	attrs.PutStr("url.scheme", discovered.Get(model.SchemeLabel))
	for sd, key := range map[string]string{
		"__meta_kubernetes_pod_name": "k8s.pod.name", "__meta_kubernetes_pod_uid": "k8s.pod.uid",
		"__meta_kubernetes_pod_container_name": "k8s.container.name", "__meta_kubernetes_namespace": "k8s.namespace.name",
		"__meta_kubernetes_pod_node_name": "k8s.node.name", "__meta_kubernetes_node_name": "k8s.node.name",
		"__meta_kubernetes_endpoint_node_name": "k8s.node.name",
	} {
		if v := discovered.Get(sd); v != "" {
			attrs.PutStr(key, v)
		}
	}
	name, kind := discovered.Get("__meta_kubernetes_pod_controller_name"), discovered.Get("__meta_kubernetes_pod_controller_kind")
	if key, ok := map[string]string{"ReplicaSet": "k8s.replicaset.name", "DaemonSet": "k8s.daemonset.name",
		"StatefulSet": "k8s.statefulset.name", "Job": "k8s.job.name", "CronJob": "k8s.cronjob.name"}[kind]; ok && name != "" {
		attrs.PutStr(key, name)
	}
	return res
}

// discernible: a host that says where the target is (not loopback, unspecified or localhost).
func discernible(host string) bool {
	if ip := net.ParseIP(host); ip != nil {
		return !ip.IsLoopback() && !ip.IsUnspecified()
	}
	return host != "localhost"
}

func acceptHeader(protocols []string) string {
	var vals []string
	w := len(protocols) + 1
	for _, v := range protocols {
		vals = append(vals, fmt.Sprintf("%s;q=0.%d", v, w))
		w--
	}
	return strings.Join(append(vals, fmt.Sprintf("*/*;q=0.%d", w)), ",")
}
