package ops

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/vectorized/agg"
)

// ErrSingleValue is Flink's runtime error when a scalar subquery returns
// more than one row.
var ErrSingleValue = errors.New("SingleValueAggFunction received more than one element.")

// singleValue is the SINGLE_VALUE aggregate of scalar subqueries: the only
// value of each group (NULL for an empty group), an error for a second row.
// NULL values count as rows, as in Flink.
type singleValue struct {
	typ  arrow.DataType
	arrs []arrow.Array // the argument arrays that supplied a value
	src  []uint64      // per group: arrs index<<32 | row, plus 1; 0 = no row
}

var _ agg.Accumulator = (*singleValue)(nil)

func newSingleValue(t arrow.DataType) *singleValue { return &singleValue{typ: t} }

// Resize implements agg.Accumulator.
func (s *singleValue) Resize(n int) {
	if n > len(s.src) {
		s.src = append(s.src, make([]uint64, n-len(s.src))...)
	}
}

// Update implements agg.Accumulator.
func (s *singleValue) Update(groupIDs []uint32, args []arrow.Array, filter *array.Boolean) error {
	if len(args) != 1 || args[0].Len() < len(groupIDs) {
		return fmt.Errorf("internal: SINGLE_VALUE update with %d arguments", len(args))
	}
	used := false
	k := uint64(len(s.arrs))
	for i, g := range groupIDs {
		if filter != nil && (filter.IsNull(i) || !filter.Value(i)) {
			continue
		}
		if int(g) >= len(s.src) {
			return fmt.Errorf("internal: group id %d beyond %d groups", g, len(s.src))
		}
		if s.src[g] != 0 {
			return ErrSingleValue
		}
		s.src[g] = k<<32 | uint64(i) + 1
		used = true
	}
	if used {
		args[0].Retain()
		s.arrs = append(s.arrs, args[0])
	}
	return nil
}

// Evaluate implements agg.Accumulator.
func (s *singleValue) Evaluate(mem memory.Allocator) (arrow.Array, error) {
	starts := make([]int32, len(s.arrs))
	total := 0
	for i, a := range s.arrs {
		starts[i] = int32(total)
		total += a.Len()
	}
	var all arrow.Array
	if len(s.arrs) == 0 {
		b := array.NewBuilder(mem, s.typ)
		defer b.Release()
		all = b.NewArray()
	} else {
		var err error
		if all, err = array.Concatenate(s.arrs, mem); err != nil {
			return nil, err
		}
	}
	defer all.Release()
	idx := make([]int32, len(s.src))
	for g, v := range s.src {
		if v == 0 {
			idx[g] = -1
			continue
		}
		v--
		idx[g] = starts[v>>32] + int32(v&0xffffffff)
	}
	return GatherArray(all, idx)
}

// SizeBytes implements agg.Accumulator.
func (s *singleValue) SizeBytes() int64 {
	n := int64(len(s.src)) * 8
	for _, a := range s.arrs {
		n += int64(a.Data().SizeInBytes())
	}
	return n
}
