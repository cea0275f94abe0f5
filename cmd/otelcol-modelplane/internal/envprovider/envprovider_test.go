// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package envprovider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/confmaptest"
	stock "go.opentelemetry.io/collector/confmap/provider/envprovider"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// resolve expands doc (YAML with ${env:...} references) as the collector does, with the
// given env provider.
func resolve(t *testing.T, env confmap.ProviderFactory, doc string, logger ...*zap.Logger) *confmap.Conf {
	t.Helper()
	file := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(file, []byte(doc), 0o600))
	r, err := confmap.NewResolver(confmap.ResolverSettings{
		URIs:              []string{"file:" + file},
		ProviderFactories: []confmap.ProviderFactory{env, fileprovider.NewFactory()},
		DefaultScheme:     "env",
		ProviderSettings:  confmap.ProviderSettings{Logger: append(logger, zap.NewNop())[0]},
	})
	require.NoError(t, err)
	conf, err := r.Resolve(context.Background())
	require.NoError(t, err)
	return conf
}

// attribute is shaped like a resource processor action: its value may be of any type.
type attribute struct {
	Value any `mapstructure:"value"`
}

// A value YAML would read as a number written otherwise keeps its text in a field of any
// type; the stock provider's result is shown beside it.
func TestValueKeepsItsText(t *testing.T) {
	for _, c := range []struct {
		env   string
		want  any
		stock any
	}{
		{"007", "007", 7},
		{"0042", "0042", 34}, // read as octal
		{"08", "08", 8.0},
		{"0x1F", "0x1F", 31},
		{"1e3", "1e3", 1000.0},
		{"1.10", "1.10", 1.1},
		{"1.0", "1.0", 1.0},
		{".5", ".5", 0.5},
		{"+1", "+1", 1},
		// Numbers written plainly stay numbers; everything else is as before.
		{"8080", 8080, 8080},
		{"-1", -1, -1},
		{"0.5", 0.5, 0.5},
		{" 42 ", 42, 42},
		{"prod-eu", "prod-eu", "prod-eu"},
		{"true", true, true},
		{"[a, b]", []any{"a", "b"}, []any{"a", "b"}},
	} {
		t.Run(c.env, func(t *testing.T) {
			t.Setenv("MODELPLANE_TEST_VALUE", c.env)
			for _, p := range []struct {
				name    string
				factory confmap.ProviderFactory
				want    any
			}{{"ours", NewFactory(nil), c.want}, {"stock", stock.NewFactory(), c.stock}} {
				var got attribute
				require.NoError(t, resolve(t, p.factory, "value: ${env:MODELPLANE_TEST_VALUE}").Unmarshal(&got))
				assert.Equal(t, p.want, got.Value, p.name)
			}
		})
	}
}

// The default after :- is read the same way.
func TestDefaultKeepsItsText(t *testing.T) {
	var got attribute
	require.NoError(t, resolve(t, NewFactory(nil), "value: ${env:MODELPLANE_TEST_UNSET:-007}").Unmarshal(&got))
	assert.Equal(t, "007", got.Value)
}

// Typed fields: a string field always had the text; a numeric field takes a plainly written
// number and refuses one written otherwise, naming the field and the value, where the stock
// provider passed another number (0512 MiB as 330).
func TestTypedFields(t *testing.T) {
	type limits struct {
		Name     string `mapstructure:"name"`
		LimitMiB uint32 `mapstructure:"limit_mib"`
		Alias    string `mapstructure:"alias"`
	}
	doc := "name: ${env:MODELPLANE_TEST_NAME}\nlimit_mib: ${env:MODELPLANE_TEST_LIMIT}\nalias: ${env:MODELPLANE_TEST_NAME}"
	t.Setenv("MODELPLANE_TEST_NAME", "0042")
	t.Setenv("MODELPLANE_TEST_LIMIT", "512")
	var got limits
	require.NoError(t, resolve(t, NewFactory(nil), doc).Unmarshal(&got))
	assert.Equal(t, limits{Name: "0042", LimitMiB: 512, Alias: "0042"}, got)

	t.Setenv("MODELPLANE_TEST_LIMIT", "0512")
	var stockGot limits
	require.NoError(t, resolve(t, stock.NewFactory(), doc).Unmarshal(&stockGot))
	assert.Equal(t, uint32(330), stockGot.LimitMiB, "the stock provider reads it as octal")
	core, logs := observer.New(zap.InfoLevel)
	err := resolve(t, NewFactory(nil), doc, zap.New(core)).Unmarshal(&got)
	assert.ErrorContains(t, err, "'limit_mib' expected type 'uint32', got unconvertible type 'string'")
	// The log says which variables are text, and why: once each, though NAME is read twice.
	var said []map[string]any
	for _, e := range logs.All() {
		assert.Equal(t, "Environment variable kept as its text: YAML would read it as another number", e.Message)
		said = append(said, e.ContextMap())
	}
	assert.ElementsMatch(t, []map[string]any{
		{"name": "MODELPLANE_TEST_NAME", "value": "0042", "as_yaml": int64(34)},
		{"name": "MODELPLANE_TEST_LIMIT", "value": "0512", "as_yaml": int64(330)},
	}, said)
}

