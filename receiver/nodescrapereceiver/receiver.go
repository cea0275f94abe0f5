// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package nodescrapereceiver // import "github.com/modelplaneai/otelcol-modelplane/receiver/nodescrapereceiver"

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	promconfigutil "github.com/prometheus/common/config"
	"github.com/prometheus/common/model"
	promconfig "github.com/prometheus/prometheus/config"
	"github.com/prometheus/prometheus/discovery"
	"github.com/prometheus/prometheus/discovery/targetgroup"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/relabel"
	"github.com/prometheus/prometheus/scrape"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/receiverhelper"
	"go.uber.org/zap"
	"go.uber.org/zap/exp/zapslog"

	"github.com/modelplaneai/otelcol-modelplane/internal/deliverywatch"
)

const scopeName = "github.com/modelplaneai/otelcol-modelplane/receiver/nodescrapereceiver"

// job is one scrape config: its HTTP client and compiled rules, and its running targets.
type job struct {
	cfg          *promconfig.ScrapeConfig
	client       *http.Client
	accept       string
	encoding     string
	byName, rest []*relabel.Config
	running      map[uint64]*running
}

type running struct {
	stop       context.CancelFunc
	superseded *atomic.Bool
}

type nodeScrape struct {
	cfg    *Config
	set    receiver.Settings
	next   consumer.Metrics
	obs    *receiverhelper.ObsReport
	logs   *deliverywatch.Condenser
	pages  sync.Pool // of *bytes.Buffer, shared by the targets
	jobs   map[string]*job
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func newReceiver(cfg *Config, set receiver.Settings, next consumer.Metrics, logs *deliverywatch.Condenser) (*nodeScrape, error) {
	obs, err := receiverhelper.NewObsReport(receiverhelper.ObsReportSettings{ReceiverID: set.ID, Transport: "http", ReceiverCreateSettings: set})
	if err != nil {
		return nil, err
	}
	r := &nodeScrape{cfg: cfg, set: set, next: next, obs: obs, logs: logs, jobs: map[string]*job{}}
	r.pages.New = func() any { return new(bytes.Buffer) }
	return r, nil
}

func (r *nodeScrape) Start(_ context.Context, _ component.Host) error {
	sdCfgs := map[string]discovery.Configs{}
	for _, sc := range r.cfg.promConfig.ScrapeConfigs {
		client, err := promconfigutil.NewClientFromConfig(sc.HTTPClientConfig, sc.JobName)
		if err != nil {
			return fmt.Errorf("config::scrape_configs::%s: %w", sc.JobName, err)
		}
		j := &job{cfg: sc, client: client, running: map[uint64]*running{}}
		j.byName, j.rest = splitRules(sc.MetricRelabelConfigs)
		j.accept = acceptHeader(protocolHeaders(sc))
		if !sc.EnableCompression {
			j.encoding = "identity"
		}
		r.jobs[sc.JobName] = j
		sdCfgs[sc.JobName] = sc.ServiceDiscoveryConfigs
		r.set.Logger.Info("Starting scrape job", zap.String("jobName", sc.JobName),
			zap.Duration("interval", time.Duration(sc.ScrapeInterval)), zap.Int("name_rules", len(j.byName)))
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	reg := prometheus.NewRegistry()
	sdMetrics, err := discovery.CreateAndRegisterSDMetrics(reg)
	if err != nil {
		return err
	}
	slogger := slog.New(zapslog.NewHandler(r.set.Logger.Core()))
	mgr := discovery.NewManager(ctx, slogger, reg, sdMetrics, discovery.Name("node_scrape"))
	if mgr == nil {
		return fmt.Errorf("starting service discovery")
	}
	if err := mgr.ApplyConfig(sdCfgs); err != nil {
		return err
	}
	r.wg.Add(2)
	go func() {
		defer r.wg.Done()
		_ = mgr.Run()
	}()
	go func() {
		defer r.wg.Done()
		r.follow(ctx, mgr.SyncCh())
	}()
	return nil
}

// follow starts and stops targets as discovery finds and loses them.
func (r *nodeScrape) follow(ctx context.Context, sync <-chan map[string][]*targetgroup.Group) {
	lb := labels.NewBuilder(labels.EmptyLabels())
	leaving := map[uint64]*leavingTarget{} // targets lost, whose staleness markers may wait
	for {
		select {
		case <-ctx.Done():
			return
		case sets := <-sync:
			for name, groups := range sets {
				j := r.jobs[name]
				if j == nil {
					continue
				}
				r.apply(ctx, j, groups, lb, leaving)
			}
		}
	}
}

// leavingTarget is a target discovery lost, while it may still come back before its
// staleness markers are sent.
type leavingTarget struct {
	superseded *atomic.Bool
	until      time.Time
}

func (r *nodeScrape) apply(ctx context.Context, j *job, groups []*targetgroup.Group, lb *labels.Builder, leaving map[uint64]*leavingTarget) {
	now := time.Now()
	for key, l := range leaving {
		if now.After(l.until) {
			delete(leaving, key)
		}
	}
	found := map[uint64]*scrape.Target{}
	for _, g := range groups {
		targets, errs := scrape.TargetsFromGroup(g, j.cfg, nil, lb)
		for _, err := range errs {
			r.set.Logger.Warn("Creating a target failed", zap.String("job", j.cfg.JobName), zap.Error(err))
		}
		for _, t := range targets {
			if t.Labels(lb).IsEmpty() {
				continue
			}
			found[targetKey(t, lb)] = t
		}
	}
	for key, run := range j.running {
		if _, ok := found[key]; !ok {
			run.stop()
			delete(j.running, key)
			leaving[key] = &leavingTarget{run.superseded, now.Add(3 * time.Duration(j.cfg.ScrapeInterval))}
		}
	}
	for key, t := range found {
		if _, ok := j.running[key]; ok {
			continue
		}
		if l := leaving[key]; l != nil {
			l.superseded.Store(true)
			delete(leaving, key)
		}
		tctx, stop := context.WithCancel(ctx)
		run := &running{stop: stop, superseded: new(atomic.Bool)}
		j.running[key] = run
		tg := newTarget(j, t, r.next, r.obs, &r.pages, r.set.Logger, r.set.BuildInfo.Version)
		offset := offsetIn(tg.interval, key)
		r.wg.Go(func() { tg.run(ctx, tctx, offset, run.superseded) })
	}
}

func targetKey(t *scrape.Target, lb *labels.Builder) uint64 {
	return t.Labels(lb).Hash() ^ hashString(t.URL().String())
}

// offsetIn spreads targets over the interval, each at the same place in every interval,
// as Prometheus does.
func offsetIn(interval time.Duration, key uint64) time.Duration {
	now := time.Now().UnixNano()
	next := int64(interval) - now%int64(interval) + int64(key%uint64(interval))
	if next > int64(interval) {
		next -= int64(interval)
	}
	return time.Duration(next)
}

// Shutdown stops every target, each sending its staleness markers, and logs the failed
// scrapes held, so that a stopped collector's log adds up.
func (r *nodeScrape) Shutdown(context.Context) error {
	defer r.logs.Flush()
	if r.cancel != nil {
		r.cancel()
	}
	r.wg.Wait()
	for _, j := range r.jobs {
		j.client.CloseIdleConnections()
	}
	return nil
}

// protocolHeaders are the Accept header's media types, in the job's order of preference.
func protocolHeaders(sc *promconfig.ScrapeConfig) []string {
	scheme, err := model.ToEscapingScheme(sc.MetricNameEscapingScheme)
	if err != nil {
		scheme = model.UnderscoreEscaping
	}
	var out []string
	for _, p := range sc.ScrapeProtocols {
		v := promconfig.ScrapeProtocolsHeaders[p]
		if p == promconfig.PrometheusText1_0_0 || p == promconfig.OpenMetricsText1_0_0 {
			v += ";" + model.EscapingKey + "=" + scheme.String()
		}
		out = append(out, v)
	}
	return out
}
