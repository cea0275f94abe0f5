package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/modelplaneai/otelcol-modelplane/internal/freeport"
	"github.com/modelplaneai/otelcol-modelplane/internal/pagecache"
	"github.com/modelplaneai/otelcol-modelplane/internal/procstat"
	"github.com/modelplaneai/otelcol-modelplane/internal/startuppages"
)

// Two collectors on the same engines, each started from its own copy of the binary read back
// from disk, as a collector starts on a node: one as it ships, which gives back the
// executable's pages that only start-up read (internal/startuppages), and one that keeps
// them (OTELCOL_MODELPLANE_STARTUP_PAGES=keep), as collectors do by default. Once the release
// has settled, the first maps far fewer of its executable's pages and leaves far fewer in the
// page cache, and it goes on delivering.
func TestStartupPagesAreGivenBack(t *testing.T) {
	engines := []*engine{
		startEngine(t, "vllm", "vllm.prom", vllmLabels("llama-0")),
		startEngine(t, "dcgm-exporter", "dcgm-exporter.prom", map[string]string{"node": "gpu-node-01"}),
	}
	type collector struct {
		mode string
		bin  string
		prom *prometheus
		col  *process
	}
	var cols []*collector
	for _, mode := range []string{"release", "keep"} {
		c := &collector{mode: mode, bin: binaryFromDisk(t), prom: startPrometheus(t)}
		env := append(os.Environ(), startuppages.Env+"="+mode)
		c.col = startCollectorFrom(t, c.bin, env, collectorSetup{Engines: engines, Prometheus: c.prom.addr, MappingDir: t.TempDir(), Health: freeport.Addr(t)})
		cols = append(cols, c)
	}
	started := time.Now()
	time.Sleep(startuppages.Settled + 5*time.Second)
	settled := time.Now()

	fileKiB := map[string]int64{}
	cached := map[string]int64{}
	for _, c := range cols {
		fileKiB[c.mode] = mappedKiB(t, c.col)
		n, err := pagecache.CachedBytes(c.bin)
		require.NoError(t, err)
		cached[c.mode] = n
	}
	t.Logf("%.0f s after start: executable pages mapped %d KiB released, %d KiB kept; in the page cache %d KiB released, %d KiB kept",
		time.Since(started).Seconds(), fileKiB["release"], fileKiB["keep"], cached["release"]/1024, cached["keep"]/1024)
	assert.Less(t, fileKiB["release"]+15*1024, fileKiB["keep"], "file-backed RSS, KiB")
	assert.Less(t, cached["release"]+15<<20, cached["keep"], "bytes of the executable in the page cache")

	for _, c := range cols {
		eventually(t, c.mode+": a GPU and a vLLM series scraped after the release settled", func() bool {
			for _, q := range []string{"timestamp(modelplane_gpu_memory_used_bytes)", `timestamp(modelplane_requests_waiting{engine="vllm"})`} {
				s := c.prom.query(t, q)
				if len(s) == 0 || s[0].Value < float64(settled.Unix()) {
					return false
				}
			}
			return true
		})
		assert.NotContains(t, c.col.out.String(), "panic")
		assert.NotContains(t, c.col.out.String(), "SIGSEGV")
	}
}

// binaryFromDisk copies the collector binary to a temporary folder and evicts the copy from
// the page cache, so that the collector started from it reads its pages from disk, as on a
// node, and not from the large page-cache folios the linker leaves, which a fault maps whole.
func binaryFromDisk(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "otelcol-modelplane")
	exe, err := os.ReadFile(collectorBin)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(bin, exe, 0o700))
	if err := pagecache.Evict(bin); err != nil {
		// A temporary folder in memory (tmpfs) has no disk to read the binary back from.
		t.Skipf("the copy of the binary cannot leave the page cache: %v", err)
	}
	return bin
}

// mappedKiB is how much of p's executable p has mapped (RssFile), in KiB.
func mappedKiB(t *testing.T, p *process) int64 {
	t.Helper()
	_, file, err := procstat.Resident(p.cmd.Process.Pid)
	require.NoError(t, err)
	return file / 1024
}

// An operator's reload of a changed configuration (`kill -HUP`, `systemctl reload`) builds the
// pipelines anew and maps the code that start-up read again, as the reloads the collector asks
// for itself do; the collector gives those pages back after it too, and delivers on.
func TestAnOperatorsReloadGivesThePagesBackToo(t *testing.T) {
	engines := []*engine{
		startEngine(t, "vllm", "vllm.prom", vllmLabels("llama-0")),
		startEngine(t, "dcgm-exporter", "dcgm-exporter.prom", map[string]string{"node": "gpu-node-01"}),
	}
	prom := startPrometheus(t)
	col := startCollectorFrom(t, binaryFromDisk(t), append(os.Environ(), startuppages.Env+"=release"),
		collectorSetup{Engines: engines, Prometheus: prom.addr, MappingDir: t.TempDir(), Health: freeport.Addr(t)})
	time.Sleep(startuppages.Again + 2*time.Second)
	started := mappedKiB(t, col)

	// A changed processor setting: the whole collector reloads (with service.partialReload an
	// unchanged configuration reloads nothing).
	cfg := strings.TrimPrefix(col.cmd.Args[1], "--config=")
	raw, err := os.ReadFile(cfg)
	require.NoError(t, err)
	changed := strings.Replace(string(raw), "    timeout: 200ms\n", "    timeout: 250ms\n", 1)
	require.NotEqual(t, string(raw), changed)
	require.NoError(t, os.WriteFile(cfg, []byte(changed), 0o600))
	const ready = "Everything is ready"
	require.Equal(t, 1, strings.Count(col.out.String(), ready))
	require.NoError(t, col.cmd.Process.Signal(syscall.SIGHUP))
	eventually(t, "the reload", func() bool { return strings.Count(col.out.String(), ready) == 2 })
	reloaded := time.Now()
	mapped := mappedKiB(t, col)
	time.Sleep(startuppages.Again + 2*time.Second)
	released := mappedKiB(t, col)
	t.Logf("executable pages mapped: %d KiB after start, %d KiB right after the reload, %d KiB %.0f s later",
		started, mapped, released, time.Since(reloaded).Seconds())
	assert.Less(t, started+2*1024, mapped, "the reload maps pages again, KiB")
	assert.Less(t, released+2*1024, mapped, "and they are given back, KiB")

	eventually(t, "a GPU and a vLLM series scraped after the reload", func() bool {
		for _, q := range []string{"timestamp(modelplane_gpu_memory_used_bytes)", `timestamp(modelplane_requests_waiting{engine="vllm"})`} {
			s := prom.query(t, q)
			if len(s) == 0 || s[0].Value < float64(time.Now().Unix()-1) {
				return false
			}
		}
		return true
	})
}
