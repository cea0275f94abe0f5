// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package standalone tests the GPU-host install: `make install` with DESTDIR, the systemd
// unit through systemd-analyze, and the example config through `otelcol-modelplane validate`.
package standalone

import (
	"bytes"
	"debug/elf"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/modelplaneai/otelcol-modelplane/internal/defaultconfig"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/freeport"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/syncbuffer"
)

func TestMakeInstall(t *testing.T) {
	bin := os.Getenv("OTELCOL_MODELPLANE_BIN")
	if bin == "" {
		t.Skip("OTELCOL_MODELPLANE_BIN not set: run through `make test`, which builds the binary")
	}
	dest := t.TempDir()
	cmd := exec.Command("make", "--no-print-directory", "install", "DESTDIR="+dest)
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	for _, f := range []string{"usr/local/bin/otelcol-modelplane", "etc/systemd/system/otelcol-modelplane.service", "etc/otelcol-modelplane/config.yaml", "etc/otelcol-modelplane/mappings/example.yaml"} {
		assert.FileExists(t, filepath.Join(dest, f))
	}

	// The same install staged for a Grace (arm64) host, from this machine.
	if arm := os.Getenv("OTELCOL_MODELPLANE_BIN_ARM64"); arm != "" {
		stage := t.TempDir()
		out, err := exec.Command("make", "-C", filepath.Join("..", ".."), "--no-print-directory", "install", "DESTDIR="+stage, "INSTALL_BINARY="+arm).CombinedOutput()
		require.NoError(t, err, string(out))
		f, err := elf.Open(filepath.Join(stage, "usr/local/bin/otelcol-modelplane"))
		require.NoError(t, err)
		assert.Equal(t, elf.EM_AARCH64, f.Machine)
		require.NoError(t, f.Close())
		assert.FileExists(t, filepath.Join(stage, "etc/systemd/system/otelcol-modelplane.service"))
	}

	// Another PREFIX: the unit runs the binary where it went.
	opt := t.TempDir()
	out, err = exec.Command("make", "-C", filepath.Join("..", ".."), "--no-print-directory", "install", "DESTDIR="+opt, "PREFIX=/opt/modelplane").CombinedOutput()
	require.NoError(t, err, string(out))
	assert.FileExists(t, filepath.Join(opt, "opt/modelplane/bin/otelcol-modelplane"))
	unit, err := os.ReadFile(filepath.Join(opt, "etc/systemd/system/otelcol-modelplane.service"))
	require.NoError(t, err)
	assert.Contains(t, string(unit), "\nExecStart=/opt/modelplane/bin/otelcol-modelplane --config=/etc/otelcol-modelplane/config.yaml\n")
	assert.Contains(t, string(unit), "\nExecReload=/opt/modelplane/bin/otelcol-modelplane validate --config=/etc/otelcol-modelplane/config.yaml\n")
	assert.NotContains(t, string(unit), "/usr/local/bin")

	// A second install keeps the host's own config.
	cfgPath := filepath.Join(dest, "etc/otelcol-modelplane/config.yaml")
	require.NoError(t, os.WriteFile(cfgPath, []byte("# mine\n"), 0o644))
	out, err = exec.Command("make", "-C", filepath.Join("..", ".."), "--no-print-directory", "install", "DESTDIR="+dest).CombinedOutput()
	require.NoError(t, err, string(out))
	mine, err := os.ReadFile(cfgPath)
	require.NoError(t, err)
	assert.Equal(t, "# mine\n", string(mine))

	// systemd-analyze verify needs the ExecStart binary where the unit says: point it at the
	// installed copy.
	if sa, err := exec.LookPath("systemd-analyze"); err == nil {
		unit, err := os.ReadFile(filepath.Join(dest, "etc/systemd/system/otelcol-modelplane.service"))
		require.NoError(t, err)
		moved := strings.ReplaceAll(string(unit), "/usr/local/bin/otelcol-modelplane", filepath.Join(dest, "usr/local/bin/otelcol-modelplane"))
		u := filepath.Join(t.TempDir(), "otelcol-modelplane.service")
		require.NoError(t, os.WriteFile(u, []byte(moved), 0o644))
		out, err := exec.Command(sa, "verify", u).CombinedOutput()
		assert.NoError(t, err, string(out))
		assert.Empty(t, strings.TrimSpace(string(out)), "systemd-analyze verify is silent on a good unit")
	} else {
		t.Log("systemd-analyze not installed: unit not verified")
	}

	// The example config validates, mapping folder included.
	example, err := os.ReadFile("config.yaml")
	require.NoError(t, err)
	cfg := strings.ReplaceAll(string(example), "/etc/otelcol-modelplane/mappings", filepath.Join(dest, "etc/otelcol-modelplane/mappings"))
	cfg = strings.ReplaceAll(cfg, "/var/lib/otelcol-modelplane", filepath.Join(t.TempDir(), "state"))
	c := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(c, []byte(cfg), 0o644))
	out, err = exec.Command(bin, "validate", "--config="+c).CombinedOutput()
	assert.NoError(t, err, string(out))

	// A broken mapping file fails validate, naming file, field and value.
	bad := filepath.Join(dest, "etc/otelcol-modelplane/mappings/bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("apiVersion: modelplane.ai/v1alpha1\nkind: MetricMapping\nmetadata: {name: bad}\nspec:\n  metrics:\n  - {from: x, to: modelplane_x, fromUnit: Milisecond}\n"), 0o644))
	out, err = exec.Command(bin, "validate", "--config="+c).CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(out), bad+`: MetricMapping "bad": line 6: metrics[0].fromUnit: unknown unit "Milisecond"`)
}