// A reference inside a longer string was always text, and stays so.
func TestEmbeddedReference(t *testing.T) {
	t.Setenv("MODELPLANE_TEST_VALUE", "0042")
	var got attribute
	require.NoError(t, resolve(t, NewFactory(nil), "value: node-${env:MODELPLANE_TEST_VALUE}").Unmarshal(&got))
	assert.Equal(t, "node-0042", got.Value)
}

func TestScheme(t *testing.T) {
	p := NewFactory(nil).Create(confmaptest.NewNopProviderSettings())
	assert.Equal(t, "env", p.Scheme())
	_, err := p.Retrieve(context.Background(), "file:x", nil)
	assert.ErrorContains(t, err, `"file:x" uri is not supported by "env" provider`)
	assert.NoError(t, p.Shutdown(context.Background()))
}

// For any value: ours gives what the stock provider gives, or the value's text where the
// stock provider read a number not written as the value is.
func FuzzRetrieve(f *testing.F) {
	for _, s := range []string{"007", "0x1F", "1e3", "1.10", "8080", "-1", "0.5", "prod", "true", "[1, 2]", "{a: 1}", "~", "", " 7 ", "1_000", ".inf", "-.5"} {
		f.Add(s)
	}
	ours := NewFactory(nil).Create(confmaptest.NewNopProviderSettings())
	theirs := stock.NewFactory().Create(confmaptest.NewNopProviderSettings())
	f.Fuzz(func(t *testing.T, value string) {
		if strings.ContainsRune(value, 0) {
			return // not an environment variable's value
		}
		t.Setenv("MODELPLANE_FUZZ_VALUE", value)
		got, err := ours.Retrieve(context.Background(), "env:MODELPLANE_FUZZ_VALUE", nil)
		want, wantErr := theirs.Retrieve(context.Background(), "env:MODELPLANE_FUZZ_VALUE", nil)
		if wantErr != nil { // such as a map with a key that is not a string
			assert.Equal(t, wantErr, err)
			return
		}
		require.NoError(t, err)
		gotRaw, err := got.AsRaw()
		require.NoError(t, err)
		wantRaw, err := want.AsRaw()
		require.NoError(t, err)
		if rewritesNumber(wantRaw, value) {
			assert.Equal(t, value, gotRaw)
			return
		}
		assert.Equal(t, wantRaw, gotRaw)
		gotText, gotErr := got.AsString()
		wantText, wantErr := want.AsString()
		assert.Equal(t, wantText, gotText)
		assert.Equal(t, wantErr == nil, gotErr == nil)
	})
}

// HOSTNAME unset, as under systemd or cron, or set but empty, is the host's name, default or
// not, and said once; set, it is what it is set to.
func TestHostnameUnset(t *testing.T) {
	host, err := os.Hostname()
	require.NoError(t, err)
	t.Setenv("HOSTNAME", "")
	require.NoError(t, os.Unsetenv("HOSTNAME"))
	core, logs := observer.New(zap.InfoLevel)
	var got struct {
		Node    any `mapstructure:"node"`
		Replica any `mapstructure:"replica"`
	}
	require.NoError(t, resolve(t, NewFactory(nil), "node: ${env:HOSTNAME:-localhost}\nreplica: ${env:HOSTNAME}-vllm", zap.New(core)).Unmarshal(&got))
	assert.Equal(t, host, got.Node)
	assert.Equal(t, host+"-vllm", got.Replica)
	require.Equal(t, 1, logs.Len())
	assert.Equal(t, "HOSTNAME is not set or empty: using the host's name", logs.All()[0].Message)

	// Set but empty: the standalone config's node (${env:HOSTNAME:-localhost}) had no value,
	// and the resource processor refused it.
	t.Setenv("HOSTNAME", "")
	require.NoError(t, resolve(t, NewFactory(nil), "node: ${env:HOSTNAME:-localhost}\nreplica: ${env:HOSTNAME:?needed}-vllm").Unmarshal(&got))
	assert.Equal(t, host, got.Node)
	assert.Equal(t, host+"-vllm", got.Replica)

	t.Setenv("HOSTNAME", "0042")
	require.NoError(t, resolve(t, NewFactory(nil), "node: ${env:HOSTNAME:-localhost}\nreplica: ${env:HOSTNAME}-vllm").Unmarshal(&got))
	assert.Equal(t, "0042", got.Node)
	assert.Equal(t, "0042-vllm", got.Replica)
}

