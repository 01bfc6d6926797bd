package ops

import (
	"context"
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/vectorized"
)

// Gather builds a record batch of schema out whose row k is row idx[k] of
// rec, or all NULL when idx[k] is negative (the padding of outer joins).
// Indexes must be < rec.NumRows().
func Gather(rec arrow.RecordBatch, idx []int32, out *arrow.Schema) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, rec.NumCols())
	for c := range cols {
		a, err := GatherArray(rec.Column(c), idx)
		if err != nil {
			return nil, err
		}
		cols[c] = a
	}
	if out == nil {
		out = rec.Schema()
	}
	return NewRecord(out, cols, int64(len(idx)))
}

// GatherArray returns the array whose element k is a[idx[k]], or NULL when
// idx[k] is negative. Fixed-width, boolean, string and binary arrays are
// gathered by tight loops; lists, maps and structs recursively.
func GatherArray(a arrow.Array, idx []int32) (arrow.Array, error) {
	mem := vectorized.Mem
	d := a.Data()
	switch a.DataType().ID() {
	case arrow.NULL:
		return array.NewNull(len(idx)), nil
	case arrow.BOOL:
		return gatherBool(mem, a.(*array.Boolean), idx), nil
	case arrow.STRING, arrow.BINARY:
		return gatherBinary(mem, a, idx), nil
	}
	if fw, ok := a.DataType().(arrow.FixedWidthDataType); ok && len(d.Buffers()) == 2 {
		switch fw.BitWidth() {
		case 8:
			return gatherFixed[uint8](mem, a, idx), nil
		case 16:
			return gatherFixed[uint16](mem, a, idx), nil
		case 32:
			return gatherFixed[uint32](mem, a, idx), nil
		case 64:
			return gatherFixed[uint64](mem, a, idx), nil
		case 128:
			return gatherFixed[[2]uint64](mem, a, idx), nil
		case 256:
			return gatherFixed[[4]uint64](mem, a, idx), nil
		}
	}
	return gatherNested(mem, a, idx)
}

// validity computes the output validity bitmap; nil when no output is NULL.
func validity(a arrow.Array, idx []int32) ([]byte, int) {
	hasNeg := false
	for _, i := range idx {
		if i < 0 {
			hasNeg = true
			break
		}
	}
	if !hasNeg && a.NullN() == 0 {
		return nil, 0
	}
	bits := make([]byte, bitutil.BytesForBits(int64(len(idx))))
	nulls := 0
	for k, i := range idx {
		if i >= 0 && a.IsValid(int(i)) {
			bitutil.SetBit(bits, k)
		} else {
			nulls++
		}
	}
	return bits, nulls
}

func bufOrNil(b []byte) *memory.Buffer {
	if b == nil {
		return nil
	}
	return memory.NewBufferBytes(b)
}

func gatherFixed[T any](mem memory.Allocator, a arrow.Array, idx []int32) arrow.Array {
	d := a.Data()
	var zero T
	size := int(unsafe.Sizeof(zero))
	var vals []T
	if buf := d.Buffers()[1]; buf != nil && buf.Len() > 0 {
		raw := buf.Bytes()
		vals = unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(raw))), len(raw)/size)[d.Offset():]
	}
	out := make([]T, len(idx))
	bits, nulls := validity(a, idx)
	if bits == nil {
		for k, i := range idx {
			out[k] = vals[i]
		}
	} else {
		for k, i := range idx {
			if i >= 0 {
				out[k] = vals[i]
			}
		}
	}
	var outBytes []byte
	if len(out) > 0 {
		outBytes = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(out))), len(out)*size)
	}
	nd := array.NewData(a.DataType(), len(idx), []*memory.Buffer{bufOrNil(bits), memory.NewBufferBytes(outBytes)}, nil, nulls, 0)
	defer nd.Release()
	return array.MakeFromData(nd)
}

func gatherBool(mem memory.Allocator, a *array.Boolean, idx []int32) arrow.Array {
	out := make([]byte, bitutil.BytesForBits(int64(len(idx))))
	bits, nulls := validity(a, idx)
	for k, i := range idx {
		if i >= 0 && a.Value(int(i)) {
			bitutil.SetBit(out, k)
		}
	}
	nd := array.NewData(a.DataType(), len(idx), []*memory.Buffer{bufOrNil(bits), memory.NewBufferBytes(out)}, nil, nulls, 0)
	defer nd.Release()
	return array.MakeFromData(nd)
}

func gatherBinary(mem memory.Allocator, a arrow.Array, idx []int32) arrow.Array {
	d := a.Data()
	var offs []int32
	if buf := d.Buffers()[1]; buf != nil && buf.Len() > 0 {
		raw := buf.Bytes()
		offs = unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(raw))), len(raw)/4)[d.Offset():]
	}
	var data []byte
	if buf := d.Buffers()[2]; buf != nil {
		data = buf.Bytes()
	}
	bits, nulls := validity(a, idx)
	total := 0
	for _, i := range idx {
		if i >= 0 {
			total += int(offs[i+1] - offs[i])
		}
	}
	outOffs := make([]int32, len(idx)+1)
	outData := make([]byte, 0, total)
	for k, i := range idx {
		if i >= 0 {
			outData = append(outData, data[offs[i]:offs[i+1]]...)
		}
		outOffs[k+1] = int32(len(outData))
	}
	offBytes := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(outOffs))), len(outOffs)*4)
	nd := array.NewData(a.DataType(), len(idx), []*memory.Buffer{bufOrNil(bits), memory.NewBufferBytes(offBytes), memory.NewBufferBytes(outData)}, nil, nulls, 0)
	defer nd.Release()
	return array.MakeFromData(nd)
}

