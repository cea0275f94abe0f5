// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package elfarch reads from a collector binary's ELF headers what packaging it needs: the
// Go architecture it was built for and the newest glibc symbol version it links.
package elfarch

import (
	"debug/elf"
	"fmt"
	"strconv"
	"strings"
)

// Arch is the binary's Go architecture, amd64 or arm64: the two the distribution ships.
func Arch(binary string) (string, error) {
	f, err := elf.Open(binary)
	if err != nil {
		return "", fmt.Errorf("%s: %w", binary, err)
	}
	defer f.Close()
	switch f.Machine {
	case elf.EM_X86_64:
		return "amd64", nil
	case elf.EM_AARCH64:
		return "arm64", nil
	}
	return "", fmt.Errorf("%s: ELF machine %s: the distribution is built for linux/amd64 and linux/arm64 only", binary, f.Machine)
}

// GLIBC is the newest glibc symbol version the binary imports ("2.34"), which is the oldest
// glibc it runs on; "" for a binary that imports none (a static build).
func GLIBC(binary string) (string, error) {
	f, err := elf.Open(binary)
	if err != nil {
		return "", fmt.Errorf("%s: %w", binary, err)
	}
	defer f.Close()
	syms, err := f.ImportedSymbols()
	if err != nil {
		return "", fmt.Errorf("%s: imported symbols: %w", binary, err)
	}
	newest := ""
	for _, s := range syms {
		v, ok := strings.CutPrefix(s.Version, "GLIBC_")
		if ok && newerThan(v, newest) {
			newest = v
		}
	}
	return newest, nil
}

// newerThan compares dotted versions number by number ("2.34" is newer than "2.3.2").
func newerThan(a, b string) bool {
	if b == "" {
		return a != ""
	}
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) || i < len(bs); i++ {
		x, y := 0, 0
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			return x > y
		}
	}
	return false
}
