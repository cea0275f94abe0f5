// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package modelplanemapping

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.uber.org/zap"

	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/internal/identity"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/internal/metadata"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/internal/rules"
	"github.com/modelplaneai/otelcol-modelplane/processor/modelplanemapping/metricmapping"
)

type mappingProcessor struct {
	id        component.ID
	cfg       *Config
	logger    *zap.Logger
	telemetry *metadata.TelemetryBuilder

	builtins []metricmapping.MetricMapping
	inline   []metricmapping.MetricMapping
	identity *identity.Keeper
	keep     *sourceKeeper
	opts     rules.Options

	// active is swapped whole on reload; a batch reads it once, so it is never half-applied.
	active atomic.Pointer[rules.Set]
	// ending ends the series a reload stops producing.
	ending reloadEnd

	// cluster follows the cluster's MetricMapping objects (cluster_mappings on).
	cluster *clusterWatch

	mu    sync.Mutex // guards files and the fields below during reloads
	files *fileSet
	// objects is the last reading of the cluster's objects, at clusterChanges events.
	objects        *clusterSet
	clusterChanges uint64
	// overlaps are the entries the loaded mappings override (rules.Overlaps) or whose names
	// mislead (rules.NameNotes), each warned about once while it lasts, not at every reload.
	overlaps map[string]bool

	stop chan struct{}
	done sync.WaitGroup

	// Measurement options, built once: every measurement carries the processor's ID, as the
	// collector's own processors' do, so two modelplane_mapping processors report apart.
	idOpts       []metric.AddOption
	idObserve    []metric.ObserveOption
	refusalAttrs [rules.NumRefusals][]metric.AddOption
	reloadAttrs  map[string][]metric.AddOption
}

// processorAttrs is the attribute set of one measurement: the processor's ID and kv.
func processorAttrs(id component.ID, kv ...attribute.KeyValue) metric.MeasurementOption {
	return metric.WithAttributeSet(attribute.NewSet(append([]attribute.KeyValue{attribute.String("processor", id.String())}, kv...)...))
}

func newProcessor(set processor.Settings, cfg *Config) (*mappingProcessor, error) {
	tb, err := metadata.NewTelemetryBuilder(set.TelemetrySettings)
	if err != nil {
		return nil, err
	}
	p := &mappingProcessor{
		id:        set.ID,
		cfg:       cfg,
		logger:    set.Logger,
		telemetry: tb,
		opts:      rules.Options{DropUnmapped: cfg.DropUnmapped, OTLPNames: cfg.OTLPNames},
		ending:    reloadEnd{window: reloadEndWindow},
		stop:      make(chan struct{}),
		idOpts:    []metric.AddOption{processorAttrs(set.ID)},
		idObserve: []metric.ObserveOption{processorAttrs(set.ID)},
		reloadAttrs: map[string][]metric.AddOption{
			"ok":      {processorAttrs(set.ID, attribute.String("result", "ok"))},
			"partial": {processorAttrs(set.ID, attribute.String("result", "partial"))},
		},
	}
	for r := range rules.NumRefusals {
		p.refusalAttrs[r] = []metric.AddOption{processorAttrs(set.ID, attribute.String("reason", r.String()))}
	}
	if cfg.Identity.Enabled {
		p.identity = identity.New(cfg.Identity.Keys)
	}
	p.keep = newSourceKeeper(cfg.KeepSources)
	for _, w := range cfg.identityKeyWarnings() {
		p.logger.Warn(w)
	}
	if p.builtins, p.inline, err = cfg.builtinAndInline(); err != nil {
		return nil, err
	}
	// Built-ins and inline mappings are usable before Start; files join on Start.
	p.active.Store(rules.Compile(p.all(nil, nil)))
	return p, nil
}

// all is the run order: built-ins, then files in the order configured, then the cluster's
// objects by name, then inline mappings.
func (p *mappingProcessor) all(files *fileSet, objects *clusterSet) []metricmapping.MetricMapping {
	return runOrder(p.builtins, files, objects, p.inline)
}

// runOrder is the order mappings run in: built-ins, files, the cluster's objects, inline.
func runOrder(builtins []metricmapping.MetricMapping, files *fileSet, objects *clusterSet, inline []metricmapping.MetricMapping) []metricmapping.MetricMapping {
	out := append([]metricmapping.MetricMapping(nil), builtins...)
	if files != nil {
		out = append(out, files.mappings()...)
	}
	out = append(out, objects.mappings()...)
	return append(out, inline...)
}

