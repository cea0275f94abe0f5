// Package freeport picks loopback TCP ports that nothing listens on, for servers started
// next: a test's Prometheus, engines and collectors, or the collector a preview runs.
package freeport // import "github.com/modelplaneai/otelcol-modelplane/internal/freeport"

import (
	"fmt"
	"net"
	"strconv"
)

// Ports returns n distinct ports on 127.0.0.1 that nothing listens on now. Each is held until
// all are picked, so they differ; another process may still take one before the caller
// binds it, which is accepted on loopback.
func Ports(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("finding a free port on 127.0.0.1: %w", err)
		}
		defer ln.Close()
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
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
