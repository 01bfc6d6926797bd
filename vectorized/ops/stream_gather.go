package ops

import (
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// rowRef addresses a row kept in an operator's state: the index of the
// batch it came with and the row within it.
type rowRef struct {
	batch int32
	row   int32
}

// noRef marks a NULL-padded output row.
var noRef = rowRef{batch: -1, row: -1}

// gatherRefs builds the array whose element k is column col of the row
// refs[k] among batches (NULL for noRef). Fixed-width, boolean, string
// and binary columns are copied directly; other types go through Go
// values (t is the column's SQL type).
func gatherRefs(batches []arrow.RecordBatch, col int, t types.Type, dt arrow.DataType, refs []rowRef) (arrow.Array, error) {
	mem := vectorized.Mem
	// All rows from one batch (or none): the plain gather.
	single := int32(-1)
	for _, r := range refs {
		if r.batch < 0 {
			continue
		}
		if single == -1 {
			single = r.batch
		} else if single != r.batch {
			single = -2
			break
		}
	}
	if single >= 0 {
		idx := make([]int32, len(refs))
		for k, r := range refs {
			idx[k] = r.row
		}
		return GatherArray(batches[single].Column(col), idx)
	}
	if single == -1 {
		return array.MakeArrayOfNull(mem, dt, len(refs)), nil
	}
	switch dt.ID() {
	case arrow.BOOL:
		b := array.NewBooleanBuilder(mem)
		defer b.Release()
		b.Reserve(len(refs))
		for _, r := range refs {
			if r.batch < 0 {
				b.AppendNull()
				continue
			}
			a := batches[r.batch].Column(col).(*array.Boolean)
			if a.IsNull(int(r.row)) {
				b.AppendNull()
			} else {
				b.Append(a.Value(int(r.row)))
			}
		}
		return b.NewArray(), nil
	case arrow.STRING:
		b := array.NewStringBuilder(mem)
		defer b.Release()
		b.Reserve(len(refs))
		for _, r := range refs {
			if r.batch < 0 || batches[r.batch].Column(col).IsNull(int(r.row)) {
				b.AppendNull()
				continue
			}
			b.Append(batches[r.batch].Column(col).(*array.String).Value(int(r.row)))
		}
		return b.NewArray(), nil
	case arrow.BINARY:
		b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
		defer b.Release()
		b.Reserve(len(refs))
		for _, r := range refs {
			if r.batch < 0 || batches[r.batch].Column(col).IsNull(int(r.row)) {
				b.AppendNull()
				continue
			}
			b.Append(batches[r.batch].Column(col).(*array.Binary).Value(int(r.row)))
		}
		return b.NewArray(), nil
	}
	if fw, ok := dt.(arrow.FixedWidthDataType); ok {
		switch fw.BitWidth() {
		case 8:
			return gatherRefsFixed[uint8](mem, batches, col, dt, refs), nil
		case 16:
			return gatherRefsFixed[uint16](mem, batches, col, dt, refs), nil
		case 32:
			return gatherRefsFixed[uint32](mem, batches, col, dt, refs), nil
		case 64:
			return gatherRefsFixed[uint64](mem, batches, col, dt, refs), nil
		case 128:
			return gatherRefsFixed[[2]uint64](mem, batches, col, dt, refs), nil
		case 256:
			return gatherRefsFixed[[4]uint64](mem, batches, col, dt, refs), nil
		}
	}
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	for _, r := range refs {
		var v any
		if r.batch >= 0 {
			v = types.GetValue(batches[r.batch].Column(col), int(r.row), t)
		}
		if err := types.AppendValue(b, v, t); err != nil {
			return nil, fmt.Errorf("gather %s: %w", t, err)
		}
	}
	return b.NewArray(), nil
}

func gatherRefsFixed[T any](mem memory.Allocator, batches []arrow.RecordBatch, col int, dt arrow.DataType, refs []rowRef) arrow.Array {
	out := make([]T, len(refs))
	var bits []byte
	nulls := 0
	var z T
	size := int(unsafe.Sizeof(z))
	for k, r := range refs {
		var a arrow.Array
		if r.batch >= 0 {
			a = batches[r.batch].Column(col)
		}
		if a == nil || a.IsNull(int(r.row)) {
			if bits == nil {
				bits = make([]byte, bitutil.BytesForBits(int64(len(refs))))
				for j := 0; j < k; j++ {
					bitutil.SetBit(bits, j)
				}
			}
			nulls++
			continue
		}
		d := a.Data()
		raw := d.Buffers()[1].Bytes()
		vals := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(raw))), len(raw)/size)
		out[k] = vals[d.Offset()+int(r.row)]
		if bits != nil {
			bitutil.SetBit(bits, k)
		}
	}
	var outBytes []byte
	if len(out) > 0 {
		outBytes = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(out))), len(out)*size)
	}
	nd := array.NewData(dt, len(refs), []*memory.Buffer{bufOrNil(bits), memory.NewBufferBytes(outBytes)}, nil, nulls, 0)
	defer nd.Release()
	return array.MakeFromData(nd)
}
