// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package fakekubelet serves the kubelet's PodResources v1 API on a unix socket with a fixed
// list of pods: what the dcgm receiver's tests and gpu-check need to see pod attribution
// without a Kubernetes node.
package fakekubelet // import "github.com/modelplaneai/otelcol-modelplane/internal/testutil/fakekubelet"

import (
	"context"
	"net"
	"path/filepath"
	"sync"

	"google.golang.org/grpc"
	podresourcesv1 "k8s.io/kubelet/pkg/apis/podresources/v1"
)

// Kubelet is a running fake PodResources server.
type Kubelet struct {
	// Socket is the unix socket it listens on.
	Socket string
	srv    *grpc.Server
	lister *lister
}

type lister struct {
	podresourcesv1.UnimplementedPodResourcesListerServer
	mu   sync.Mutex
	pods []*podresourcesv1.PodResources
}

func (l *lister) List(context.Context, *podresourcesv1.ListPodResourcesRequest) (*podresourcesv1.ListPodResourcesResponse, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return &podresourcesv1.ListPodResourcesResponse{PodResources: l.pods}, nil
}

// Start serves pods on kubelet.sock in dir until Stop.
func Start(dir string, pods ...*podresourcesv1.PodResources) (*Kubelet, error) {
	sock := filepath.Join(dir, "kubelet.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return nil, err
	}
	srv := grpc.NewServer()
	l := &lister{pods: pods}
	podresourcesv1.RegisterPodResourcesListerServer(srv, l)
	go func() { _ = srv.Serve(ln) }()
	return &Kubelet{Socket: sock, srv: srv, lister: l}, nil
}

// SetPods replaces the pods served, as pods come and go on a node.
func (k *Kubelet) SetPods(pods ...*podresourcesv1.PodResources) {
	k.lister.mu.Lock()
	defer k.lister.mu.Unlock()
	k.lister.pods = pods
}

// Stop stops serving.
func (k *Kubelet) Stop() { k.srv.Stop() }

// Pod is a pod with one container holding devices of one resource.
func Pod(ns, name, container, resource string, ids ...string) *podresourcesv1.PodResources {
	return &podresourcesv1.PodResources{Name: name, Namespace: ns, Containers: []*podresourcesv1.ContainerResources{{
		Name: container, Devices: []*podresourcesv1.ContainerDevices{{ResourceName: resource, DeviceIds: ids}},
	}}}
}

// ClaimPod is a pod with one container holding devices through one DRA ResourceClaim, as the
// kubelet lists them: by driver, pool and device name.
func ClaimPod(ns, name, container, driver, pool string, devices ...string) *podresourcesv1.PodResources {
	claim := &podresourcesv1.DynamicResource{ClaimName: name + "-gpu", ClaimNamespace: ns}
	for _, d := range devices {
		claim.ClaimResources = append(claim.ClaimResources, &podresourcesv1.ClaimResource{
			DriverName: driver, PoolName: pool, DeviceName: d,
			CdiDevices: []*podresourcesv1.CDIDevice{{Name: "k8s." + driver + "/claim=" + name + "-" + d}},
		})
	}
	return &podresourcesv1.PodResources{Name: name, Namespace: ns, Containers: []*podresourcesv1.ContainerResources{{
		Name: container, DynamicResources: []*podresourcesv1.DynamicResource{claim},
	}}}
}
