package dcgmreceiver

import (
	"net"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
)

// defer_to_exporter must be an address the probe can dial; the error names the field and
// the value.
func TestDeferToExporterMustBeHostPort(t *testing.T) {
	for value, want := range map[string]string{
		"127.0.0.1":                 `defer_to_exporter: "127.0.0.1" is not host:port, such as 127.0.0.1:9400`,
		"http://127.0.0.1:9400":     `defer_to_exporter: "http://127.0.0.1:9400" is not host:port, such as 127.0.0.1:9400`,
		"127.0.0.1:metrics":         `defer_to_exporter: "127.0.0.1:metrics": port "metrics" is not a number from 1 to 65535`,
		"127.0.0.1:0":               `defer_to_exporter: "127.0.0.1:0": port "0" is not a number from 1 to 65535`,
		"dcgm-exporter.local:70000": `defer_to_exporter: "dcgm-exporter.local:70000": port "70000" is not a number from 1 to 65535`,
	} {
		cfg := createDefaultConfig()
		cfg.DeferToExporter = value
		assert.EqualError(t, cfg.Validate(), want, value)
	}
	for _, ok := range []string{"127.0.0.1:9400", "localhost:9400", "[::1]:9400", ""} {
		cfg := createDefaultConfig()
		cfg.DeferToExporter = ok
		assert.NoError(t, cfg.Validate(), ok)
	}
}

// Whatever defer_to_exporter holds, Validate does not panic, and what it accepts is an
// address the probe can use: host:port with a port from 1 to 65535.
func FuzzDeferToExporter(f *testing.F) {
	for _, s := range []string{"127.0.0.1:9400", "[::1]:9400", "localhost", ":9400", "a:b:c", "[::1]", "host:0", "host:65536", "h:+1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, addr string) {
		cfg := createDefaultConfig()
		cfg.DeferToExporter = addr
		if cfg.Validate() != nil || addr == "" {
			return
		}
		_, port, err := net.SplitHostPort(addr)
		if err != nil {
			t.Fatalf("accepted %q: %v", addr, err)
		}
		if n, err := strconv.ParseUint(port, 10, 16); err != nil || n == 0 {
			t.Fatalf("accepted %q with port %q", addr, port)
		}
	})
}