// A credential that happens to read as a number (a token of digits with a leading zero, or
// digits around one e) keeps its text like any other variable, but its value stays out of
// the log, which goes to journald or the pod's log.
func TestSecretValueNotLogged(t *testing.T) {
	t.Setenv("MODELPLANE_BACKEND_TOKEN", "0123456789e12")
	core, logs := observer.New(zap.InfoLevel)
	var got struct {
		Token any `mapstructure:"token"`
	}
	require.NoError(t, resolve(t, NewFactory(nil), "token: ${env:MODELPLANE_BACKEND_TOKEN}", zap.New(core)).Unmarshal(&got))
	assert.Equal(t, "0123456789e12", got.Token)
	require.Equal(t, 1, logs.Len())
	entry := logs.All()[0]
	assert.Contains(t, entry.Message, "value not logged")
	assert.Equal(t, "MODELPLANE_BACKEND_TOKEN", entry.ContextMap()["name"])
	for k, v := range entry.ContextMap() {
		assert.NotContains(t, fmt.Sprint(v), "123456789", k)
	}
	assert.NotContains(t, entry.Message, "123456789")
}

// ${env:NAME:?message} fails, with the message, where NAME is unset or empty, as a shell's
// does; set, it is NAME's value, read as ${env:NAME} reads it.
func TestRequired(t *testing.T) {
	p := NewFactory(nil).Create(confmaptest.NewNopProviderSettings())
	uri := "env:MODELPLANE_TEST_REQUIRED:?set it to the backend's URL, such as https://mimir.example.com/api/v1/push (remote-write.yaml)"
	for _, unset := range []bool{true, false} {
		if unset {
			t.Setenv("MODELPLANE_TEST_REQUIRED", "")
			require.NoError(t, os.Unsetenv("MODELPLANE_TEST_REQUIRED"))
		} else {
			t.Setenv("MODELPLANE_TEST_REQUIRED", "")
		}
		_, err := p.Retrieve(context.Background(), uri, nil)
		require.EqualError(t, err, "environment variable MODELPLANE_TEST_REQUIRED is not set: set it to the backend's URL, such as https://mimir.example.com/api/v1/push (remote-write.yaml)")
	}

	t.Setenv("MODELPLANE_TEST_REQUIRED", "0042")
	var got attribute
	require.NoError(t, resolve(t, NewFactory(nil), "value: ${env:MODELPLANE_TEST_REQUIRED:?say so}").Unmarshal(&got))
	assert.Equal(t, "0042", got.Value, "read as ${env:NAME} reads it: its text")
	t.Setenv("MODELPLANE_TEST_REQUIRED", "8080")
	var number attribute
	require.NoError(t, resolve(t, NewFactory(nil), "value: ${env:MODELPLANE_TEST_REQUIRED:?say so}").Unmarshal(&number))
	assert.Equal(t, 8080, number.Value)
	// The message is all after :?, a :- in it included.
	require.NoError(t, os.Unsetenv("MODELPLANE_TEST_REQUIRED"))
	_, err := p.Retrieve(context.Background(), "env:MODELPLANE_TEST_REQUIRED:?unset:-it is", nil)
	require.EqualError(t, err, "environment variable MODELPLANE_TEST_REQUIRED is not set: unset:-it is")
	_, err = p.Retrieve(context.Background(), "env:MODELPLANE_TEST_REQUIRED:?", nil)
	require.EqualError(t, err, "environment variable MODELPLANE_TEST_REQUIRED is not set")
	// HOSTNAME unset is the host's name, here too.
	host, err := os.Hostname()
	require.NoError(t, err)
	t.Setenv("HOSTNAME", "")
	require.NoError(t, os.Unsetenv("HOSTNAME"))
	r, err := p.Retrieve(context.Background(), "env:HOSTNAME:?say so", nil)
	require.NoError(t, err)
	text, err := r.AsString()
	require.NoError(t, err)
	assert.Equal(t, host, text)
	// A name the stock provider refuses is refused the same way, set or not.
	_, err = p.Retrieve(context.Background(), "env:MODELPLANE-TEST:?say so", nil)
	require.ErrorContains(t, err, `environment variable "MODELPLANE-TEST" has invalid name`)

	// The stock provider refuses the form; where it had a default, that stays the default.
	_, err = stock.NewFactory().Create(confmaptest.NewNopProviderSettings()).Retrieve(context.Background(), uri, nil)
	assert.ErrorContains(t, err, "has invalid name")
	var def attribute
	require.NoError(t, resolve(t, NewFactory(nil), "value: ${env:MODELPLANE_TEST_REQUIRED:-a:?b}").Unmarshal(&def))
	assert.Equal(t, "a:?b", def.Value)
}

