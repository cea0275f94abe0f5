// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelplaneai/otelcol-modelplane/internal/defaultconfig"
	"github.com/modelplaneai/otelcol-modelplane/internal/deliverywatch"
	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/freeport"
)

// Remote write keeps its queue in memory: a collector restarted while Prometheus is down
// loses what it had queued. This measures how much (docs/reliability.md says how to avoid it).
func TestRestartDuringOutageRemoteWriteLoss(t *testing.T) {
	r := restartDuringOutage(t, "", func(rounds, queued int) int { return rounds - queued })
	// Stopped as the kubelet stops a pod: killed if it has not exited within the default
	// grace period of 30 s. Contrib's exporter stops retrying as the shutdown begins and the
	// queue drops what it holds, counted, so the collector exits by itself.
	assert.True(t, r.exited, "the collector did not stop within the kubelet's grace period: killed")
	out := r.stopped.out.String()
	assert.True(t, strings.Contains(out, "Exporting failed. Dropping data."), "the queue drops each batch, with a count of its points")
	t.Logf("scrapes %d, in Prometheus %d: lost %d, the %d queued in memory when the collector stopped", r.rounds, r.got, r.lost(), r.queued)
	assert.LessOrEqual(t, r.lost(), r.queued, "nothing but the in-memory queue is lost")
}

// With a sending queue on disk, the same restart keeps what the stopped collector had not
// written, and the restarted one writes it, oldest first, before its own, and nothing is
// lost, where the in-memory queue lost every batch it held
// (TestRestartDuringOutageRemoteWriteLoss). The batch being retried at the stop goes first
// too: the collector's persistent queue alone puts it back at the end, behind later ones, and
// Prometheus refused its samples as out of order, one scrape round lost (internal/deliverywatch/queuefront.go).
func TestRestartDuringOutageRemoteWritePersistentQueue(t *testing.T) {
	// Waits for one less, so that a loss is counted below rather than waited for.
	r := restartDuringOutage(t, t.TempDir(), func(rounds, _ int) int { return rounds - 1 })
	require.True(t, r.exited, "the collector did not stop within the kubelet's grace period: killed")
	out := r.stopped.out.String()
	assert.Zero(t, strings.Count(out, "Dropping data"), "nothing is dropped:\n%s", out)
	assert.Contains(t, out, deliverywatch.Kept, "the write the stop interrupted is kept, and the log says so")
	t.Logf("stopped in %v; scrapes %d, in Prometheus %d: lost %d of the %d queued when the collector stopped",
		r.took.Round(10*time.Millisecond), r.rounds, r.got, r.lost(), r.queued)
	assert.Zero(t, r.lost(), "nothing is lost, the batch in flight at the stop included")
	assert.Contains(t, r.restarted.out.String(), deliverywatch.InterruptedFirst, "the batch in flight at the stop goes first")
	assert.NotContains(t, r.restarted.out.String(), "Rejecting data", "the queue retries; no error line for each failed write")
}

// A container or a binary on a host, on the embedded default with the remote-write override
// (docs/deploy.md): MODELPLANE_QUEUE_DIR keeps the override's queue on disk, in a directory
// the collector creates, and the same restart during an outage loses nothing either. Without
// it, the override's queue is in memory, as TestRestartDuringOutageRemoteWriteLoss measures.
func TestRestartDuringOutageEmbeddedRemoteWriteQueueDir(t *testing.T) {
	prom := startPrometheus(t)
	vllm := startEngine(t, "vllm", "vllm.prom", nil)
	dir := filepath.Join(t.TempDir(), "queue")
	env := oneEngineEnv(t, vllm.Addr, "MODELPLANE_REMOTE_WRITE_ENDPOINT=http://"+prom.addr+"/api/v1/write",
		defaultconfig.QueueDirVariable+"="+dir)
	start := func() *process {
		return startWithEnv(t, env, collectorBin, "--config", "modelplane:default", "--config", "modelplane:remote-write")
	}
	r := restartDuringOutageOf(t, prom, vllm, `modelplane_requests_preempted_total{replica="vllm"}`, start,
		func(rounds, _ int) int { return rounds - 1 })
	require.True(t, r.exited, "the collector did not stop within the kubelet's grace period: killed")
	t.Logf("stopped in %v; scrapes %d, in Prometheus %d: lost %d of the %d queued when the collector stopped",
		r.took.Round(10*time.Millisecond), r.rounds, r.got, r.lost(), r.queued)
	assert.Zero(t, strings.Count(r.stopped.out.String(), "Dropping data"), "nothing is dropped:\n%s", r.stopped.out.String())
	assert.Zero(t, r.lost(), "nothing is lost")
	assert.Contains(t, r.restarted.out.String(), deliverywatch.InterruptedFirst, "the batch in flight at the stop goes first")
	files, err := os.ReadDir(dir)
	require.NoError(t, err, "the collector created the directory")
	require.NotEmpty(t, files)
	assert.Equal(t, "exporter_prometheus_remote_write__metrics", files[0].Name(), "the exporter's queue file")
}

// A sending queue on a storage extension the collector does not run fails `validate` and the
// start, naming the exporter, the key and the extension. The collector alone finds it only
// when it starts the exporter, and says "no storage client extension found".
func TestAQueueOnStorageTheCollectorDoesNotRunIsNamed(t *testing.T) {
	vllm := startEngine(t, "vllm", "vllm.prom", vllmLabels("llama-0"))
	setup := collectorSetup{Engines: []*engine{vllm}, Prometheus: freeport.Addr(t), MappingDir: t.TempDir(), Health: freeport.Addr(t), QueueDir: t.TempDir()}
	var buf bytes.Buffer
	require.NoError(t, collectorConfig.Execute(&buf, setup))
	// As an edit that forgets the extension: the queue still names it.
	cfg := strings.Replace(buf.String(), ", file_storage]", "]", 1)
	path := filepath.Join(t.TempDir(), "collector.yaml")
	require.NoError(t, os.WriteFile(path, []byte(cfg), 0o600))
	for _, args := range [][]string{{"validate", "--config=" + path}, {"--config=" + path}} {
		out, err := exec.Command(collectorBin, args...).CombinedOutput()
		require.Error(t, err, "%v: %s", args, out)
		assert.Contains(t, string(out), `exporters::prometheus_remote_write::sending_queue::storage: "file_storage": declared under extensions but not listed in service::extensions`, args)
	}
}

