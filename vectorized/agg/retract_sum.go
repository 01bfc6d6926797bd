package agg

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// sumStep is SUM and AVG with retraction: a running sum of type A and a
// count of non-NULL rows per group; the result is NULL while the count is
// 0 (Flink's SUM_RETRACT / AVG_RETRACT). T is the physical type of the
// argument and of the result.
type sumStep[T comparable, A any] struct {
	typ   arrow.DataType
	sums  []A
	cnt   []int64
	add   func(A, T) A
	sub   func(A, T) A
	value func(sum A, cnt int64) (T, bool)

	out   []T
	valid []bool
}

func newSumStep(arg, result arrow.DataType, avg bool) (Stepper, error) {
	switch arg.ID() {
	case arrow.INT8:
		return intSumStep[int8](result, avg), nil
	case arrow.INT16:
		return intSumStep[int16](result, avg), nil
	case arrow.INT32:
		return intSumStep[int32](result, avg), nil
	case arrow.INT64:
		return intSumStep[int64](result, avg), nil
	case arrow.FLOAT32:
		return floatSumStep[float32](result, avg), nil
	case arrow.FLOAT64:
		return floatSumStep[float64](result, avg), nil
	case arrow.DECIMAL128:
		s := &sumStep[decimal128.Num, decimal128.Num]{
			typ: result,
			add: func(a, v decimal128.Num) decimal128.Num { return a.Add(v) },
			sub: func(a, v decimal128.Num) decimal128.Num { return a.Sub(v) },
		}
		if avg {
			up := int(result.(*arrow.Decimal128Type).Scale - arg.(*arrow.Decimal128Type).Scale)
			s.value = func(sum decimal128.Num, cnt int64) (decimal128.Num, bool) {
				if cnt <= 0 {
					return decimal128.Num{}, false
				}
				return divideHalfUp(sum, up, cnt)
			}
		} else {
			s.value = func(sum decimal128.Num, cnt int64) (decimal128.Num, bool) {
				if cnt <= 0 || !sum.FitsInPrecision(38) {
					return decimal128.Num{}, false
				}
				return sum, true
			}
		}
		return s, nil
	}
	return nil, fmt.Errorf("agg: streaming SUM/AVG of %s: %w", arg, ErrNotSupported)
}

func intSumStep[T int8 | int16 | int32 | int64](result arrow.DataType, avg bool) Stepper {
	s := &sumStep[T, int64]{
		typ: result,
		add: func(a int64, v T) int64 { return a + int64(v) },
		sub: func(a int64, v T) int64 { return a - int64(v) },
	}
	if avg {
		s.value = func(sum, cnt int64) (T, bool) {
			if cnt <= 0 {
				return 0, false
			}
			return T(sum / cnt), true
		}
	} else {
		s.value = func(sum, cnt int64) (T, bool) { return T(sum), cnt > 0 }
	}
	return s
}

func floatSumStep[T float32 | float64](result arrow.DataType, avg bool) Stepper {
	s := &sumStep[T, T]{
		typ: result,
		add: func(a, v T) T { return a + v },
		sub: func(a, v T) T { return a - v },
	}
	if avg {
		s.value = func(sum T, cnt int64) (T, bool) {
			if cnt <= 0 {
				return 0, false
			}
			return sum / T(cnt), true
		}
	} else {
		s.value = func(sum T, cnt int64) (T, bool) { return sum, cnt > 0 }
	}
	return s
}

func (s *sumStep[T, A]) Resize(n int) {
	s.sums = grow(s.sums, n)
	s.cnt = grow(s.cnt, n)
}

func (s *sumStep[T, A]) Clear(g uint32) {
	var zero A
	s.sums[g], s.cnt[g] = zero, 0
}

func (s *sumStep[T, A]) SizeBytes() int64 {
	var a A
	var t T
	return int64(cap(s.sums))*int64(sizeOf(a)) + int64(cap(s.cnt))*8 + int64(cap(s.out))*int64(sizeOf(t)) + int64(cap(s.valid))
}

func (s *sumStep[T, A]) Step(mem memory.Allocator, ids []uint32, ops []Op, args []arrow.Array, changed []bool) (arrow.Array, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("agg: SUM/AVG takes one argument, got %d", len(args))
	}
	vals := rawValues[T](args[0])
	if len(vals) < len(ids) {
		return nil, fmt.Errorf("agg: argument of %d rows for %d group ids", len(vals), len(ids))
	}
	out := grow(s.out[:0], 2*len(ids))
	valid := grow(s.valid[:0], 2*len(ids))
	s.out, s.valid = out, valid
	for i, g := range ids {
		before, bok := s.value(s.sums[g], s.cnt[g])
		out[2*i], valid[2*i] = before, bok
		switch ops[i] {
		case OpAdd:
			s.sums[g] = s.add(s.sums[g], vals[i])
			s.cnt[g]++
		case OpRetract:
			s.sums[g] = s.sub(s.sums[g], vals[i])
			s.cnt[g]--
			if s.cnt[g] == 0 {
				// No value left: drop float rounding residue.
				var zero A
				s.sums[g] = zero
			}
		default:
			out[2*i+1], valid[2*i+1] = before, bok
			continue
		}
		after, aok := s.value(s.sums[g], s.cnt[g])
		out[2*i+1], valid[2*i+1] = after, aok
		if aok != bok || aok && after != before {
			changed[i] = true
		}
	}
	return newFixedArray(mem, s.typ, out, valid), nil
}
