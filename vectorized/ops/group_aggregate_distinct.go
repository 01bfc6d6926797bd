package ops

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/agg"
)

// DISTINCT calls in two phases (logical.DistinctLayout): a DISTINCT call's
// Merger (agg.MergerOf) states its distinct values as a LIST (UINT64 keys
// for one fixed-width argument, encoded BINARY otherwise) followed by the
// inner aggregate's state over them. The local phase emits the inner
// states as the call's state columns and packs the value lists of the
// calls over the same arguments into one shared distinct column —
// LIST<STRUCT<value BINARY, mask BIGINT>>, mask bit = the call — and the
// global phase unpacks a call's values (those with its bit) back into its
// LIST for Merge, which adds only the values new to a group.

// distinctCols is the distinct-column layout of an aggregate's calls.
type distinctCols struct {
	col, bit []int // per call: distinct column (-1: not DISTINCT) and mask bit
	n        int   // distinct columns
	base     int   // index of the first distinct column in the local's output
	typ      arrow.DataType
}

// newDistinctCols lays out the distinct columns of calls, the first at
// column base of schema s (checked).
func newDistinctCols(calls []logical.AggCall, s *arrow.Schema, base int) (*distinctCols, error) {
	col, bit, args, ok := logical.DistinctLayout(calls)
	if !ok {
		return nil, fmt.Errorf("internal: more than %d DISTINCT calls over the same arguments in two phases", logical.MaxDistinctCalls)
	}
	typ, err := types.ArrowType(logical.DistinctStateType())
	if err != nil {
		return nil, err
	}
	d := &distinctCols{col: col, bit: bit, n: len(args), base: base, typ: typ}
	for k := 0; k < d.n; k++ {
		if base+k >= s.NumFields() || !arrow.TypeEqual(s.Field(base+k).Type, typ) {
			return nil, fmt.Errorf("internal: distinct column %d of the two-phase aggregate is not %s", base+k, typ)
		}
	}
	return d, nil
}

