// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

//go:build linux

package pagecache

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

func TestEvictDropsEveryPage(t *testing.T) {
	dir := t.TempDir()
	var fs unix.Statfs_t
	if err := unix.Statfs(dir, &fs); err != nil {
		t.Fatal(err)
	}
	if fs.Type == unix.TMPFS_MAGIC {
		t.Skip("tmpfs keeps its pages in memory: there is no cache to drop")
	}
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, bytes.Repeat([]byte("x"), 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := os.ReadFile(path); err != nil {
		t.Fatal(err)
	}
	cached, pages, err := cachedPages(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := (1 << 20) / os.Getpagesize(); pages != want || cached != pages {
		t.Fatalf("after reading: %d of %d pages cached, want %d of %d", cached, pages, want, want)
	}
	if err := Evict(path); err != nil {
		t.Fatal(err)
	}
	if cached, _, err = cachedPages(path); err != nil || cached != 0 {
		t.Fatalf("after Evict: %d pages cached (err %v), want 0", cached, err)
	}
}

func TestEvictNamesAMissingFile(t *testing.T) {
	err := Evict(filepath.Join(t.TempDir(), "absent"))
	if err == nil || !os.IsNotExist(err) {
		t.Fatalf("Evict of a missing file: %v, want a not-exist error", err)
	}
}
