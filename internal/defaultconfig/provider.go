// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package defaultconfig embeds the default configuration of otelcol-modelplane and the
// overrides that add remote write or OTLP to it, and serves them as the confmap provider of
// scheme "modelplane": `--config modelplane:default`, and `--config modelplane:default
// --config modelplane:remote-write` (or `modelplane:otlp`). It shapes the default to the host:
// the targets it runs (found by its probe package) and the environment's variables.
package defaultconfig // import "github.com/modelplaneai/otelcol-modelplane/internal/defaultconfig"

import (
	"context"
	_ "embed"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/collector/confmap"
	"go.uber.org/zap"

	"github.com/modelplaneai/otelcol-modelplane/internal/defaultconfig/probe"
)

// YAML is the embedded default configuration.
//
//go:embed default.yaml
var YAML []byte

// RemoteWriteYAML adds remote write to the default: merged over it, the same series also go to
// the backend MODELPLANE_REMOTE_WRITE_ENDPOINT names. Embedded, so that a container or a
// binary on a host needs no file for it.
//
//go:embed remote-write.yaml
var RemoteWriteYAML []byte

// OTLPYAML adds OTLP/HTTP to the default: merged over it, the same series also go to the
// backend MODELPLANE_OTLP_ENDPOINT names.
//
//go:embed otlp.yaml
var OTLPYAML []byte

const (
	// scraper is the default's receiver of its scrape jobs.
	scraper = "node_scrape"
	scheme  = "modelplane"
	// URI loads the embedded default.
	URI = scheme + ":default"
	// RemoteWriteURI loads the remote write overrides.
	RemoteWriteURI = scheme + ":remote-write"
)

// Documents are the embedded configurations by name, as `--config modelplane:NAME` and
// `default-config NAME` take them.
var Documents = map[string][]byte{"default": YAML, "remote-write": RemoteWriteYAML, "otlp": OTLPYAML}

// Embedded tells whether a --config location names one of Documents (modelplane:NAME).
func Embedded(uri string) bool { return strings.HasPrefix(uri, scheme+":") }

// Names lists the names of Documents, sorted.
func Names() []string { return slices.Sorted(maps.Keys(Documents)) }

type provider struct{ logger *zap.Logger }

// NewFactory returns the factory of the "modelplane" confmap provider.
func NewFactory() confmap.ProviderFactory {
	return confmap.NewProviderFactory(func(s confmap.ProviderSettings) confmap.Provider {
		if s.Logger == nil {
			return provider{logger: zap.NewNop()}
		}
		return provider{logger: s.Logger}
	})
}

func (p provider) Retrieve(_ context.Context, uri string, watcher confmap.WatcherFunc) (*confmap.Retrieved, error) {
	doc, ok := Documents[strings.TrimPrefix(uri, scheme+":")]
	if !ok {
		return nil, fmt.Errorf("%q: the modelplane scheme serves %s:%s", uri, scheme, strings.Join(Names(), ", "+scheme+":"))
	}
	if uri == URI {
		var reload func()
		if watcher != nil {
			reload = func() { watcher(&confmap.ChangeEvent{}) }
		}
		r, err := p.retrieveEmbedded(os.LookupEnv, identifier(probe.New(probe.DefaultTimeout)), reload)
		if err != nil {
			return nil, fmt.Errorf("the embedded default (%s): %w", URI, err)
		}
		return r, nil
	}
	return retrieveOverride(uri, doc, os.LookupEnv)
}

// retrieveOverride returns the override doc of uri, with its exporter's queue on disk where
// lookup gives QueueDirVariable.
func retrieveOverride(uri string, doc []byte, lookup func(string) (string, bool)) (*confmap.Retrieved, error) {
	raw, err := parsed(doc)
	if err != nil {
		return nil, err
	}
	if err := queueOnDisk(strings.TrimPrefix(uri, scheme+":"), raw, lookup); err != nil {
		return nil, fmt.Errorf("%s: %w", uri, err)
	}
	return confmap.NewRetrieved(raw)
}