func (p *mappingProcessor) start(_ context.Context, _ component.Host) error {
	if p.cfg.ClusterMappings.Enabled {
		w, err := newClusterWatch(p.cfg.ClusterMappings, p.logger)
		if err != nil {
			return err
		}
		p.cluster = w
		w.start(p.cfg.ClusterMappings.SyncTimeout)
	}
	if err := p.telemetry.RegisterProcessorModelplaneMappingMappingsActiveCallback(func(_ context.Context, o metric.Int64Observer) error {
		o.Observe(int64(p.active.Load().Mappings()), p.idObserve...)
		return nil
	}); err != nil {
		return err
	}
	if err := p.telemetry.RegisterProcessorModelplaneMappingClusterSyncedCallback(func(_ context.Context, o metric.Int64Observer) error {
		if p.cluster != nil {
			synced := int64(0)
			if p.cluster.informer.HasSynced() {
				synced = 1
			}
			o.Observe(synced, p.idObserve...)
		}
		return nil
	}); err != nil {
		return err
	}
	p.reload(true)
	if len(p.cfg.MappingFiles) > 0 || p.cluster != nil {
		p.done.Add(1)
		go p.watch()
	}
	return nil
}

func (p *mappingProcessor) shutdown(context.Context) error {
	select {
	case <-p.stop:
	default:
		close(p.stop)
	}
	p.done.Wait()
	if p.cluster != nil {
		p.cluster.shutdown()
	}
	p.telemetry.Shutdown()
	return nil
}

// watch polls the mapping files and the informer's count of changes to the cluster's
// objects. Polling reads through symlinks, so it sees the atomic symlink swap Kubernetes does
// to update a ConfigMap volume as well as in-place writes.
func (p *mappingProcessor) watch() {
	defer p.done.Done()
	t := time.NewTicker(p.cfg.ReloadInterval)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.reload(false)
		}
	}
}

// reload loads the mapping files and the cluster's objects and swaps in a new compiled set
// if anything changed.
func (p *mappingProcessor) reload(initial bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var prev map[string]*fileState
	if p.files != nil {
		prev = p.files.state
	}
	next, problems := loadFiles(p.cfg.MappingFiles, prev)
	objects, changes := p.objects, p.clusterChanges
	objectsSame := true
	if p.cluster != nil {
		if changes = p.cluster.changes.Load(); initial || changes != p.clusterChanges {
			var objProblems []error
			objects, objProblems = decodeObjects(p.cluster.objects(), p.objects)
			problems = append(problems, objProblems...)
			// A broken update reloads, as a broken file does, so it is said and counted.
			objectsSame = objects.sameMappings(p.objects) && len(objProblems) == 0
		}
	}
	if !initial && next.same(p.files) && objectsSame {
		p.objects, p.clusterChanges = objects, changes
		return
	}
	for _, err := range problems {
		p.logger.Warn("Skipped a mapping", zap.Error(err))
	}
	for _, i := range missingFiles(p.cfg.MappingFiles) {
		p.logger.Warn("A mapping file mapping_files names does not exist; its mappings load once it does",
			zap.String("path", p.cfg.MappingFiles[i]))
	}
	for _, doc := range next.skipped {
		// Not an error: a mounted ConfigMap may hold other objects. Said once per change, so
		// that a file of the wrong kind does not load nothing without a word.
		p.logger.Info("Ignored a document that is not a MetricMapping", zap.String("document", doc))
	}
	if len(p.cfg.MappingFiles) > 0 && len(next.files) == 0 && (initial || len(p.files.files) > 0) {
		p.logger.Info("No mapping file matches mapping_files (yet)", zap.Strings("mapping_files", p.cfg.MappingFiles))
	}
	all := p.all(next, objects)
	set := rules.Compile(all)
	p.warnOverlaps(all)
	p.files, p.objects, p.clusterChanges = next, objects, changes
	if !initial {
		// Before the swap: a batch that still reads the old set then records it as its
		// source's, and the source's next batch is compared with it.
		p.ending.begin(p.active.Load(), time.Now())
	}
	p.active.Store(set)
	result := "ok"
	if len(problems) > 0 {
		result = "partial"
	}
	p.telemetry.ProcessorModelplaneMappingReloads.Add(context.Background(), 1, p.reloadAttrs[result]...)
	p.logger.Info("Mappings loaded",
		zap.Bool("initial", initial),
		zap.String("result", result),
		zap.Int("mappings", set.Mappings()),
		zap.Int("entries", set.Entries()),
		zap.Int("files", len(next.files)),
		zap.Int("cluster_objects", objects.count()))
}

// OverlapMessage is the message of the warning about an entry that an earlier one
// overrides; `preview` prints these as notes instead of failing on them.
const OverlapMessage = "A mapping entry is overridden by an earlier one"