// `systemctl reload` runs the unit's ExecReload lines in order and stops at the first that
// fails. Run here as systemd would, against a running collector: a configuration that
// validates is signalled and reloaded; a broken one is refused with the reason, and the
// collector, which a SIGHUP onto it would have ended, runs on.
func TestReloadSignalsOnlyAValidConfig(t *testing.T) {
	bin := os.Getenv("OTELCOL_MODELPLANE_BIN")
	if bin == "" {
		t.Skip("OTELCOL_MODELPLANE_BIN not set: run through `make test`, which builds the binary")
	}
	unit, err := os.ReadFile("otelcol-modelplane.service")
	require.NoError(t, err)
	var reload []string
	for _, line := range strings.Split(string(unit), "\n") {
		if cmd, ok := strings.CutPrefix(line, "ExecReload="); ok {
			reload = append(reload, cmd)
		}
	}
	require.Len(t, reload, 2)

	health := freeport.Addr(t)
	good := fmt.Sprintf(`receivers:
  prometheus:
    config:
      scrape_configs:
        - job_name: nowhere
          scrape_interval: 1s
          static_configs: [{targets: ["127.0.0.1:1"]}]
exporters:
  debug: {}
extensions:
  health_check: {endpoint: %q}
service:
  extensions: [health_check]
  telemetry: {metrics: {level: none}}
  pipelines:
    metrics: {receivers: [prometheus], exporters: [debug]}
`, health)
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte(good), 0o644))

	var log syncbuffer.Buffer
	col := exec.Command(bin, "--config="+cfg)
	col.Stdout, col.Stderr = &log, &log
	require.NoError(t, col.Start())
	exited := make(chan error, 1)
	go func() { exited <- col.Wait() }()
	t.Cleanup(func() {
		_ = col.Process.Signal(os.Interrupt)
		<-exited
	})
	healthy := func() bool {
		resp, err := http.Get("http://" + health)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}
	require.Eventually(t, healthy, 30*time.Second, 100*time.Millisecond, "%s", &log)

	// systemctl reload, as systemd runs ExecReload.
	systemctlReload := func() (string, error) {
		var out bytes.Buffer
		for _, line := range reload {
			line = strings.ReplaceAll(line, "/usr/local/bin/otelcol-modelplane", bin)
			line = strings.ReplaceAll(line, "/etc/otelcol-modelplane/config.yaml", cfg)
			line = strings.ReplaceAll(line, "$MAINPID", strconv.Itoa(col.Process.Pid))
			f := strings.Fields(line)
			c := exec.Command(f[0], f[1:]...)
			c.Stdout, c.Stderr = &out, &out
			if err := c.Run(); err != nil {
				return out.String(), fmt.Errorf("%s: %w", line, err)
			}
		}
		return out.String(), nil
	}

	_, err = systemctlReload()
	require.NoError(t, err)
	require.Eventually(t, func() bool { return strings.Count(log.String(), `"signal": "hangup"`) == 1 }, 10*time.Second, 50*time.Millisecond)
	require.Eventually(t, healthy, 30*time.Second, 100*time.Millisecond, "%s", &log)

	require.NoError(t, os.WriteFile(cfg, []byte(strings.Replace(good, "health_check: {endpoint:", "health_check: {endpiont:", 1)), 0o644))
	out, err := systemctlReload()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "validate")
	assert.Contains(t, out, `has invalid keys: endpiont`)
	time.Sleep(2 * time.Second)
	select {
	case err := <-exited:
		t.Fatalf("the collector ended: %v\n%s", err, &log)
	default:
	}
	assert.True(t, healthy())
	assert.Equal(t, 1, strings.Count(log.String(), `"signal": "hangup"`), "no signal for the broken configuration")
}

// The host config limits what one target may send per scrape as the embedded default does,
// so that a runaway page fails its own scrape on a host too, not the collector.
func TestScrapeLimitsAsTheDefault(t *testing.T) {
	global := func(t *testing.T, doc []byte) any {
		t.Helper()
		var c struct {
			Receivers struct {
				Scraper struct {
					Config struct {
						Global any `yaml:"global"`
					} `yaml:"config"`
				} `yaml:"node_scrape"`
			} `yaml:"receivers"`
		}
		require.NoError(t, yaml.Unmarshal(doc, &c))
		return c.Receivers.Scraper.Config.Global
	}
	example, err := os.ReadFile("config.yaml")
	require.NoError(t, err)
	limits := defaultconfig.ScrapeLimits()
	assert.Equal(t, map[string]any{"body_size_limit": limits.BodySize, "sample_limit": limits.Samples}, global(t, example))
}
