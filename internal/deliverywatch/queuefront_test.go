// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

package deliverywatch

import (
	"context"
	"testing"

	"github.com/open-telemetry/opentelemetry-collector-contrib/extension/storage/filestorage"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/extension/extensiontest"
	"go.opentelemetry.io/collector/extension/xextension/storage"
	"go.opentelemetry.io/collector/pipeline"
	"google.golang.org/protobuf/encoding/protowire"
)

var (
	owner     = component.MustNewID("prometheus_remote_write")
	storageID = component.MustNewID("file_storage")
)

type host map[component.ID]component.Component

func (h host) GetExtensions() map[component.ID]component.Component { return h }

// queueOnDisk starts a real file_storage extension on a fresh folder, writes the queue
// record m and the batches of items there, as the exporter's queue would, and returns the
// host that holds the extension and a function that reads the queue back.
func queueOnDisk(t *testing.T, m metadata, items map[uint64]string) (host, func() (metadata, map[string]string)) {
	t.Helper()
	// deliverywatchtest's StartFileStorage imports this package, through deliverywatch.
	f := filestorage.NewFactory()
	cfg := f.CreateDefaultConfig().(*filestorage.Config)
	cfg.Directory = t.TempDir()
	ext, err := f.Create(context.Background(), extensiontest.NewNopSettings(f.Type()), cfg)
	require.NoError(t, err)
	require.NoError(t, ext.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() { assert.NoError(t, ext.Shutdown(context.Background())) })
	open := func() storage.Client {
		c, err := ext.(storage.Extension).GetClient(context.Background(), component.KindExporter, owner, pipeline.SignalMetrics.String())
		require.NoError(t, err)
		return c
	}
	c := open()
	ops := []*storage.Operation{storage.SetOperation(metadataKey, m.encode())}
	for i, v := range items {
		ops = append(ops, storage.SetOperation(itemKey(i), []byte(v)))
	}
	require.NoError(t, c.Batch(context.Background(), ops...))
	require.NoError(t, c.Close(context.Background()))
	return host{storageID: ext}, func() (metadata, map[string]string) {
		c := open()
		defer func() { require.NoError(t, c.Close(context.Background())) }()
		buf, err := c.Get(context.Background(), metadataKey)
		require.NoError(t, err)
		got, err := decode(buf)
		require.NoError(t, err)
		stored := map[string]string{}
		for i := range uint64(16) { // every index the tests use
			v, err := c.Get(context.Background(), itemKey(i))
			require.NoError(t, err)
			if v != nil {
				stored[itemKey(i)] = string(v)
			}
		}
		return got, stored
	}
}

func restoreOn(t *testing.T, h host) (int, error) {
	t.Helper()
	return restoreQueueFront(context.Background(), h, storageID, owner, pipeline.SignalMetrics)
}

// One consumer was sending batch 4 at the stop; 5 to 7 waited. The queue reads 4 first now,
// where exporterhelper would have written it again as 8, after 7.
func TestTheBatchInFlightGoesFirst(t *testing.T) {
	h, read := queueOnDisk(t, metadata{itemsSize: 4, bytesSize: 400, readIndex: 5, writeIndex: 8, dispatched: []uint64{4}},
		map[uint64]string{4: "four", 5: "five", 6: "six", 7: "seven"})
	n, err := restoreOn(t, h)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	m, items := read()
	assert.Equal(t, metadata{itemsSize: 4, bytesSize: 400, readIndex: 4, writeIndex: 8}, m, "the sizes already counted it")
	assert.Equal(t, map[string]string{"4": "four", "5": "five", "6": "six", "7": "seven"}, items)
}

// Several consumers, with batches finished between the ones in flight: these take the
// indexes just below the read index, oldest first, and nothing else moves.
func TestBatchesInFlightGoFirstOldestFirst(t *testing.T) {
	h, read := queueOnDisk(t, metadata{itemsSize: 5, readIndex: 6, writeIndex: 8, dispatched: []uint64{5, 1, 3}},
		map[uint64]string{1: "one", 3: "three", 5: "five", 6: "six", 7: "seven"})
	n, err := restoreOn(t, h)
	require.NoError(t, err)
	assert.Equal(t, 3, n)
	m, items := read()
	assert.Equal(t, metadata{itemsSize: 5, readIndex: 3, writeIndex: 8}, m)
	assert.Equal(t, map[string]string{"3": "one", "4": "three", "5": "five", "6": "six", "7": "seven"}, items)
}

