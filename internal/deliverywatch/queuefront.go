// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// The persistent queue (exporterhelper) appends the batches a stop interrupted behind those
// queued after them, and a backend without an out-of-order window then refuses them for good.
// Its layout (internal/queue/meta.proto) is read here; a record it cannot read is left as is.

package deliverywatch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/extension/xextension/storage"
	"go.opentelemetry.io/collector/pipeline"
	"google.golang.org/protobuf/encoding/protowire"
)

// metadataKey is the key of the queue's metadata record.
const metadataKey = "qmv0"

// restoreQueueFront moves the batches the persistent queue of owner for signal was sending at
// its last stop to the front of that queue, on storage storageID, in one transaction, and
// returns how many. A host without that storage moves nothing: the queue reports it.
func restoreQueueFront(ctx context.Context, host component.Host, storageID, owner component.ID, signal pipeline.Signal) (int, error) {
	ext, ok := host.GetExtensions()[storageID].(storage.Extension)
	if !ok {
		return 0, nil
	}
	client, err := ext.GetClient(ctx, component.KindExporter, owner, signal.String())
	if err != nil {
		return 0, err
	}
	n, err := restore(ctx, client)
	// The queue opens the same file when it starts, right after.
	return n, errors.Join(err, client.Close(ctx))
}

func restore(ctx context.Context, client storage.Client) (int, error) {
	buf, err := client.Get(ctx, metadataKey)
	if err != nil || len(buf) == 0 {
		return 0, err
	}
	m, err := decode(buf)
	if err != nil {
		return 0, fmt.Errorf("queue record %q: %w", metadataKey, err)
	}
	sent := slices.Clone(m.dispatched)
	slices.Sort(sent)
	sent = slices.Compact(sent)
	if len(sent) == 0 {
		return 0, nil
	}
	if sent[len(sent)-1] >= m.readIndex { // then, distinct, they are all below it
		return 0, fmt.Errorf("queue record %q: batches being sent %v, read index %d: not a queue this version writes", metadataKey, sent, m.readIndex)
	}
	gets := make([]*storage.Operation, len(sent))
	for i, idx := range sent {
		gets[i] = storage.GetOperation(itemKey(idx))
	}
	if err := client.Batch(ctx, gets...); err != nil {
		return 0, err
	}
	// A batch that is gone is dropped from the list, as the queue would.
	gets = slices.DeleteFunc(gets, func(op *storage.Operation) bool { return op.Value == nil })
	// The batches take the indexes just below the read index, oldest first. They move
	// highest first, so that no write lands on a batch not yet moved: each batch's old index
	// is at most its new one.
	first := m.readIndex - uint64(len(gets))
	ops := make([]*storage.Operation, 0, 2*len(gets)+1)
	for i := len(gets) - 1; i >= 0; i-- {
		if to := itemKey(first + uint64(i)); to != gets[i].Key {
			ops = append(ops, storage.SetOperation(to, gets[i].Value), storage.DeleteOperation(gets[i].Key))
		}
	}
	// The sizes already count them: the queue subtracts a batch's only once it is sent.
	m.readIndex, m.dispatched = first, nil
	ops = append(ops, storage.SetOperation(metadataKey, m.encode()))
	return len(gets), client.Batch(ctx, ops...)
}

func itemKey(index uint64) string { return strconv.FormatUint(index, 10) }

// metadata is exporterhelper's PersistentMetadata.
type metadata struct {
	itemsSize, bytesSize  int64  // 1, 2: sfixed64
	readIndex, writeIndex uint64 // 3, 4: fixed64
	dispatched            []uint64
}

const (
	fieldItemsSize  = 1
	fieldBytesSize  = 2
	fieldReadIndex  = 3
	fieldWriteIndex = 4
	fieldDispatched = 5 // repeated fixed64, packed or not
)

// decode reads a PersistentMetadata record; a field or wire type it does not know is an
// error, so that a record of another layout is never rewritten.
func decode(b []byte) (metadata, error) {
	var m metadata
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return m, protowire.ParseError(n)
		}
		b = b[n:]
		switch {
		case num >= fieldItemsSize && num <= fieldDispatched && typ == protowire.Fixed64Type:
			v, n := protowire.ConsumeFixed64(b)
			if n < 0 {
				return m, protowire.ParseError(n)
			}
			b = b[n:]
			switch num {
			case fieldItemsSize:
				m.itemsSize = int64(v)
			case fieldBytesSize:
				m.bytesSize = int64(v)
			case fieldReadIndex:
				m.readIndex = v
			case fieldWriteIndex:
				m.writeIndex = v
			default:
				m.dispatched = append(m.dispatched, v)
			}
		case num == fieldDispatched && typ == protowire.BytesType:
			packed, n := protowire.ConsumeBytes(b)
			if n < 0 || len(packed)%8 != 0 {
				return m, fmt.Errorf("field %d: a packed list of %d bytes", num, len(packed))
			}
			b = b[n:]
			for ; len(packed) > 0; packed = packed[8:] {
				v, _ := protowire.ConsumeFixed64(packed)
				m.dispatched = append(m.dispatched, v)
			}
		default:
			return m, fmt.Errorf("field %d of wire type %d: not in the layout of exporterhelper's persistent queue", num, typ)
		}
	}
	return m, nil
}

// encode writes m as proto.Marshal writes a PersistentMetadata: zero fields left out, the
// list packed.
func (m metadata) encode() []byte {
	var b []byte
	for _, f := range [...]struct {
		num protowire.Number
		v   uint64
	}{{fieldItemsSize, uint64(m.itemsSize)}, {fieldBytesSize, uint64(m.bytesSize)}, {fieldReadIndex, m.readIndex}, {fieldWriteIndex, m.writeIndex}} {
		if f.v != 0 {
			b = protowire.AppendTag(b, f.num, protowire.Fixed64Type)
			b = protowire.AppendFixed64(b, f.v)
		}
	}
	if len(m.dispatched) > 0 {
		b = protowire.AppendTag(b, fieldDispatched, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(8*len(m.dispatched)))
		for _, v := range m.dispatched {
			b = protowire.AppendFixed64(b, v)
		}
	}
	return b
}
