package unknownkeys

import (
	"encoding"
	"reflect"
	"strings"

	"go.opentelemetry.io/collector/confmap"
)

// keys is what a configuration type accepts below one key: any key (anything), a scalar
// (fields nil), or the keys of a struct.
type keys struct {
	anything bool
	fields   map[string]*keys
}

var (
	anything        = &keys{anything: true}
	scalar          = &keys{}
	unmarshalerType = reflect.TypeFor[confmap.Unmarshaler]()
	textType        = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// faithful names the types with their own Unmarshal whose keys are nonetheless exactly their
// fields' (the types with the bug, and the remote-write exporter's and health_check's, which
// decode themselves and then move fields about; this distribution's remote-write exporter
// hands contrib's keys to contrib's and reads its sending_queue beside them).
var faithful = map[string]bool{
	"go.opentelemetry.io/collector/config/confighttp.ClientConfig":                                            true,
	"go.opentelemetry.io/collector/config/confighttp.ServerConfig":                                            true,
	"github.com/open-telemetry/opentelemetry-collector-contrib/exporter/prometheusremotewriteexporter.Config": true,
	"github.com/modelplaneai/otelcol-modelplane/exporter/prometheusremotewriteexporter.Config":                true,
	"github.com/open-telemetry/opentelemetry-collector-contrib/internal/healthcheck.Config":                   true,
}

const optionalPrefix = "go.opentelemetry.io/collector/config/configoptional.Optional["

// keysOf returns what a value of v's type accepts.
func keysOf(v any) *keys { return keysOfType(reflect.TypeOf(v), map[reflect.Type]*keys{}) }

func keysOfType(t reflect.Type, seen map[reflect.Type]*keys) *keys {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if k, ok := seen[t]; ok {
		return k
	}
	name := t.PkgPath() + "." + t.Name()
	switch {
	case t.Kind() == reflect.Struct && strings.HasPrefix(name, optionalPrefix):
		// configoptional.Optional[T]: T's keys, and `enabled`.
		f, ok := t.FieldByName("value")
		if !ok {
			return anything
		}
		inner := keysOfType(f.Type, seen)
		if inner.anything || inner.fields == nil {
			return inner
		}
		k := &keys{fields: map[string]*keys{"enabled": scalar}}
		for n, c := range inner.fields {
			k.fields[n] = c
		}
		return k
	case t.Kind() == reflect.Struct:
		if reflect.PointerTo(t).Implements(textType) {
			return scalar
		}
		if reflect.PointerTo(t).Implements(unmarshalerType) && !faithful[name] {
			return anything // its own Unmarshal decides
		}
		k := &keys{fields: map[string]*keys{}}
		seen[t] = k // before the fields: a type may hold itself
		for i := 0; i < t.NumField(); i++ {
			addField(k, t.Field(i), seen)
		}
		return k
	case t.Kind() == reflect.Map, t.Kind() == reflect.Slice, t.Kind() == reflect.Array, t.Kind() == reflect.Interface:
		return anything
	}
	return scalar
}

func addField(k *keys, f reflect.StructField, seen map[reflect.Type]*keys) {
	if !f.IsExported() {
		return
	}
	tag := f.Tag.Get("mapstructure")
	name, opts, _ := strings.Cut(tag, ",")
	if name == "-" {
		return
	}
	squash := strings.Contains(","+opts+",", ",squash,") || (f.Anonymous && tag == "")
	if strings.Contains(","+opts+",", ",remain,") {
		k.anything = true
		return
	}
	child := keysOfType(f.Type, seen)
	if squash {
		if child.anything {
			k.anything = true
			return
		}
		for n, c := range child.fields {
			k.fields[n] = c
		}
		return
	}
	if name == "" {
		name = f.Name
	}
	k.fields[name] = child
}
