package agg

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func newSum(t arrow.DataType) (Accumulator, error) {
	switch t.ID() {
	case arrow.INT8:
		return &intSum[int8]{typ: t}, nil
	case arrow.INT16:
		return &intSum[int16]{typ: t}, nil
	case arrow.INT32:
		return &intSum[int32]{typ: t}, nil
	case arrow.INT64:
		return &intSum[int64]{typ: t}, nil
	case arrow.FLOAT32:
		return &floatSum[float32]{typ: t}, nil
	case arrow.FLOAT64:
		return &floatSum[float64]{typ: t}, nil
	case arrow.DECIMAL128:
		s := t.(*arrow.Decimal128Type).Scale
		return &decimalSum{typ: &arrow.Decimal128Type{Precision: 38, Scale: s}}, nil
	}
	return nil, fmt.Errorf("agg: SUM of %s: %w", t, ErrNotSupported)
}

// intSum is SUM over TINYINT … BIGINT. The sum is kept as int64 and cast to
// the input type on output, which wraps around exactly as Flink's
// same-type additions do. A group with no non-NULL row is NULL.
type intSum[T int8 | int16 | int32 | int64] struct {
	spec
	typ  arrow.DataType
	sums []int64
	has  []bool
	mask []bool
}

// Resize implements Accumulator.
func (s *intSum[T]) Resize(n int) {
	s.sums = grow(s.sums, n)
	s.has = grow(s.has, n)
}

// Update implements Accumulator.
func (s *intSum[T]) Update(groupIDs []uint32, args []arrow.Array, filter *array.Boolean) error {
	if err := s.check(groupIDs, args, filter); err != nil {
		return err
	}
	vals := rawValues[T](args[0])[:len(groupIDs)]
	sums, has := s.sums, s.has
	if m := rowMask(&s.mask, len(groupIDs), args, filter); m != nil {
		m = m[:len(groupIDs)]
		for i, g := range groupIDs {
			if m[i] {
				sums[g] += int64(vals[i])
				has[g] = true
			}
		}
		return nil
	}
	for i, g := range groupIDs {
		sums[g] += int64(vals[i])
		has[g] = true
	}
	return nil
}

// Evaluate implements Accumulator.
func (s *intSum[T]) Evaluate(mem memory.Allocator) (arrow.Array, error) {
	out := make([]T, len(s.sums))
	for i, v := range s.sums {
		out[i] = T(v)
	}
	return newFixedArray(mem, s.typ, out, s.has), nil
}

// SizeBytes implements Accumulator.
func (s *intSum[T]) SizeBytes() int64 {
	return int64(cap(s.sums))*8 + int64(cap(s.has)) + int64(cap(s.mask))
}

// floatSum is SUM over FLOAT and DOUBLE, added in the input precision in
// row order (as Flink does). A group with no non-NULL row is NULL.
type floatSum[T float32 | float64] struct {
	spec
	typ  arrow.DataType
	sums []T
	has  []bool
	mask []bool
}

// Resize implements Accumulator.
func (s *floatSum[T]) Resize(n int) {
	s.sums = grow(s.sums, n)
	s.has = grow(s.has, n)
}

// Update implements Accumulator.
func (s *floatSum[T]) Update(groupIDs []uint32, args []arrow.Array, filter *array.Boolean) error {
	if err := s.check(groupIDs, args, filter); err != nil {
		return err
	}
	vals := rawValues[T](args[0])[:len(groupIDs)]
	sums, has := s.sums, s.has
	if m := rowMask(&s.mask, len(groupIDs), args, filter); m != nil {
		m = m[:len(groupIDs)]
		for i, g := range groupIDs {
			if m[i] {
				sums[g] += vals[i]
				has[g] = true
			}
		}
		return nil
	}
	for i, g := range groupIDs {
		sums[g] += vals[i]
		has[g] = true
	}
	return nil
}

// Evaluate implements Accumulator.
func (s *floatSum[T]) Evaluate(mem memory.Allocator) (arrow.Array, error) {
	return newFixedArray(mem, s.typ, s.sums, s.has), nil
}

// SizeBytes implements Accumulator.
func (s *floatSum[T]) SizeBytes() int64 {
	var z T
	return int64(cap(s.sums))*int64(sizeOf(z)) + int64(cap(s.has)) + int64(cap(s.mask))
}

// decimalSum is SUM over DECIMAL(p, s), giving DECIMAL(38, s). As in
// Flink, a sum that overflows 38 digits becomes NULL, and the next
// non-NULL row starts the sum again from that row's value.
type decimalSum struct {
	spec
	typ  arrow.DataType
	sums []decimal128.Num
	has  []bool
	mask []bool
}

// Resize implements Accumulator.
func (s *decimalSum) Resize(n int) {
	s.sums = grow(s.sums, n)
	s.has = grow(s.has, n)
}

// Update implements Accumulator.
func (s *decimalSum) Update(groupIDs []uint32, args []arrow.Array, filter *array.Boolean) error {
	if err := s.check(groupIDs, args, filter); err != nil {
		return err
	}
	vals := rawValues[decimal128.Num](args[0])[:len(groupIDs)]
	m := rowMask(&s.mask, len(groupIDs), args, filter)
	for i, g := range groupIDs {
		if m != nil && !m[i] {
			continue
		}
		addDecimal(&s.sums[g], &s.has[g], vals[i])
	}
	return nil
}

// addDecimal adds v to a DECIMAL(38, s) sum with Flink's overflow rule.
func addDecimal(sum *decimal128.Num, has *bool, v decimal128.Num) {
	r := sum.Add(v)
	wrapped := sum.Sign() == v.Sign() && sum.Sign() != 0 && r.Sign() != sum.Sign()
	if !wrapped && r.FitsInPrecision(38) {
		*sum, *has = r, true
		return
	}
	*sum, *has = decimal128.Num{}, false
}

// Evaluate implements Accumulator.
func (s *decimalSum) Evaluate(mem memory.Allocator) (arrow.Array, error) {
	return newFixedArray(mem, s.typ, s.sums, s.has), nil
}

// SizeBytes implements Accumulator.
func (s *decimalSum) SizeBytes() int64 {
	return int64(cap(s.sums))*16 + int64(cap(s.has)) + int64(cap(s.mask))
}
