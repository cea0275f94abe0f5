// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package pipeline

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"

	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pmetric"
)

// Serve answers requests from r on w until r ends. A request is two frames: the processor
// configs as a JSON object keyed by the IDs of Order, then the input as an OTLP
// ExportMetricsServiceRequest. The answer is one status byte (0 ok, 1 error) and one frame:
// the chain's output as OTLP, or the error's text. A frame is a big-endian uint32 length and
// that many bytes. Protobuf keeps every bit of a value, staleness markers' NaN included.
func Serve(r io.Reader, w io.Writer) error {
	in := bufio.NewReader(r)
	out := bufio.NewWriter(w)
	for {
		rawCfg, err := readFrame(in)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		rawMD, err := readFrame(in)
		if err != nil {
			return fmt.Errorf("reading the metrics frame: %w", err)
		}
		md, err := run(rawCfg, rawMD)
		if err != nil {
			err = answer(out, 1, []byte(err.Error()))
		} else {
			err = answer(out, 0, md)
		}
		if err != nil {
			return err
		}
	}
}

func run(rawCfg, rawMD []byte) ([]byte, error) {
	var procs map[string]any
	if err := json.Unmarshal(rawCfg, &procs); err != nil {
		return nil, fmt.Errorf("processor configs: %w", err)
	}
	md, err := (&pmetric.ProtoUnmarshaler{}).UnmarshalMetrics(rawMD)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	sink := new(consumertest.MetricsSink)
	c, err := New(procs, sink)
	if err != nil {
		return nil, err
	}
	err = c.ConsumeMetrics(context.Background(), md)
	if shutErr := c.Shutdown(); err == nil {
		err = shutErr
	}
	if err != nil {
		return nil, err
	}
	merged := pmetric.NewMetrics()
	for _, m := range sink.AllMetrics() {
		m.ResourceMetrics().MoveAndAppendTo(merged.ResourceMetrics())
	}
	return (&pmetric.ProtoMarshaler{}).MarshalMetrics(merged)
}

func readFrame(r io.Reader) ([]byte, error) {
	var n uint32
	if err := binary.Read(r, binary.BigEndian, &n); err != nil {
		return nil, err
	}
	b := make([]byte, n)
	_, err := io.ReadFull(r, b)
	return b, err
}

func answer(w *bufio.Writer, status byte, payload []byte) error {
	if err := w.WriteByte(status); err != nil {
		return err
	}
	if err := binary.Write(w, binary.BigEndian, uint32(len(payload))); err != nil {
		return err
	}
	if _, err := w.Write(payload); err != nil {
		return err
	}
	return w.Flush()
}
