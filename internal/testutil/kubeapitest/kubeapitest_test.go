// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package kubeapitest

import (
	"context"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/freeport"
)

// A port taken between its pick and the server's bind (CI saw etcd's, "bind: address already
// in use") fails that launch only: Start tries new ports and the test gets a server.
func TestStartTriesNewPortsWhenOneIsTaken(t *testing.T) {
	for _, tc := range []struct {
		name  string
		taken int // index in the picked ports: 0 the server's, 1 etcd's
	}{
		{"etcd's port", 1},
		{"the server's port", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			defer ln.Close()
			taken := ln.Addr().(*net.TCPAddr).Port

			picks := 0
			old := pickPorts
			t.Cleanup(func() { pickPorts = old })
			pickPorts = func() ([]int, error) {
				picks++
				ports, err := freeport.Ports(3)
				if picks == 1 && err == nil {
					ports[tc.taken] = taken
				}
				return ports, err
			}

			s := Start(t)
			assert.Equal(t, 2, picks, "one launch on the taken port, one on new ports")
			assert.NotEqual(t, taken, s.port)
			_, err = s.Client.Resource(MetricMappings).List(context.Background(), metav1.ListOptions{})
			assert.NoError(t, err, "the second launch serves MetricMappings")
		})
	}
}