// outageRestart is what restartDuringOutage saw.
type outageRestart struct {
	stopped, restarted *process
	took               time.Duration // from SIGINT to the stopped collector's exit
	exited             bool          // by itself, within the kubelet's grace period
	queued             int           // scrapes between Prometheus' stop and the collector's
	rounds             int           // scrapes served in all
	got                int           // samples of one series in Prometheus at the end
}

func (r outageRestart) lost() int { return r.rounds - r.got }

// restartDuringOutage runs one vLLM and a collector that writes to Prometheus (with its
// sending queue on disk in queueDir, if set); stops Prometheus, and 10 s later the collector
// as the kubelet stops a pod (SIGINT, killed after 30 s); starts the collector again, and 10 s
// later Prometheus; then stops the engine and counts the samples of one series Prometheus
// holds, once it holds at least enough(rounds, queued) of them and 3 s more.
func restartDuringOutage(t *testing.T, queueDir string, enough func(rounds, queued int) int) outageRestart {
	t.Helper()
	prom := startPrometheus(t)
	vllm := startEngine(t, "vllm", "vllm.prom", vllmLabels("llama-0"))
	setup := collectorSetup{Engines: []*engine{vllm}, Prometheus: prom.addr, MappingDir: t.TempDir(), Health: freeport.Addr(t), QueueDir: queueDir}
	return restartDuringOutageOf(t, prom, vllm, `modelplane_requests_preempted_total{replica="llama-0"}`,
		func() *process { return startCollector(t, setup) }, enough)
}

// restartDuringOutageOf is restartDuringOutage with the collector that start starts, which
// writes vllm's series to prom, counted by one of them (series, a selector).
func restartDuringOutageOf(t *testing.T, prom *prometheus, vllm *engine, series string, start func() *process, enough func(rounds, queued int) int) outageRestart {
	t.Helper()
	r := outageRestart{stopped: start()}
	eventually(t, "first samples", func() bool {
		return len(prom.query(t, series)) == 1
	})
	prom.stop(t)
	before := vllm.e.Rounds()
	time.Sleep(10 * time.Second)
	r.took, r.exited = interrupt(t, r.stopped, 30*time.Second)
	r.queued = vllm.e.Rounds() - before
	r.restarted = start()
	time.Sleep(10 * time.Second)
	prom.start(t)
	require.NoError(t, vllm.e.Stop())
	r.rounds = vllm.e.Rounds()
	count := func() {
		if s := prom.query(t, "count_over_time("+series+"[30m])"); len(s) == 1 {
			r.got = int(s[0].Value)
		}
	}
	eventually(t, "the samples in Prometheus", func() bool {
		count()
		return r.got >= enough(r.rounds, r.queued)
	})
	time.Sleep(3 * time.Second)
	count()
	return r
}

// A collector stopped while its remote-write backend is down stops promptly, and a value of
// OTELCOL_MODELPLANE_EXPORTER_STOP_TIMEOUT that is no duration fails the start and
// validate, naming the variable and the value.
func TestStopWithTheBackendDownAndTheStopTimeoutVariable(t *testing.T) {
	vllm := startEngine(t, "vllm", "vllm.prom", vllmLabels("llama-0"))
	// Remote write to a port where nothing listens: a backend that is down.
	setup := collectorSetup{Engines: []*engine{vllm}, Prometheus: freeport.Addr(t), MappingDir: t.TempDir(), Health: freeport.Addr(t)}
	col := startCollectorFrom(t, collectorBin, append(os.Environ(), deliverywatch.GiveUpEnv+"=3s"), setup)
	eventually(t, "a failed write", func() bool { return strings.Contains(col.out.String(), deliverywatch.Unanswered) })
	took, stopped := interrupt(t, col, 14*time.Second)
	require.True(t, stopped, "the collector did not stop within 14 s")
	t.Logf("stopped in %v", took.Round(10*time.Millisecond))

	badEnv := append(os.Environ(), deliverywatch.GiveUpEnv+"=30")
	bad := startWithEnv(t, badEnv, collectorBin, col.cmd.Args[1])
	err := bad.cmd.Wait()
	require.Error(t, err, "the start fails")
	assert.Contains(t, bad.out.String(), deliverywatch.GiveUpEnv+`=\"30\"`)

	// validate says so too: it builds the pipelines as a start would.
	check := exec.Command(collectorBin, "validate", col.cmd.Args[1])
	check.Env = badEnv
	out, err := check.CombinedOutput()
	require.Error(t, err, "validate fails")
	assert.Contains(t, string(out), deliverywatch.GiveUpEnv+`="30"`)
}

// interrupt stops p as the kubelet stops a pod: SIGINT, then SIGKILL if it has not exited
// within grace. It returns how long p took and whether it stopped by itself.
func interrupt(t *testing.T, p *process, grace time.Duration) (time.Duration, bool) {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(os.Interrupt))
	began := time.Now()
	exited := make(chan struct{})
	go func() { _, _ = p.cmd.Process.Wait(); close(exited) }()
	select {
	case <-exited:
		return time.Since(began), true
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-exited
		return time.Since(began), false
	}
}
