// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

//go:build cgo

package dcgmreceiver

import (
	"sync"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"go.uber.org/zap"
)

// xidWatcher records the last XID error of each GPU from NVML events, for
// DCGM_FI_DEV_XID_ERRORS ("value of the last XID error encountered", 0 before any).
type xidWatcher struct {
	set  nvml.EventSet
	stop chan struct{}
	done sync.WaitGroup

	mu   sync.Mutex
	last map[string]uint64 // by GPU UUID
}

// watchXID registers every GPU for critical XID events and waits for them in the background.
// GPUs that cannot deliver events are logged once and simply report 0.
func watchXID(lib nvml.Interface, logger *zap.Logger) *xidWatcher {
	set, ret := lib.EventSetCreate()
	if ret != nvml.SUCCESS {
		logger.Warn("No XID events: cannot create an NVML event set", zap.String("reason", nvml.ErrorString(ret)))
		return nil
	}
	w := &xidWatcher{set: set, stop: make(chan struct{}), last: map[string]uint64{}}
	n, _ := lib.DeviceGetCount()
	for i := 0; i < n; i++ {
		dev, ret := lib.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			continue
		}
		if ret := dev.RegisterEvents(nvml.EventTypeXidCriticalError, set); ret != nvml.SUCCESS {
			uuid, _ := dev.GetUUID()
			logger.Info("GPU cannot report XID events", zap.String("UUID", uuid), zap.String("reason", nvml.ErrorString(ret)))
		}
	}
	w.done.Add(1)
	go w.run()
	return w
}

func (w *xidWatcher) run() {
	defer w.done.Done()
	for {
		select {
		case <-w.stop:
			return
		default:
		}
		// A short wait keeps shutdown prompt; NVML keeps events that arrive meanwhile.
		data, ret := w.set.Wait(200)
		if ret != nvml.SUCCESS || data.EventType != nvml.EventTypeXidCriticalError || data.Device == nil {
			continue
		}
		uuid, ret := data.Device.GetUUID()
		if ret != nvml.SUCCESS {
			continue
		}
		w.mu.Lock()
		w.last[uuid] = data.EventData
		w.mu.Unlock()
	}
}

func (w *xidWatcher) lastXID(uuid string) float64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return float64(w.last[uuid])
}

func (w *xidWatcher) close() {
	close(w.stop)
	w.done.Wait()
	_ = w.set.Free()
}
