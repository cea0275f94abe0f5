// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package freeport picks loopback TCP ports that nothing listens on, for servers started
// next: a test's Prometheus, engines and collectors, or the collector a preview runs.
package freeport // import "github.com/modelplaneai/otelcol-modelplane/internal/testutil/freeport"

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// lowest is the lowest port picked: above the well-known and most registered services.
const lowest = 10000

// portRange is the kernel's range of ephemeral ports, read once.
const portRange = "/proc/sys/net/ipv4/ip_local_port_range"

// Ports returns n distinct ports on 127.0.0.1 that nothing listens on now, from below the
// kernel's ephemeral range where there is room: a port ":0" hands out is also the local
// port of the next outgoing connection, which could take it first.
func Ports(n int) ([]int, error) {
	listeners := make([]net.Listener, 0, n)
	defer func() {
		for _, ln := range listeners {
			ln.Close()
		}
	}()
	ports := make([]int, 0, n)
	low, high := belowEphemeral()
	for range n {
		ln, err := listenBelow(low, high)
		if err != nil {
			return nil, err
		}
		listeners = append(listeners, ln)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// belowEphemeral is [lowest, the first ephemeral port), or an empty range where the kernel's
// range cannot be read or leaves no room.
func belowEphemeral() (low, high int) {
	data, err := os.ReadFile(portRange)
	if err != nil {
		return 0, 0
	}
	fields := strings.Fields(string(data))
	if len(fields) != 2 {
		return 0, 0
	}
	first, err := strconv.Atoi(fields[0])
	if err != nil || first-lowest < 1000 {
		return 0, 0
	}
	return lowest, first
}

// listenBelow listens on a random free port in [low, high), or on one the kernel picks where
// the range is empty or every try finds its port taken.
func listenBelow(low, high int) (net.Listener, error) {
	for try := 0; high > low && try < 50; try++ {
		port := low + rand.IntN(high-low)
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err == nil {
			return ln, nil
		}
		if !errors.Is(err, syscall.EADDRINUSE) {
			break
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("finding a free port on 127.0.0.1: %w", err)
	}
	return ln, nil
}

// T is the part of *testing.T that Port and Addr use; the package does not import testing,
// as the collector's preview command links it.
type T interface {
	Helper()
	Fatalf(format string, args ...any)
}

// Port is a port on 127.0.0.1 that nothing listens on now; it fails the test if there is none.
func Port(t T) int {
	t.Helper()
	ports, err := Ports(1)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return ports[0]
}

// Addr is "127.0.0.1:<port>" of a port that nothing listens on now.
func Addr(t T) string {
	t.Helper()
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(Port(t)))
}
