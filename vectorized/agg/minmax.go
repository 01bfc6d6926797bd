package agg

import (
	"encoding/binary"
	"fmt"
	"strings"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func newMinMax(t arrow.DataType, isMax bool) (Accumulator, error) {
	switch t.ID() {
	case arrow.INT8:
		return &minMaxFixed[int8]{typ: t, isMax: isMax}, nil
	case arrow.INT16:
		return &minMaxFixed[int16]{typ: t, isMax: isMax}, nil
	case arrow.INT32, arrow.DATE32, arrow.TIME32:
		return &minMaxFixed[int32]{typ: t, isMax: isMax}, nil
	case arrow.INT64, arrow.DATE64, arrow.TIME64, arrow.TIMESTAMP, arrow.DURATION:
		return &minMaxFixed[int64]{typ: t, isMax: isMax}, nil
	case arrow.UINT8:
		return &minMaxFixed[uint8]{typ: t, isMax: isMax}, nil
	case arrow.UINT16:
		return &minMaxFixed[uint16]{typ: t, isMax: isMax}, nil
	case arrow.UINT32:
		return &minMaxFixed[uint32]{typ: t, isMax: isMax}, nil
	case arrow.UINT64:
		return &minMaxFixed[uint64]{typ: t, isMax: isMax}, nil
	case arrow.FLOAT32:
		return &minMaxFixed[float32]{typ: t, isMax: isMax}, nil
	case arrow.FLOAT64:
		return &minMaxFixed[float64]{typ: t, isMax: isMax}, nil
	case arrow.DECIMAL128:
		return &minMaxDecimal{typ: t, isMax: isMax}, nil
	case arrow.BOOL:
		return &minMaxBool{isMax: isMax}, nil
	case arrow.STRING, arrow.BINARY:
		return &minMaxVar{typ: t, kind: kindVar, isMax: isMax}, nil
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		return &minMaxVar{typ: t, kind: kindLargeVar, isMax: isMax}, nil
	}
	return nil, fmt.Errorf("agg: MIN/MAX of %s: %w", t, ErrNotSupported)
}

// ordered are the physical types of the fixed-width MIN/MAX inputs.
type ordered interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}

// minMaxFixed is MIN or MAX over numbers, dates, times and timestamps,
// compared as their physical values. Like Flink's generated code a new
// value replaces the current one only if it compares less (greater), so a
// NaN never replaces a number but a leading NaN stays: with NaNs the
// result depends on row order, also across a two-phase split.
type minMaxFixed[T ordered] struct {
	spec
	typ   arrow.DataType
	isMax bool
	vals  []T
	has   []bool
	mask  []bool
}

// Resize implements Accumulator.
func (a *minMaxFixed[T]) Resize(n int) {
	a.vals = grow(a.vals, n)
	a.has = grow(a.has, n)
}

// Update implements Accumulator.
func (a *minMaxFixed[T]) Update(groupIDs []uint32, args []arrow.Array, filter *array.Boolean) error {
	if err := a.check(groupIDs, args, filter); err != nil {
		return err
	}
	in := rawValues[T](args[0])[:len(groupIDs)]
	vals, has := a.vals, a.has
	m := rowMask(&a.mask, len(groupIDs), args, filter)
	if a.isMax {
		for i, g := range groupIDs {
			if m != nil && !m[i] {
				continue
			}
			if v := in[i]; !has[g] || v > vals[g] {
				vals[g], has[g] = v, true
			}
		}
		return nil
	}
	for i, g := range groupIDs {
		if m != nil && !m[i] {
			continue
		}
		if v := in[i]; !has[g] || v < vals[g] {
			vals[g], has[g] = v, true
		}
	}
	return nil
}

// Evaluate implements Accumulator.
func (a *minMaxFixed[T]) Evaluate(mem memory.Allocator) (arrow.Array, error) {
	return newFixedArray(mem, a.typ, a.vals, a.has), nil
}

// SizeBytes implements Accumulator.
func (a *minMaxFixed[T]) SizeBytes() int64 {
	var z T
	return int64(cap(a.vals))*int64(sizeOf(z)) + int64(cap(a.has)) + int64(cap(a.mask))
}

// minMaxDecimal is MIN or MAX over DECIMAL(p, s).
type minMaxDecimal struct {
	spec
	typ   arrow.DataType
	isMax bool
	vals  []decimal128.Num
	has   []bool
	mask  []bool
}

// Resize implements Accumulator.
func (a *minMaxDecimal) Resize(n int) {
	a.vals = grow(a.vals, n)
	a.has = grow(a.has, n)
}

// Update implements Accumulator.
func (a *minMaxDecimal) Update(groupIDs []uint32, args []arrow.Array, filter *array.Boolean) error {
	if err := a.check(groupIDs, args, filter); err != nil {
		return err
	}
	in := rawValues[decimal128.Num](args[0])[:len(groupIDs)]
	m := rowMask(&a.mask, len(groupIDs), args, filter)
	for i, g := range groupIDs {
		if m != nil && !m[i] {
			continue
		}
		v := in[i]
		if !a.has[g] || (a.isMax && v.Greater(a.vals[g])) || (!a.isMax && v.Less(a.vals[g])) {
			a.vals[g], a.has[g] = v, true
		}
	}
	return nil
}

