// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package dcgmreceiver

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	podresourcesv1 "k8s.io/kubelet/pkg/apis/podresources/v1"
)

// owner is the pod container a device is allocated to.
type owner struct {
	Pod, Namespace, Container string
}

// deviceKey names a GPU or MIG device the way the kubelet's device plugins report it,
// normalised: a GPU or MIG UUID, or for GKE's plugin the GPU minor number and the GPU
// instance ("minor:3" or "minor:3/gi:1").
type deviceKey string

// keysFor parses a device ID of the nvidia.com/gpu or nvidia.com/mig-* resources:
// "GPU-<uuid>", "MIG-<uuid>", GKE's "nvidia0" and "nvidia0/gi1", and the "::N" suffix of a
// time-sliced replica.
func keysFor(id string) (deviceKey, bool) {
	if i := strings.Index(id, "::"); i >= 0 {
		id = id[:i]
	}
	switch {
	case strings.HasPrefix(id, "GPU-"), strings.HasPrefix(id, "MIG-"):
		return deviceKey(id), true
	case strings.HasPrefix(id, "nvidia"):
		rest := strings.TrimPrefix(id, "nvidia")
		minor, gi, hasGI := strings.Cut(rest, "/gi")
		if _, err := strconv.Atoi(minor); err != nil {
			return "", false
		}
		if hasGI {
			if _, err := strconv.Atoi(gi); err != nil {
				return "", false
			}
			return deviceKey("minor:" + minor + "/gi:" + gi), true
		}
		return deviceKey("minor:" + minor), true
	}
	return "", false
}

func minorKey(minor int) deviceKey { return deviceKey("minor:" + strconv.Itoa(minor)) }

func migMinorKey(minor, gi int) deviceKey {
	return deviceKey("minor:" + strconv.Itoa(minor) + "/gi:" + strconv.Itoa(gi))
}

// draDriver is NVIDIA's DRA driver for GPUs. Its devices are named by the GPU's minor number
// ("gpu-3"); a MIG device adds its profile ID and placement start, as "gpu-3-mig-1g10gb-19-4"
// since dynamic MIG support and "gpu-3-mig-19-4-1" before.
const draDriver = "gpu.nvidia.com"

// draKeyFor parses the device name of a DRA allocation by NVIDIA's GPU driver. Other
// drivers' devices (and this driver's VFIO passthrough devices, which NVML on the host does
// not read) are not GPUs this receiver reports.
func draKeyFor(driver, device string) (deviceKey, bool) {
	rest, ok := strings.CutPrefix(device, "gpu-")
	if driver != draDriver || !ok {
		return "", false
	}
	minor, mig, isMIG := strings.Cut(rest, "-mig-")
	if !isDecimal(minor) {
		return "", false
	}
	if !isMIG {
		return deviceKey("minor:" + minor), true
	}
	parts := strings.Split(mig, "-")
	n := len(parts)
	if n < 3 {
		return "", false
	}
	profile, start := parts[n-2], parts[n-1]
	if isDecimal(parts[0]) && n == 3 {
		profile, start = parts[0], parts[1] // ID, start, size
	} else if isDecimal(parts[0]) && isDecimal(parts[1]) {
		return "", false // neither form: a name starts with its instance count, "1g"
	}
	if !isDecimal(profile) || !isDecimal(start) || !isDecimal(parts[n-1]) {
		return "", false
	}
	return deviceKey("minor:" + minor + "/mig:" + profile + "@" + start), true
}

func isDecimal(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// migPlacementKey is the key under which a DRA allocation names a MIG device: its parent's
// minor number, its GPU instance profile ID and its placement start.
func migPlacementKey(minor int, profile, start uint32) deviceKey {
	return deviceKey(fmt.Sprintf("minor:%d/mig:%d@%d", minor, profile, start))
}

func isGPUResource(name string) bool {
	return name == "nvidia.com/gpu" || strings.HasPrefix(name, "nvidia.com/mig-") || strings.HasPrefix(name, "nvidia.com/gpu.")
}

// podResources reads device allocations from the kubelet.
type podResources struct {
	socket string
	conn   *grpc.ClientConn
	client podresourcesv1.PodResourcesListerClient
}

// available reports whether the socket exists: outside Kubernetes it does not, and pod
// attribution is simply off.
func (p *podResources) available() bool {
	st, err := os.Stat(p.socket)
	return err == nil && st.Mode()&os.ModeSocket != 0
}

// owners lists who holds each device, allocated by a device plugin or, where the kubelet
// lists DRA allocations, by NVIDIA's DRA driver. A shared device has several owners.
func (p *podResources) owners(ctx context.Context) (map[deviceKey][]owner, error) {
	if p.client == nil {
		conn, err := grpc.NewClient("unix://"+p.socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			return nil, fmt.Errorf("pod resources %s: %w", p.socket, err)
		}
		p.conn, p.client = conn, podresourcesv1.NewPodResourcesListerClient(conn)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp, err := p.client.List(ctx, &podresourcesv1.ListPodResourcesRequest{})
	if err != nil {
		return nil, fmt.Errorf("pod resources %s: %w", p.socket, err)
	}
	out := map[deviceKey][]owner{}
	for _, pod := range resp.GetPodResources() {
		for _, c := range pod.GetContainers() {
			for _, d := range c.GetDevices() {
				if !isGPUResource(d.GetResourceName()) {
					continue
				}
				for _, id := range d.GetDeviceIds() {
					if k, ok := keysFor(id); ok {
						out[k] = append(out[k], owner{Pod: pod.GetName(), Namespace: pod.GetNamespace(), Container: c.GetName()})
					}
				}
			}
			for _, claim := range c.GetDynamicResources() {
				for _, r := range claim.GetClaimResources() {
					if k, ok := draKeyFor(r.GetDriverName(), r.GetDeviceName()); ok {
						out[k] = append(out[k], owner{Pod: pod.GetName(), Namespace: pod.GetNamespace(), Container: c.GetName()})
					}
				}
			}
		}
	}
	for k := range out {
		sort.Slice(out[k], func(i, j int) bool {
			a, b := out[k][i], out[k][j]
			return a.Namespace+"/"+a.Pod+"/"+a.Container < b.Namespace+"/"+b.Pod+"/"+b.Container
		})
	}
	return out, nil
}

func (p *podResources) close() error {
	if p.conn != nil {
		return p.conn.Close()
	}
	return nil
}