// NameMessage is the message of the warning about an entry whose names do not say what its
// series will be (rules.NameNotes); `preview` prints these as notes too.
const NameMessage = "A mapping entry's names do not say what its series will be"

// warnOverlaps warns about each entry of all that an earlier entry overrides, and each whose
// names do not say what its series will be, once while it lasts.
func (p *mappingProcessor) warnOverlaps(all []metricmapping.MetricMapping) {
	now := map[string]bool{}
	for _, o := range rules.Overlaps(all) {
		now[o] = true
		if !p.overlaps[o] {
			p.logger.Warn(OverlapMessage, zap.String("overlap", o))
		}
	}
	for _, n := range rules.NameNotes(all) {
		now[n] = true
		if !p.overlaps[n] {
			p.logger.Warn(NameMessage, zap.String("note", n))
		}
	}
	p.overlaps = now
}

func (p *mappingProcessor) processMetrics(ctx context.Context, md pmetric.Metrics) (pmetric.Metrics, error) {
	set := p.active.Load()
	var before pmetric.Metrics
	prev := p.ending.previous(md, set, time.Now())
	if prev != nil {
		before = pmetric.NewMetrics()
		md.CopyTo(before)
	}
	p.countFailedScrapes(ctx, md)
	var kept pmetric.Metrics
	var keeping bool
	if p.keep != nil {
		kept, keeping = p.keep.copyKept(md)
	}
	var st rules.Stats
	set.Apply(md, p.opts, &st)
	p.keepIdentity(md)
	if prev != nil {
		var ignored rules.Stats // the batch is counted once, as the current set saw it
		prev.Apply(before, p.opts, &ignored)
		p.keepIdentity(before)
		if n := endMissing(before, md); n > 0 {
			p.telemetry.ProcessorModelplaneMappingSeriesEnded.Add(ctx, n, p.idOpts...)
		}
	}
	p.record(ctx, &st)
	if keeping {
		kept.ResourceMetrics().MoveAndAppendTo(md.ResourceMetrics())
	}
	return md, nil
}

// countFailedScrapes counts the scrapes of md whose up point is 0, by job (the scrape's
// service.name): the mapping drops up, so a target that stopped answering, or went over a
// scrape limit, showed only in the log.
func (p *mappingProcessor) countFailedScrapes(ctx context.Context, md pmetric.Metrics) {
	rms := md.ResourceMetrics()
	for i := 0; i < rms.Len(); i++ {
		sms := rms.At(i).ScopeMetrics()
		for j := 0; j < sms.Len(); j++ {
			ms := sms.At(j).Metrics()
			for k := 0; k < ms.Len(); k++ {
				if m := ms.At(k); m.Name() == "up" && m.Type() == pmetric.MetricTypeGauge && failed(m.Gauge().DataPoints()) {
					job, _ := rms.At(i).Resource().Attributes().Get("service.name")
					p.telemetry.ProcessorModelplaneMappingScrapesFailed.Add(ctx, 1, processorAttrs(p.id, attribute.String("scrape_job", job.AsString())))
				}
			}
		}
	}
}

// failed tells whether an up metric reports a failed scrape: a recorded value of 0.
func failed(up pmetric.NumberDataPointSlice) bool {
	for i := 0; i < up.Len(); i++ {
		dp := up.At(i)
		if dp.Flags().NoRecordedValue() {
			continue
		}
		if (dp.ValueType() == pmetric.NumberDataPointValueTypeDouble && dp.DoubleValue() == 0) || (dp.ValueType() == pmetric.NumberDataPointValueTypeInt && dp.IntValue() == 0) {
			return true
		}
	}
	return false
}

func (p *mappingProcessor) keepIdentity(md pmetric.Metrics) {
	if p.identity != nil {
		p.identity.Apply(md)
	}
}

func (p *mappingProcessor) record(ctx context.Context, st *rules.Stats) {
	t := p.telemetry
	t.ProcessorModelplaneMappingDatapointsIn.Add(ctx, st.In, p.idOpts...)
	if st.Mapped > 0 {
		t.ProcessorModelplaneMappingDatapointsMapped.Add(ctx, st.Mapped, p.idOpts...)
	}
	if st.Dropped > 0 {
		t.ProcessorModelplaneMappingDatapointsDropped.Add(ctx, st.Dropped, p.idOpts...)
	}
	for r, n := range st.Refused {
		if n > 0 {
			t.ProcessorModelplaneMappingConversionsRefused.Add(ctx, n, p.refusalAttrs[r]...)
		}
	}
}
