//go:build linux

package startuppages

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Release unmaps the read-only segments of the executable that hold no page of the process's
// own (MADV_DONTNEED) and returns how many bytes of them were resident. A writable segment, or
// a read-only one that the dynamic loader wrote before protecting it (the RELRO segment with
// the GOT of a cgo binary), holds the process's own copies of pages: dropping those would put
// the file's bytes back in place of the relocated pointers, so Release leaves them alone.
func Release() (residentBytes int64, err error) {
	return advise(unix.MADV_DONTNEED)
}

// Settle ends the release once the collector runs: it drops from the page cache the
// executable's pages that no process maps any more (POSIX_FADV_DONTNEED leaves mapped pages
// alone), and moves the pages the collector mapped again to the inactive list
// (MADV_COLD), where they were before the release. A page that is read again after it was
// unmapped counts as used twice and becomes active, and the kubelet's working set
// (container_memory_working_set_bytes, what `kubectl top` shows) counts active page-cache
// pages charged to the pod: without this, a pod that read the executable into the page cache
// itself would show more working set after a release than without one.
func Settle() error {
	f, err := os.Open("/proc/self/exe")
	if err != nil {
		return fmt.Errorf("startup pages: %w", err)
	}
	defer f.Close()
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		return fmt.Errorf("startup pages: fadvise: %w", err)
	}
	_, err = advise(unix.MADV_COLD)
	if errors.Is(err, unix.EINVAL) {
		// Kernels before 5.4 (RHEL 8's 4.18) have no MADV_COLD: the pages mapped again stay
		// active; the page cache was dropped all the same, so this is not a failure.
		return nil
	}
	return err
}

// advise gives the advice for the executable's read-only segments that hold only the file's
// pages.
func advise(advice int) (residentBytes int64, err error) {
	var st unix.Stat_t
	if err := unix.Stat("/proc/self/exe", &st); err != nil {
		return 0, fmt.Errorf("startup pages: %w", err)
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0, fmt.Errorf("startup pages: %w", err)
	}
	for _, m := range releasable(parseSmaps(smaps), unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino) {
		if _, _, e := unix.Syscall(unix.SYS_MADVISE, uintptr(m.start), uintptr(m.end-m.start), uintptr(advice)); e != 0 {
			return residentBytes, fmt.Errorf("startup pages: madvise(%d) %x-%x: %w", advice, m.start, m.end, e)
		}
		residentBytes += m.rssKB * 1024
	}
	return residentBytes, nil
}

// mapping is one entry of /proc/self/smaps.
type mapping struct {
	start, end         uint64
	writable           bool
	devMajor, devMinor uint32
	inode              uint64
	rssKB              int64
	// anonymousKB is the mapping's pages that are the process's own rather than the file's;
	// -1 when smaps did not say.
	anonymousKB int64
}

// releasable returns the mappings of the file (dev, inode) that are read-only and hold only
// the file's pages.
func releasable(maps []mapping, devMajor, devMinor uint32, inode uint64) []mapping {
	var out []mapping
	for _, m := range maps {
		if m.inode == inode && m.devMajor == devMajor && m.devMinor == devMinor && !m.writable && m.anonymousKB == 0 {
			out = append(out, m)
		}
	}
	return out
}

// parseSmaps reads the header line and the Rss and Anonymous fields of each mapping.
func parseSmaps(b []byte) []mapping {
	var out []mapping
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if m, ok := parseHeader(fields); ok {
			out = append(out, m)
			continue
		}
		if len(out) == 0 || len(fields) < 2 {
			continue
		}
		kb, err := strconv.ParseInt(fields[1], 10, 64)
		if err != nil {
			continue
		}
		switch fields[0] {
		case "Rss:":
			out[len(out)-1].rssKB = kb
		case "Anonymous:":
			out[len(out)-1].anonymousKB = kb
		}
	}
	return out
}

// parseHeader reads "start-end perms offset major:minor inode [path]".
func parseHeader(fields []string) (mapping, bool) {
	if len(fields) < 5 {
		return mapping{}, false
	}
	lo, hi, ok := strings.Cut(fields[0], "-")
	if !ok {
		return mapping{}, false
	}
	major, minor, ok := strings.Cut(fields[3], ":")
	if !ok {
		return mapping{}, false
	}
	start, err1 := strconv.ParseUint(lo, 16, 64)
	end, err2 := strconv.ParseUint(hi, 16, 64)
	devMajor, err3 := strconv.ParseUint(major, 16, 32)
	devMinor, err4 := strconv.ParseUint(minor, 16, 32)
	inode, err5 := strconv.ParseUint(fields[4], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || err5 != nil || end <= start || len(fields[1]) != 4 {
		return mapping{}, false
	}
	return mapping{
		start: start, end: end, writable: fields[1][1] == 'w',
		devMajor: uint32(devMajor), devMinor: uint32(devMinor), inode: inode,
		anonymousKB: -1,
	}, true
}
