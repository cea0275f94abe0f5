// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

//go:build linux

// Package pagecache reads and drops the kernel's page cache of a file.
//
// The end-to-end benchmark needs it: the pages of an executable that a process maps count in
// its RSS, and how many are mapped on a fault depends on how the file came into the page cache
// (a binary the linker has just written is mapped almost whole, most likely because it sits in
// large folios; one read back from disk is mapped a fault-around window at a time). Dropping
// both collectors' executables before every run makes each start the same way.
package pagecache

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Evict writes back and drops the cached pages of the file at path, then checks that none
// is left (pages a running process maps stay cached).
func Evict(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fd := int(f.Fd())
	if err := unix.Fdatasync(fd); err != nil {
		return fmt.Errorf("page cache of %s: fdatasync: %w", path, err)
	}
	if err := unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED); err != nil {
		return fmt.Errorf("page cache of %s: fadvise: %w", path, err)
	}
	cached, _, err := cachedPages(path)
	if err != nil {
		return err
	}
	if cached > 0 {
		return fmt.Errorf("page cache of %s: %d pages still cached after eviction (is a process running it?)", path, cached)
	}
	return nil
}

// CachedBytes says how many bytes of the file at path the page cache holds.
func CachedBytes(path string) (int64, error) {
	cached, _, err := cachedPages(path)
	return int64(cached) * int64(os.Getpagesize()), err
}

// cachedPages says how many pages of the file at path the page cache holds, of how many.
func cachedPages(path string) (cached, pages int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	if st.Size() == 0 {
		return 0, 0, nil
	}
	// Mapping a file faults nothing in; mincore then reports what is already cached.
	m, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return 0, 0, fmt.Errorf("page cache of %s: mmap: %w", path, err)
	}
	defer unix.Munmap(m)
	vec := make([]byte, (len(m)+os.Getpagesize()-1)/os.Getpagesize())
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		return 0, 0, fmt.Errorf("page cache of %s: mincore: %w", path, errno)
	}
	for _, v := range vec {
		cached += int(v & 1)
	}
	return cached, len(vec), nil
}
