// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package freeport

import (
	"net"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPortsAreDistinctAndFree(t *testing.T) {
	ports, err := Ports(5)
	require.NoError(t, err)
	require.Len(t, ports, 5)
	seen := map[int]bool{}
	for _, p := range ports {
		assert.False(t, seen[p], "port %d picked twice", p)
		seen[p] = true
		// Free: a server can bind it now.
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		require.NoError(t, err)
		require.NoError(t, ln.Close())
	}
}

func TestAddrIsALoopbackAddressAServerCanBind(t *testing.T) {
	addr := Addr(t)
	host, port, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1", host)
	assert.NotEqual(t, "0", port)
	ln, err := net.Listen("tcp", addr)
	require.NoError(t, err)
	require.NoError(t, ln.Close())
}

// Picked ports lie below the kernel's ephemeral range, which outgoing connections draw from.
func TestPortsAreBelowTheEphemeralRange(t *testing.T) {
	low, high := belowEphemeral()
	if high == 0 {
		t.Skipf("%s not readable here, or no room below it", portRange)
	}
	ports, err := Ports(20)
	require.NoError(t, err)
	for _, p := range ports {
		assert.GreaterOrEqual(t, p, low)
		assert.Less(t, p, high, "port %d is in the ephemeral range", p)
	}
}