// parsed is the embedded configuration doc as a map, to shape before it is served.
func parsed(doc []byte) (map[string]any, error) {
	r, err := confmap.NewRetrievedFromYAML(doc)
	if err != nil {
		return nil, err
	}
	raw, err := r.AsRaw()
	if err != nil {
		return nil, err
	}
	return raw.(map[string]any), nil
}

// retrieveEmbedded returns the embedded default for the environment lookup reads. Where it
// leaves a target out because its page is not served, and reload (the provider's watcher) is
// set, it watches for it until the collector loads its configuration again.
func (p provider) retrieveEmbedded(lookup func(string) (string, bool), probe func(string) finding, reload func()) (*confmap.Retrieved, error) {
	if err := checkEnv(lookup); err != nil {
		return nil, err
	}
	lookup, yielded := yieldedDefaults(lookup)
	for _, y := range yielded {
		p.logger.Info(y.variable+" is unset, and "+y.to+" names its default address: no "+targetJobs[y.variable]+" job",
			zap.String("address", y.addr))
	}
	shaped, moved, absent := placeProbedTargets(lookup, probe)
	for _, m := range moved {
		p.logger.Info(m.found.article+" "+m.found.name+" answers at "+m.at.name+"'s default address: the "+targetJobs[m.found.variable]+
			" job scrapes it there, and there is no "+targetJobs[m.at.variable]+" job. Set "+m.at.variable+" to scrape a "+m.at.name+" elsewhere",
			zap.String("address", m.addr))
	}
	if len(absent) == 0 {
		return retrieveDefault(shaped)
	}
	// checkEnv has accepted the interval.
	interval, _ := time.ParseDuration(valueOf("MODELPLANE_SCRAPE_INTERVAL", lookup))
	for _, a := range absent {
		msg := "No " + a.name + " answers on this host: "
		if a.meanwhile != "" {
			msg += a.meanwhile + ", and "
		}
		msg += "the default scrapes none. "
		fields := []zap.Field{zap.String("address", a.addr), zap.String("found", a.what())}
		if reload == nil {
			msg += "To scrape one that starts later, set " + a.variable + " or reload the collector once it answers"
		} else {
			msg += "One that starts later is scraped from then on: the collector looks every scrape interval and reloads its configuration when one answers. " +
				"Set " + a.variable + " to scrape an address whether it answers or not, or to none to stop looking"
			fields = append(fields, zap.Duration("interval", interval))
		}
		p.logger.Info(msg, fields...)
	}
	if reload == nil {
		return retrieveDefault(shaped)
	}
	stop := watchForTargets(absent, interval, func(a absentTarget) *probedTarget { return scrapedBy(a.probedTarget, probe(a.addr), lookup) },
		reload, p.logger)
	r, err := retrieveDefault(shaped, confmap.WithRetrievedClose(stop))
	if err != nil {
		_ = stop(context.Background())
	}
	return r, err
}

// retrieveDefault returns the embedded default as the variables that are more than a value
// in it shape it: jobs left out, the node label, engine lists and the telemetry endpoint.
func retrieveDefault(lookup func(string) (string, bool), opts ...confmap.RetrievedOption) (*confmap.Retrieved, error) {
	raw, err := parsed(YAML)
	if err != nil {
		return nil, err
	}
	if err := dropDisabledJobs(raw, lookup); err != nil {
		return nil, err
	}
	noNodeLabel(raw, lookup)
	conf := confmap.NewFromStringMap(raw)
	for _, shape := range []func(*confmap.Conf, func(string) (string, bool)) error{spreadTargets, setTelemetryEndpoint} {
		if err := shape(conf, lookup); err != nil {
			return nil, err
		}
	}
	return confmap.NewRetrieved(conf.ToStringMap(), opts...)
}

func (provider) Scheme() string { return scheme }

func (provider) Shutdown(context.Context) error { return nil }
