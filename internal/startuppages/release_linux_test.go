//go:build linux

package startuppages

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// The mappings of a cgo build of the collector (otelcol-modelplane, idle, 2026-12-03): the
// ELF header, code, read-only data, the RELRO page the dynamic loader relocated, and data.
const collectorSmaps = `00400000-00411000 r--p 00000000 fe:00 9977880                            /tmp/exp-run
Size:                 68 kB
Rss:                  68 kB
Anonymous:             0 kB
VmFlags: rd mr mw me dw sd
00411000-026b8000 r-xp 00011000 fe:00 9977880                            /tmp/exp-run
Rss:               23260 kB
Private_Dirty:         0 kB
Anonymous:             0 kB
026b8000-04f4d000 r--p 022b8000 fe:00 9977880                            /tmp/exp-run
Rss:               21012 kB
Anonymous:             0 kB
04f4d000-04f4e000 r--p 04b4c000 fe:00 9977880                            /tmp/exp-run
Rss:                   4 kB
Private_Dirty:         4 kB
Anonymous:             4 kB
04f4e000-0503b000 rw-p 04b4d000 fe:00 9977880                            /tmp/exp-run
Rss:                 784 kB
Anonymous:           260 kB
7f0000000000-7f0000021000 r-xp 00000000 fe:00 1234                       /usr/lib/x86_64-linux-gnu/libc.so.6
Rss:                 132 kB
Anonymous:             0 kB
7f0000100000-7f0000200000 r--p 00000000 fe:00 9977880                    /tmp/exp-run (deleted)
Rss:                  12 kB
7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]
Rss:                  16 kB
Anonymous:            16 kB
`

func TestOnlyTheExecutablesUnwrittenReadOnlySegmentsAreReleased(t *testing.T) {
	got := releasable(parseSmaps([]byte(collectorSmaps)), 0xfe, 0x00, 9977880)
	var ranges []string
	for _, m := range got {
		ranges = append(ranges, strconv.FormatUint(m.start, 16)+"-"+strconv.FormatUint(m.end, 16)+" "+strconv.FormatInt(m.rssKB, 10))
	}
	// Not the RELRO page (4 kB of the process's own), not the data segment, not libc, and not
	// a mapping whose smaps entry says nothing of anonymous pages.
	assert.Equal(t, []string{"400000-411000 68", "411000-26b8000 23260", "26b8000-4f4d000 21012"}, ranges)

	assert.Empty(t, releasable(parseSmaps([]byte(collectorSmaps)), 0xfe, 0x01, 9977880), "another device, the same inode")
	assert.Empty(t, parseSmaps([]byte("not smaps\nRss: 4 kB\n0-0 r--p 0 fe:00 1\n")))
}

// The test binary's own code and read-only data stop being resident, and the process runs on.
func TestReleaseUnmapsTheExecutablesPages(t *testing.T) {
	resident := func() int64 {
		b, err := os.ReadFile("/proc/self/smaps")
		require.NoError(t, err)
		var st unix.Stat_t
		require.NoError(t, unix.Stat("/proc/self/exe", &st))
		var kb int64
		for _, m := range releasable(parseSmaps(b), unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino) {
			kb += m.rssKB
		}
		return kb
	}
	before := resident()
	require.Greater(t, before, int64(1024), "the test binary has more than 1 MiB of its code resident")
	released, err := Release()
	require.NoError(t, err)
	assert.Greater(t, released, int64(1<<20), "Release reports what was resident (%d kB a moment before)", before)
	// What the test runs after the release faults back in at once, and a binary the linker
	// has just written sits in large page-cache folios that a fault maps whole (2.6 of 4.1
	// MiB once, in a clean clone's `make test`), so only a drop is certain here; the e2e test
	// TestStartupPagesAreGivenBack measures the collector started from a copy read from disk.
	after := resident()
	assert.Less(t, after, before, "resident kB of the executable's read-only segments: %d before, %d after", before, after)
}

// In a dynamically linked program, as the collector is (cgo, for NVML), the dynamic loader
// writes the GOT before it protects it read-only. Release keeps those pages: the program calls
// into libc after it and every mapping keeps its own pages.
func TestADynamicallyLinkedProgramKeepsItsRelocations(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no C compiler for the cgo program")
	}
	bin := filepath.Join(t.TempDir(), "cgoprobe")
	build := exec.Command("go", "build", "-o", bin, "./testdata/cgoprobe")
	build.Env = append(os.Environ(), "CGO_ENABLED=1")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	out, err = exec.Command(bin).CombinedOutput()
	require.NoError(t, err, "%s", out)

	text := string(out)
	_, rest, ok := strings.Cut(text, "--- before\n")
	require.True(t, ok, text)
	beforeText, afterText, ok := strings.Cut(rest, "--- after\n")
	require.True(t, ok, text)
	var st unix.Stat_t
	require.NoError(t, unix.Stat(bin, &st))
	own := func(s string) (maps []mapping) {
		for _, m := range parseSmaps([]byte(s)) {
			if m.inode == st.Ino {
				maps = append(maps, m)
			}
		}
		return maps
	}
	before, after := own(beforeText), own(afterText)
	require.Len(t, after, len(before))

	relro := 0
	for i := range before {
		if !before[i].writable && before[i].anonymousKB > 0 {
			relro++
		}
		assert.Equal(t, before[i].anonymousKB, after[i].anonymousKB, "the process's own pages of %x-%x", before[i].start, before[i].end)
	}
	assert.Equal(t, 1, relro, "a cgo binary has one read-only segment the loader wrote:\n%s", beforeText)
	assert.NotContains(t, text, "released 0\n")
}
