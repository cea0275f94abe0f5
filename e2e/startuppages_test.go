package e2e

import (
	"os"
	"path/filepath"
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
		c := &collector{mode: mode, bin: filepath.Join(t.TempDir(), "otelcol-modelplane"), prom: startPrometheus(t)}
		exe, err := os.ReadFile(collectorBin)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(c.bin, exe, 0o700))
		if err := pagecache.Evict(c.bin); err != nil {
			// A temporary folder in memory (tmpfs) has no disk to read the binary back from.
			t.Skipf("the copy of the binary cannot leave the page cache: %v", err)
		}
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
		_, file, err := procstat.Resident(c.col.cmd.Process.Pid)
		require.NoError(t, err)
		fileKiB[c.mode] = file / 1024
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
