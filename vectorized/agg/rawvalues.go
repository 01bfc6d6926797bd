package agg

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// rawValues returns the value buffer of a fixed-width array viewed as []T,
// sliced to the array's offset and length. T must have the physical width
// of the array's type; boolean arrays are not fixed width in this sense.
func rawValues[T any](a arrow.Array) []T {
	d := a.Data()
	bufs := d.Buffers()
	if len(bufs) < 2 || bufs[1] == nil || d.Len() == 0 {
		return nil
	}
	b := bufs[1].Bytes()
	var z T
	sz := int(unsafe.Sizeof(z))
	all := unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/sz)
	return all[d.Offset() : d.Offset()+d.Len()]
}

// byteWidth returns the physical width in bytes of a fixed-width type, or 0.
func byteWidth(t arrow.DataType) int {
	if t.ID() == arrow.BOOL {
		return 0
	}
	fw, ok := t.(arrow.FixedWidthDataType)
	if !ok {
		return 0
	}
	return fw.BitWidth() / 8
}

// newFixedArray builds an array of type typ (of the width of T) from vals,
// with rows where valid[i] is false set to NULL; valid may be nil (all
// valid).
func newFixedArray[T any](mem memory.Allocator, typ arrow.DataType, vals []T, valid []bool) arrow.Array {
	n := len(vals)
	var z T
	sz := int(unsafe.Sizeof(z))
	data := memory.NewResizableBuffer(mem)
	data.Resize(n * sz)
	if n > 0 {
		copy(unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(data.Bytes()))), n), vals)
	}
	nullBuf, nulls := validityBuffer(mem, valid, n)
	d := arrayData(typ, n, []*memory.Buffer{nullBuf, data}, nulls)
	data.Release()
	if nullBuf != nil {
		nullBuf.Release()
	}
	return d
}

// validityBuffer returns an Arrow validity bitmap for valid (nil when every
// row is valid) and the number of nulls.
func validityBuffer(mem memory.Allocator, valid []bool, n int) (*memory.Buffer, int) {
	if valid == nil {
		return nil, 0
	}
	nulls := 0
	for _, v := range valid[:n] {
		if !v {
			nulls++
		}
	}
	if nulls == 0 {
		return nil, 0
	}
	buf := memory.NewResizableBuffer(mem)
	buf.Resize((n + 7) / 8)
	bits := buf.Bytes()
	clear(bits)
	for i, v := range valid[:n] {
		if v {
			bits[i>>3] |= 1 << (i & 7)
		}
	}
	return buf, nulls
}

func sizeOf[T any](v T) uintptr { return unsafe.Sizeof(v) }
