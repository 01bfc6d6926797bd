package agg

import (
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// distinctAcc turns an aggregate into its DISTINCT form: it keeps the set
// of (group id, argument values) pairs seen so far in a generic group
// table and forwards to the inner accumulator only the first occurrence of
// each pair. Rows that the filter drops or whose arguments contain a NULL
// never enter the set, so a later qualifying occurrence still counts.
type distinctAcc struct {
	inner    Accumulator
	seen     *genericTable // the set for any arguments
	pairs    *pairSet      // the set for one fixed-width argument, else nil
	argTypes []arrow.DataType

	// filled[g]: group g holds a value (for the two-phase merge, which
	// must tell groups with values from fresh ones)
	filled  []bool
	mask    []bool
	rows    []int32
	pairIDs []uint32
	first   []byte // bitmap of first occurrences, the inner filter
	keys    []arrow.Array
}

var _ Accumulator = (*distinctAcc)(nil)

func newDistinct(inner Accumulator, argTypes []arrow.DataType) (Accumulator, error) {
	if len(argTypes) == 1 {
		if p, ok := newPairSet(argTypes[0]); ok {
			return &distinctAcc{inner: inner, pairs: p, argTypes: argTypes}, nil
		}
	}
	types := append([]arrow.DataType{arrow.PrimitiveTypes.Uint32}, argTypes...)
	seen, err := newGenericTable(types)
	if err != nil {
		return nil, err
	}
	return &distinctAcc{inner: inner, seen: seen, argTypes: argTypes}, nil
}

// Resize implements Accumulator.
func (d *distinctAcc) Resize(n int) {
	d.filled = grow(d.filled, n)
	d.inner.Resize(n)
}

// Update implements Accumulator.
func (d *distinctAcc) Update(groupIDs []uint32, args []arrow.Array, filter *array.Boolean) error {
	n := len(groupIDs)
	if err := checkArgs(groupIDs, args, d.argTypes, filter); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	m := rowMask(&d.mask, n, args, filter)
	d.rows = d.rows[:0]
	for i := range n {
		if m == nil || m[i] {
			d.rows = append(d.rows, int32(i))
		}
	}
	nb := (n + 7) / 8
	if cap(d.first) < nb {
		d.first = make([]byte, nb)
	}
	first := d.first[:nb]
	clear(first)
	if d.pairs != nil {
		var keys []uint64
		if a := args[0]; d.pairs.norm.width == 8 && !d.pairs.norm.float {
			keys = rawValues[uint64](a)[:n]
		} else {
			keys = d.pairs.norm.normalise(a, n)
		}
		d.pairs.addRows(groupIDs, keys, d.rows, first)
	} else if err := d.markFirst(groupIDs, args, first); err != nil {
		return err
	}
	for _, r := range d.rows {
		if first[r>>3]&(1<<(r&7)) != 0 {
			d.filled[groupIDs[r]] = true
		}
	}
	data := array.NewData(arrow.FixedWidthTypes.Boolean, n,
		[]*memory.Buffer{nil, memory.NewBufferBytes(first)}, nil, 0, 0)
	defer data.Release()
	f := array.NewBooleanData(data)
	defer f.Release()
	return d.inner.Update(groupIDs, args, f)
}

// markFirst sets the bit of each selected row whose (group, arguments) pair
// the generic seen-table did not hold yet.
func (d *distinctAcc) markFirst(groupIDs []uint32, args []arrow.Array, first []byte) error {
	gidArr := uint32Array(groupIDs)
	defer gidArr.Release()
	d.keys = append(append(d.keys[:0], gidArr), args...)
	defer clear(d.keys)
	if cap(d.pairIDs) < len(d.rows) {
		d.pairIDs = make([]uint32, len(d.rows))
	}
	next := uint32(d.seen.Len())
	if err := d.seen.insertRows(d.keys, d.rows, d.pairIDs[:len(d.rows)]); err != nil {
		return err
	}
	for j, r := range d.rows {
		if d.pairIDs[j] == next {
			first[r>>3] |= 1 << (r & 7)
			next++
		}
	}
	return nil
}

// uint32Array views ids as an Arrow UINT32 array without copying; the
// array must not outlive ids.
func uint32Array(ids []uint32) arrow.Array {
	var b []byte
	if len(ids) > 0 {
		b = unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(ids))), len(ids)*4)
	}
	data := array.NewData(arrow.PrimitiveTypes.Uint32, len(ids),
		[]*memory.Buffer{nil, memory.NewBufferBytes(b)}, nil, 0, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// Evaluate implements Accumulator.
func (d *distinctAcc) Evaluate(mem memory.Allocator) (arrow.Array, error) {
	return d.inner.Evaluate(mem)
}

// SizeBytes implements Accumulator.
func (d *distinctAcc) SizeBytes() int64 {
	set := int64(0)
	if d.pairs != nil {
		set = d.pairs.sizeBytes()
	} else {
		set = d.seen.SizeBytes()
	}
	return d.inner.SizeBytes() + set + int64(cap(d.mask)) +
		int64(cap(d.rows)+cap(d.pairIDs))*4 + int64(cap(d.first))
}