// For any text after env: with :? in it, Retrieve does not panic; it gives a value only for a
// variable that is set and not empty, and refuses with the name it read otherwise.
func FuzzRequired(f *testing.F) {
	for _, s := range []string{"MODELPLANE_FUZZ_SET:?msg", "MODELPLANE_FUZZ_UNSET:?msg", "MODELPLANE_FUZZ_EMPTY:?", "X:-a:?b", ":?", "A:?b:?c", "MODELPLANE_FUZZ_SET:?:-x", "1X:?m"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, opaque string) {
		t.Setenv("MODELPLANE_FUZZ_SET", "v")
		t.Setenv("MODELPLANE_FUZZ_EMPTY", "")
		p := NewFactory(nil).Create(confmaptest.NewNopProviderSettings())
		r, err := p.Retrieve(context.Background(), "env:"+opaque, nil)
		name, _, _ := strings.Cut(opaque, ":-")
		required, _, isRequired := strings.Cut(name, ":?")
		if !isRequired || required == "HOSTNAME" {
			return // the stock provider's form (FuzzRetrieve's), or the host's name
		}
		if err == nil {
			require.NotNil(t, r)
			assert.NotEmpty(t, os.Getenv(required), "a value only for a set variable: %q", opaque)
			return
		}
		// Named as it is, or quoted where the stock provider refuses the name.
		assert.True(t, strings.Contains(err.Error(), required) || strings.Contains(err.Error(), strconv.Quote(required)), "%q: %v", opaque, err)
	})
}

// ${env:NAME:-default} with NAME set but empty is the empty value, as the collector's own
// provider gives it, and a warning names the variable and the default it did not get; said
// once however often it is referenced. Unset, the default, without a word.
func TestSetButEmptyIsNamed(t *testing.T) {
	t.Setenv("MODELPLANE_CLUSTER", "")
	core, logs := observer.New(zap.WarnLevel)
	var got struct {
		Cluster any `mapstructure:"cluster"`
		Again   any `mapstructure:"again"`
		Plain   any `mapstructure:"plain"`
	}
	require.NoError(t, resolve(t, NewFactory(nil), "cluster: ${env:MODELPLANE_CLUSTER:-standalone}\nagain: x-${env:MODELPLANE_CLUSTER:-standalone}\nplain: ${env:MODELPLANE_CLUSTER}", zap.New(core)).Unmarshal(&got))
	assert.Nil(t, got.Cluster)
	assert.Equal(t, "x-", got.Again)
	require.Equal(t, 1, logs.Len())
	entry := logs.All()[0]
	assert.Equal(t, "Environment variable is set but empty: the configuration gets the empty value, not its default; unset it for the default", entry.Message)
	assert.Equal(t, map[string]any{"name": "MODELPLANE_CLUSTER", "default": "standalone"}, entry.ContextMap())

	// validate, which resolves without a logger, prints it.
	var notes strings.Builder
	require.NoError(t, resolve(t, NewFactory(&notes), "cluster: ${env:MODELPLANE_CLUSTER:-standalone}").Unmarshal(&got))
	assert.Equal(t, "warning: MODELPLANE_CLUSTER is set but empty: the configuration gets the empty value, not its default \"standalone\"; unset it for the default\n", notes.String())

	require.NoError(t, os.Unsetenv("MODELPLANE_CLUSTER"))
	core, logs = observer.New(zap.WarnLevel)
	require.NoError(t, resolve(t, NewFactory(nil), "cluster: ${env:MODELPLANE_CLUSTER:-standalone}", zap.New(core)).Unmarshal(&got))
	assert.Equal(t, "standalone", got.Cluster)
	assert.Zero(t, logs.Len())
}
