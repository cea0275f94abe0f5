// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package envprovider is the collector's "env" confmap provider (${env:NAME} and
// ${env:NAME:-default}), except that a value keeps its text where YAML would rewrite a
// number in it.
//
// The stock provider reads a variable's value as YAML. A field typed as a string gets the
// text back, but a field of any type (a resource attribute's value) and the Prometheus
// receiver's scrape configuration (target labels) get what YAML made of it: cluster "007"
// became cluster="7", deployment "0042" deployment="34" (octal), node "1e3" node="1000",
// version "1.10" "1.1" (open-telemetry/opentelemetry-collector-contrib#36183). Here a value
// that YAML reads as a number whose plain decimal form is not the text itself stays that
// text. A number written plainly (8080, -1, 0.5) stays a number for numeric fields; one
// that is not (0512, 0x1F) now fails a numeric field with an error naming it, where the
// stock provider passed a different number.
//
// HOSTNAME, when the environment does not set it or sets it empty, is the host's name, as a
// shell gives it.
//
// ${env:NAME:-default} keeps the collector's meaning (the default when NAME is unset), but a
// NAME set and empty is logged, naming it: a shell would have given the default.
//
// ${env:NAME:?message}, as in a shell, is NAME's value, and fails the configuration with
// the message when NAME is unset or empty. The stock provider gives an unset variable as
// nothing, so a field that needs it (a remote write endpoint) failed later with an error of
// its own that names neither the variable nor the file that read it.
package envprovider // import "github.com/modelplaneai/otelcol-modelplane/cmd/otelcol-modelplane/internal/envprovider"

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"go.opentelemetry.io/collector/confmap"
	stock "go.opentelemetry.io/collector/confmap/provider/envprovider"
	"go.uber.org/zap"
)

// NewFactory returns the factory of the "env" provider. notes, when set, gets each warning
// as a "warning: ..." line as well: `validate` resolves without a logger, and passes stderr.
func NewFactory(notes io.Writer) confmap.ProviderFactory {
	return confmap.NewProviderFactory(func(set confmap.ProviderSettings) confmap.Provider {
		logger := set.Logger
		if logger == nil {
			logger = zap.NewNop()
		}
		return &provider{Provider: stock.NewFactory().Create(set), logger: logger, notes: notes, said: map[string]bool{}}
	})
}

type provider struct {
	confmap.Provider
	logger *zap.Logger
	notes  io.Writer

	mu   sync.Mutex
	said map[string]bool // the variables logged about: once each, not once per reference
}

func (p *provider) Retrieve(ctx context.Context, uri string, watcher confmap.WatcherFunc) (*confmap.Retrieved, error) {
	opaque := strings.TrimPrefix(uri, "env:")
	name, _, _ := strings.Cut(opaque, ":-")
	// A :? after :- is part of the default.
	if required, _, ok := strings.Cut(name, requiredMark); ok && strings.HasPrefix(uri, "env:") {
		value := os.Getenv(required)
		hostname := required == "HOSTNAME" // the host's name when unset or empty, below
		if value == "" && !hostname && validName.MatchString(required) {
			_, message, _ := strings.Cut(opaque, requiredMark) // all after :?, a :- in it too
			if message == "" {
				return nil, fmt.Errorf("environment variable %s is not set", required)
			}
			return nil, fmt.Errorf("environment variable %s is not set: %s", required, message)
		}
		// Set, it is read as ${env:NAME} is.
		name, uri = required, "env:"+required
	}
	if name == "HOSTNAME" {
		if os.Getenv(name) == "" {
			// A shell sets HOSTNAME and a service does not (systemd, cron), so a config naming
			// the node after it gave every host the same name: unset or empty, it is the
			// host's name, as a shell gives it.
			if host, err := os.Hostname(); err == nil {
				p.once("HOSTNAME", func() {
					p.logger.Info("HOSTNAME is not set or empty: using the host's name", zap.String("value", host))
				})
				return confmap.NewRetrieved(host)
			}
		}
	}
	if n, def, hasDefault := strings.Cut(opaque, ":-"); hasDefault && n == name {
		if v, set := os.LookupEnv(n); set && v == "" {
			// The collector's :- applies only to an unset variable, unlike a shell's. The
			// empty value then fails a component with an error naming its field, not the
			// variable (a resource attribute: "Either field \"value\", ... must be specified").
			p.once(n+":-", func() {
				p.logger.Warn("Environment variable is set but empty: the configuration gets the empty value, not its default; unset it for the default",
					zap.String("name", n), zap.String("default", def))
				if p.notes != nil {
					fmt.Fprintf(p.notes, "warning: %s is set but empty: the configuration gets the empty value, not its default %q; unset it for the default\n", n, def)
				}
			})
		}
	}
	r, err := p.Provider.Retrieve(ctx, uri, watcher)
	if err != nil {
		return nil, err
	}
	value, err := r.AsRaw()
	if err != nil {
		return r, nil
	}
	text, err := r.AsString()
	if err != nil || !rewritesNumber(value, text) {
		return r, nil
	}
	// A numeric field given this value now fails; the line tells why it got text.
	p.once(name, func() {
		if secret(name) {
			// The log goes to journald or the pod's log, which more people read than the
			// environment file or the Secret the value came from.
			p.logger.Info("Environment variable kept as its text: YAML would read it as a number (value not logged: the name reads as a secret's)",
				zap.String("name", name))
			return
		}
		p.logger.Info("Environment variable kept as its text: YAML would read it as another number",
			zap.String("name", name), zap.String("value", text), zap.Any("as_yaml", value))
	})
	return confmap.NewRetrieved(text)
}

// validName is what the stock provider takes as a variable's name; it refuses any other, set
// or not, and so does ${env:NAME:?message}.
var validName = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// requiredMark separates a variable's name from the message given when it is unset or empty.
const requiredMark = ":?"

// secret reports whether a variable's name says it holds a credential.
func secret(name string) bool {
	upper := strings.ToUpper(name)
	for _, word := range []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "CREDENTIAL", "AUTH"} {
		if strings.Contains(upper, word) {
			return true
		}
	}
	return false
}

// once runs say the first time it is called for a variable: a config reads a variable as
// often as it names it, and a reload reads them all again.
func (p *provider) once(name string, say func()) {
	p.mu.Lock()
	first := !p.said[name]
	p.said[name] = true
	p.mu.Unlock()
	if first {
		say()
	}
}

// rewritesNumber reports whether YAML read text as a number that is not written as text is.
func rewritesNumber(value any, text string) bool {
	var plain string
	switch v := value.(type) {
	case int:
		plain = strconv.Itoa(v)
	case int64:
		plain = strconv.FormatInt(v, 10)
	case uint64:
		plain = strconv.FormatUint(v, 10)
	case float64:
		plain = strconv.FormatFloat(v, 'f', -1, 64)
	default:
		return false
	}
	// Surrounding blanks are not part of a number; the stock provider ignores them too.
	return plain != strings.TrimSpace(text)
}