// A batch in the list that is gone from the storage is left out, as the queue leaves it out.
func TestABatchInFlightThatIsGoneIsLeftOut(t *testing.T) {
	h, read := queueOnDisk(t, metadata{readIndex: 4, writeIndex: 5, dispatched: []uint64{2, 3}},
		map[uint64]string{2: "two", 4: "four"})
	n, err := restoreOn(t, h)
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	m, items := read()
	assert.Equal(t, metadata{readIndex: 3, writeIndex: 5}, m)
	assert.Equal(t, map[string]string{"3": "two", "4": "four"}, items)
}

func TestNothingInFlightChangesNothing(t *testing.T) {
	before := metadata{itemsSize: 2, readIndex: 3, writeIndex: 5}
	h, read := queueOnDisk(t, before, map[uint64]string{3: "three", 4: "four"})
	n, err := restoreOn(t, h)
	require.NoError(t, err)
	assert.Zero(t, n)
	m, items := read()
	assert.Equal(t, before, m)
	assert.Equal(t, map[string]string{"3": "three", "4": "four"}, items)
}

// A record this package cannot read is named in the error and left as it was.
func TestARecordOfAnotherLayoutIsLeftAsItIs(t *testing.T) {
	h, read := queueOnDisk(t, metadata{readIndex: 2, writeIndex: 4, dispatched: []uint64{7}},
		map[uint64]string{7: "seven", 2: "two", 3: "three"})
	_, err := restoreOn(t, h)
	require.EqualError(t, err, `queue record "qmv0": batches being sent [7], read index 2: not a queue this version writes`)
	m, items := read()
	assert.Equal(t, metadata{readIndex: 2, writeIndex: 4, dispatched: []uint64{7}}, m)
	assert.Equal(t, map[string]string{"7": "seven", "2": "two", "3": "three"}, items)
}

func TestAHostWithoutTheStorageMovesNothing(t *testing.T) {
	n, err := restoreQueueFront(context.Background(), componenttest.NewNopHost(), storageID, owner, pipeline.SignalMetrics)
	require.NoError(t, err)
	assert.Zero(t, n)
}

func TestDecodeReadsWhatProtobufWrites(t *testing.T) {
	m := metadata{itemsSize: -1, bytesSize: 1 << 40, readIndex: 7, writeIndex: 9, dispatched: []uint64{6, 5}}
	got, err := decode(m.encode())
	require.NoError(t, err)
	assert.Equal(t, m, got)

	// A list written unpacked, as an older encoder may.
	var b []byte
	b = protowire.AppendTag(b, fieldReadIndex, protowire.Fixed64Type)
	b = protowire.AppendFixed64(b, 3)
	for _, v := range []uint64{1, 2} {
		b = protowire.AppendTag(b, fieldDispatched, protowire.Fixed64Type)
		b = protowire.AppendFixed64(b, v)
	}
	got, err = decode(b)
	require.NoError(t, err)
	assert.Equal(t, metadata{readIndex: 3, dispatched: []uint64{1, 2}}, got)

	b = protowire.AppendTag(nil, 6, protowire.VarintType)
	b = protowire.AppendVarint(b, 1)
	_, err = decode(b)
	require.EqualError(t, err, "field 6 of wire type 0: not in the layout of exporterhelper's persistent queue")

	b = protowire.AppendTag(nil, fieldDispatched, protowire.BytesType)
	b = protowire.AppendBytes(b, []byte{1, 2, 3})
	_, err = decode(b)
	require.EqualError(t, err, "field 5: a packed list of 3 bytes")
}

// decode never panics, and what it reads it writes back the same.
func FuzzDecode(f *testing.F) {
	f.Add(metadata{itemsSize: 3, readIndex: 7, writeIndex: 9, dispatched: []uint64{6}}.encode())
	f.Add([]byte{0x2a, 0x08, 1, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{0x29})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decode(b)
		if err != nil {
			return
		}
		again, err := decode(m.encode())
		require.NoError(t, err)
		if len(m.dispatched) == 0 {
			m.dispatched = nil
		}
		assert.Equal(t, m, again)
	})
}