func gatherNested(mem memory.Allocator, a arrow.Array, idx []int32) (arrow.Array, error) {
	d := a.Data()
	bits, nulls := validity(a, idx)
	switch a.DataType().ID() {
	case arrow.STRUCT:
		children := make([]arrow.ArrayData, len(d.Children()))
		st := a.(*array.Struct)
		for f := range children {
			c, err := GatherArray(st.Field(f), idx)
			if err != nil {
				return nil, err
			}
			defer c.Release()
			children[f] = c.Data()
		}
		nd := array.NewData(a.DataType(), len(idx), []*memory.Buffer{bufOrNil(bits)}, children, nulls, 0)
		defer nd.Release()
		return array.MakeFromData(nd), nil
	case arrow.LIST, arrow.MAP:
		la := a.(array.ListLike)
		outOffs := make([]int32, len(idx)+1)
		var child []int32
		for k, i := range idx {
			if i >= 0 && a.IsValid(int(i)) {
				s, e := la.ValueOffsets(int(i))
				for j := s; j < e; j++ {
					child = append(child, int32(j))
				}
			}
			outOffs[k+1] = int32(len(child))
		}
		values := la.ListValues()
		c, err := GatherArray(values, child)
		if err != nil {
			return nil, err
		}
		defer c.Release()
		offBytes := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(outOffs))), len(outOffs)*4)
		nd := array.NewData(a.DataType(), len(idx), []*memory.Buffer{bufOrNil(bits), memory.NewBufferBytes(offBytes)}, []arrow.ArrayData{c.Data()}, nulls, 0)
		defer nd.Release()
		return array.MakeFromData(nd), nil
	}
	return nil, fmt.Errorf("not supported yet: gathering rows of Arrow type %s", a.DataType())
}

// nullArray returns an all-NULL array of type dt and length n.
func nullArray(dt arrow.DataType, n int) (arrow.Array, error) {
	b := array.NewBuilder(vectorized.Mem, dt)
	defer b.Release()
	b.AppendNulls(n)
	return b.NewArray(), nil
}

// concatRecords concatenates batches of one schema into a single record.
func concatRecords(schema *arrow.Schema, recs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	if len(recs) == 1 {
		return recs[0], nil
	}
	cols := make([]arrow.Array, schema.NumFields())
	n := int64(0)
	for _, r := range recs {
		n += r.NumRows()
	}
	for c := range cols {
		if len(recs) == 0 {
			a, err := nullArray(schema.Field(c).Type, 0)
			if err != nil {
				return nil, err
			}
			cols[c] = a
			continue
		}
		parts := make([]arrow.Array, len(recs))
		for i, r := range recs {
			parts[i] = r.Column(c)
		}
		a, err := array.Concatenate(parts, vectorized.Mem)
		if err != nil {
			return nil, fmt.Errorf("concatenating column %q: %w", schema.Field(c).Name, err)
		}
		cols[c] = a
	}
	return NewRecord(schema, cols, n)
}

// emitSliced emits rec in slices of at most batchSize rows.
func emitSliced(ctx context.Context, rec arrow.RecordBatch, out vectorized.Collector) error {
	n := rec.NumRows()
	if n <= batchSize {
		if n == 0 {
			return nil
		}
		return out.Emit(ctx, vectorized.Batch{Rec: rec})
	}
	for lo := int64(0); lo < n; lo += batchSize {
		hi := min(lo+batchSize, n)
		if err := out.Emit(ctx, vectorized.Batch{Rec: rec.NewSlice(lo, hi)}); err != nil {
			return err
		}
	}
	return nil
}

// NewRecord builds a record batch after checking what
// array.NewRecordBatch would panic on: the column count, types and lengths.
func NewRecord(schema *arrow.Schema, cols []arrow.Array, n int64) (arrow.RecordBatch, error) {
	if len(cols) != schema.NumFields() {
		return nil, fmt.Errorf("internal: %d columns for a schema of %d", len(cols), schema.NumFields())
	}
	for i, c := range cols {
		f := schema.Field(i)
		if int64(c.Len()) < n {
			return nil, fmt.Errorf("internal: column %q has %d rows, want %d", f.Name, c.Len(), n)
		}
		if !arrow.TypeEqual(f.Type, c.DataType()) {
			return nil, fmt.Errorf("internal: column %q has type %s, want %s", f.Name, c.DataType(), f.Type)
		}
	}
	return array.NewRecordBatch(schema, cols, n), nil
}