// Evaluate implements Accumulator.
func (a *minMaxDecimal) Evaluate(mem memory.Allocator) (arrow.Array, error) {
	return newFixedArray(mem, a.typ, a.vals, a.has), nil
}

// SizeBytes implements Accumulator.
func (a *minMaxDecimal) SizeBytes() int64 {
	return int64(cap(a.vals))*16 + int64(cap(a.has)) + int64(cap(a.mask))
}

// minMaxBool is MIN (logical AND) or MAX (logical OR) over BOOLEAN.
type minMaxBool struct {
	spec
	isMax bool
	vals  []bool
	has   []bool
	mask  []bool
}

// Resize implements Accumulator.
func (a *minMaxBool) Resize(n int) {
	a.vals = grow(a.vals, n)
	a.has = grow(a.has, n)
}

// Update implements Accumulator.
func (a *minMaxBool) Update(groupIDs []uint32, args []arrow.Array, filter *array.Boolean) error {
	if err := a.check(groupIDs, args, filter); err != nil {
		return err
	}
	in, ok := args[0].(*array.Boolean)
	if !ok {
		return fmt.Errorf("agg: MIN/MAX of BOOLEAN got %s", args[0].DataType())
	}
	m := rowMask(&a.mask, len(groupIDs), args, filter)
	for i, g := range groupIDs {
		if m != nil && !m[i] {
			continue
		}
		v := in.Value(i)
		if !a.has[g] || (a.isMax && v && !a.vals[g]) || (!a.isMax && !v && a.vals[g]) {
			a.vals[g], a.has[g] = v, true
		}
	}
	return nil
}

// Evaluate implements Accumulator.
func (a *minMaxBool) Evaluate(mem memory.Allocator) (arrow.Array, error) {
	b := array.NewBooleanBuilder(mem)
	defer b.Release()
	b.AppendValues(a.vals, a.has)
	return b.NewArray(), nil
}

// SizeBytes implements Accumulator.
func (a *minMaxBool) SizeBytes() int64 {
	return int64(cap(a.vals)+cap(a.has)) + int64(cap(a.mask))
}

// minMaxVar is MIN or MAX over strings and binary, compared byte-wise
// (unsigned), which for UTF-8 is code-point order as in Flink. Each group
// keeps its own copy of the current value.
type minMaxVar struct {
	spec
	typ   arrow.DataType
	kind  colKind
	isMax bool
	vals  []string
	has   []bool
	mask  []bool
	bytes int64 // total length of vals, for SizeBytes
}

// Resize implements Accumulator.
func (a *minMaxVar) Resize(n int) {
	a.vals = grow(a.vals, n)
	a.has = grow(a.has, n)
}

// Update implements Accumulator.
func (a *minMaxVar) Update(groupIDs []uint32, args []arrow.Array, filter *array.Boolean) error {
	if err := a.check(groupIDs, args, filter); err != nil {
		return err
	}
	in := newVarCol(args[0], a.kind)
	m := rowMask(&a.mask, len(groupIDs), args, filter)
	for i, g := range groupIDs {
		if m != nil && !m[i] {
			continue
		}
		b := in.value(i)
		v := unsafe.String(unsafe.SliceData(b), len(b))
		if !a.has[g] || (a.isMax && v > a.vals[g]) || (!a.isMax && v < a.vals[g]) {
			a.bytes += int64(len(v) - len(a.vals[g]))
			a.vals[g], a.has[g] = strings.Clone(v), true
		}
	}
	return nil
}

// Evaluate implements Accumulator.
func (a *minMaxVar) Evaluate(mem memory.Allocator) (arrow.Array, error) {
	return newVarArray(mem, a.typ, a.kind, a.vals, a.has), nil
}

// SizeBytes implements Accumulator.
func (a *minMaxVar) SizeBytes() int64 {
	return int64(cap(a.vals))*16 + a.bytes + int64(cap(a.has)) + int64(cap(a.mask))
}

// newVarArray builds a string or binary array (int32 offsets for kindVar,
// int64 for kindLargeVar) with rows where valid[i] is false NULL.
func newVarArray(mem memory.Allocator, typ arrow.DataType, kind colKind, vals []string, valid []bool) arrow.Array {
	n := len(vals)
	offW := 4
	if kind == kindLargeVar {
		offW = 8
	}
	total := 0
	for _, v := range vals {
		total += len(v)
	}
	offsets := memory.NewResizableBuffer(mem)
	offsets.Resize((n + 1) * offW)
	ob := offsets.Bytes()
	data := memory.NewResizableBuffer(mem)
	data.Resize(total)
	db := data.Bytes()
	pos := 0
	for i, v := range vals {
		if offW == 4 {
			binary.LittleEndian.PutUint32(ob[i*4:], uint32(pos))
		} else {
			binary.LittleEndian.PutUint64(ob[i*8:], uint64(pos))
		}
		pos += copy(db[pos:], v)
	}
	if offW == 4 {
		binary.LittleEndian.PutUint32(ob[n*4:], uint32(pos))
	} else {
		binary.LittleEndian.PutUint64(ob[n*8:], uint64(pos))
	}
	nullBuf, nulls := validityBuffer(mem, valid, n)
	arr := arrayData(typ, n, []*memory.Buffer{nullBuf, offsets, data}, nulls)
	offsets.Release()
	data.Release()
	if nullBuf != nil {
		nullBuf.Release()
	}
	return arr
}