// pack builds the distinct columns of groups 0..n-1 from the calls' value
// lists (lists[i] is call i's LIST, nil for a call without DISTINCT).
func (d *distinctCols) pack(mem memory.Allocator, lists []arrow.Array, n int) ([]arrow.Array, error) {
	out := make([]arrow.Array, 0, d.n)
	for k := 0; k < d.n; k++ {
		a, err := d.packColumn(mem, lists, k, n)
		if err != nil {
			releaseArrays(out)
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// packColumn builds distinct column k: per group the union of its calls'
// values, each with the bits of the calls that hold it.
func (d *distinctCols) packColumn(mem memory.Allocator, lists []arrow.Array, k, n int) (arrow.Array, error) {
	type source struct {
		list *array.List
		u64  *array.Uint64
		bin  *array.Binary
		bit  int64
	}
	var srcs []source
	for i, l := range lists {
		if l == nil || d.col[i] != k {
			continue
		}
		list, ok := l.(*array.List)
		if !ok || list.Len() < n {
			return nil, fmt.Errorf("internal: distinct values of call %d are %s", i, l.DataType())
		}
		s := source{list: list, bit: 1 << d.bit[i]}
		switch c := list.ListValues().(type) {
		case *array.Uint64:
			s.u64 = c
		case *array.Binary:
			s.bin = c
		default:
			return nil, fmt.Errorf("internal: distinct values of %s", c.DataType())
		}
		srcs = append(srcs, s)
	}
	lb := array.NewBuilder(mem, d.typ).(*array.ListBuilder)
	defer lb.Release()
	sb := lb.ValueBuilder().(*array.StructBuilder)
	vb := sb.FieldBuilder(0).(*array.BinaryBuilder)
	mb := sb.FieldBuilder(1).(*array.Int64Builder)
	var key [8]byte
	value := func(s source, j int) []byte {
		if s.u64 != nil {
			binary.LittleEndian.PutUint64(key[:], s.u64.Value(j))
			return key[:]
		}
		return s.bin.Value(j)
	}
	// the union of several calls' values: position of a value among the
	// group's pairs
	u64Index := map[uint64]int{}
	binIndex := map[string]int{}
	var masks []int64
	var vals [][]byte
	for g := 0; g < n; g++ {
		lb.Append(true)
		if len(srcs) == 1 {
			// one call: its values are a set already
			s := srcs[0]
			lo, hi := s.list.ValueOffsets(g)
			for j := int(lo); j < int(hi); j++ {
				sb.Append(true)
				vb.Append(value(s, j))
				mb.Append(s.bit)
			}
			continue
		}
		clear(u64Index)
		clear(binIndex)
		masks, vals = masks[:0], vals[:0]
		for _, s := range srcs {
			lo, hi := s.list.ValueOffsets(g)
			for j := int(lo); j < int(hi); j++ {
				var p int
				var seen bool
				if s.u64 != nil {
					v := s.u64.Value(j)
					if p, seen = u64Index[v]; !seen {
						p = len(vals)
						u64Index[v] = p
					}
				} else {
					v := s.bin.Value(j)
					if p, seen = binIndex[string(v)]; !seen {
						p = len(vals)
						binIndex[string(v)] = p
					}
				}
				if !seen {
					vals = append(vals, append([]byte(nil), value(s, j)...))
					masks = append(masks, 0)
				}
				masks[p] |= s.bit
			}
		}
		for p, v := range vals {
			sb.Append(true)
			vb.Append(v)
			mb.Append(masks[p])
		}
	}
	return lb.NewArray(), nil
}

// unpack returns call i's distinct values from a distinct column: a LIST
// of elem (UINT64 or BINARY, as its Merger states them), one row per row
// of the column.
func (d *distinctCols) unpack(mem memory.Allocator, column arrow.Array, i int, elem arrow.DataType) (arrow.Array, error) {
	list, ok := column.(*array.List)
	if !ok {
		return nil, fmt.Errorf("internal: distinct column of %s", column.DataType())
	}
	st, ok := list.ListValues().(*array.Struct)
	if !ok {
		return nil, fmt.Errorf("internal: distinct column of %s", column.DataType())
	}
	vals, ok1 := st.Field(0).(*array.Binary)
	masks, ok2 := st.Field(1).(*array.Int64)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("internal: distinct column of %s", column.DataType())
	}
	bit := int64(1) << d.bit[i]
	lb := array.NewBuilder(mem, arrow.ListOf(elem)).(*array.ListBuilder)
	defer lb.Release()
	for r := 0; r < list.Len(); r++ {
		lb.Append(true)
		if list.IsNull(r) {
			continue
		}
		lo, hi := list.ValueOffsets(r)
		for j := int(lo); j < int(hi); j++ {
			if masks.Value(j)&bit == 0 {
				continue
			}
			v := vals.Value(j)
			switch b := lb.ValueBuilder().(type) {
			case *array.Uint64Builder:
				if len(v) != 8 {
					return nil, fmt.Errorf("internal: a distinct key of %d bytes", len(v))
				}
				b.Append(binary.LittleEndian.Uint64(v))
			case *array.BinaryBuilder:
				b.Append(v)
			default:
				return nil, fmt.Errorf("internal: distinct values of %s", elem)
			}
		}
	}
	return lb.NewArray(), nil
}

// mergeCall folds the partial states of call i in rec (its state columns
// cols; with fromLocal, a DISTINCT call's values from its distinct
// column) into acc's groups ids. buf is scratch.
func (d *distinctCols) mergeCall(acc agg.Merger, i int, ids []uint32, rec arrow.RecordBatch, cols []int, fromLocal bool, buf *[]arrow.Array) error {
	st := (*buf)[:0]
	var list arrow.Array
	if k := d.col[i]; fromLocal && k >= 0 {
		lt, ok := acc.StateTypes()[0].(*arrow.ListType)
		if !ok {
			return fmt.Errorf("internal: distinct state of %s", acc.StateTypes()[0])
		}
		var err error
		if list, err = d.unpack(vectorized.Mem, rec.Column(d.base+k), i, lt.Elem()); err != nil {
			return err
		}
		defer list.Release()
		st = append(st, list)
	}
	for _, c := range cols {
		st = append(st, rec.Column(c))
	}
	*buf = st
	return acc.Merge(ids, st)
}
