package agg

import (
	"fmt"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func newAvg(t, result arrow.DataType) (Accumulator, error) {
	switch t.ID() {
	case arrow.INT8:
		return &intAvg[int8]{typ: t}, nil
	case arrow.INT16:
		return &intAvg[int16]{typ: t}, nil
	case arrow.INT32:
		return &intAvg[int32]{typ: t}, nil
	case arrow.INT64:
		return &intAvg[int64]{typ: t}, nil
	case arrow.FLOAT32:
		return &floatAvg[float32]{typ: t}, nil
	case arrow.FLOAT64:
		return &floatAvg[float64]{typ: t}, nil
	case arrow.DECIMAL128:
		return &decimalAvg{
			scale:  t.(*arrow.Decimal128Type).Scale,
			result: result.(*arrow.Decimal128Type),
		}, nil
	}
	return nil, fmt.Errorf("agg: AVG of %s: %w", t, ErrNotSupported)
}

// intAvg is AVG over TINYINT … BIGINT, as Flink's integral AVG: an int64
// sum (wrapping) and an int64 count, the result sum / count truncated
// toward zero and cast to the input type. No non-NULL row gives NULL.
type intAvg[T int8 | int16 | int32 | int64] struct {
	spec
	typ    arrow.DataType
	sums   []int64
	counts []int64
	mask   []bool
}

// Resize implements Accumulator.
func (a *intAvg[T]) Resize(n int) {
	a.sums = grow(a.sums, n)
	a.counts = grow(a.counts, n)
}

// Update implements Accumulator.
func (a *intAvg[T]) Update(groupIDs []uint32, args []arrow.Array, filter *array.Boolean) error {
	if err := a.check(groupIDs, args, filter); err != nil {
		return err
	}
	vals := rawValues[T](args[0])[:len(groupIDs)]
	sums, counts := a.sums, a.counts
	if m := rowMask(&a.mask, len(groupIDs), args, filter); m != nil {
		m = m[:len(groupIDs)]
		for i, g := range groupIDs {
			if m[i] {
				sums[g] += int64(vals[i])
				counts[g]++
			}
		}
		return nil
	}
	for i, g := range groupIDs {
		sums[g] += int64(vals[i])
		counts[g]++
	}
	return nil
}

// Evaluate implements Accumulator.
func (a *intAvg[T]) Evaluate(mem memory.Allocator) (arrow.Array, error) {
	out := make([]T, len(a.sums))
	valid := make([]bool, len(a.sums))
	for g, c := range a.counts {
		if c > 0 {
			out[g] = T(a.sums[g] / c)
			valid[g] = true
		}
	}
	return newFixedArray(mem, a.typ, out, valid), nil
}

// SizeBytes implements Accumulator.
func (a *intAvg[T]) SizeBytes() int64 {
	return int64(cap(a.sums)+cap(a.counts))*8 + int64(cap(a.mask))
}

// floatAvg is AVG over FLOAT and DOUBLE: a DOUBLE sum and a BIGINT count,
// the quotient cast to the input type.
type floatAvg[T float32 | float64] struct {
	spec
	typ    arrow.DataType
	sums   []float64
	counts []int64
	mask   []bool
}

// Resize implements Accumulator.
func (a *floatAvg[T]) Resize(n int) {
	a.sums = grow(a.sums, n)
	a.counts = grow(a.counts, n)
}

// Update implements Accumulator.
func (a *floatAvg[T]) Update(groupIDs []uint32, args []arrow.Array, filter *array.Boolean) error {
	if err := a.check(groupIDs, args, filter); err != nil {
		return err
	}
	vals := rawValues[T](args[0])[:len(groupIDs)]
	sums, counts := a.sums, a.counts
	m := rowMask(&a.mask, len(groupIDs), args, filter)
	for i, g := range groupIDs {
		if m != nil && !m[i] {
			continue
		}
		sums[g] += float64(vals[i])
		counts[g]++
	}
	return nil
}

// Evaluate implements Accumulator.
func (a *floatAvg[T]) Evaluate(mem memory.Allocator) (arrow.Array, error) {
	out := make([]T, len(a.sums))
	valid := make([]bool, len(a.sums))
	for g, c := range a.counts {
		if c > 0 {
			out[g] = T(a.sums[g] / float64(c))
			valid[g] = true
		}
	}
	return newFixedArray(mem, a.typ, out, valid), nil
}

// SizeBytes implements Accumulator.
func (a *floatAvg[T]) SizeBytes() int64 {
	return int64(cap(a.sums)+cap(a.counts))*8 + int64(cap(a.mask))
}

// decimalAvg is AVG over DECIMAL(p, s): a DECIMAL(38, s) sum (with SUM's
// overflow rule) and a count; the result DECIMAL(38, max(s, 6)) is the
// quotient rounded half-up, NULL if it does not fit 38 digits.
type decimalAvg struct {
	spec
	scale  int32
	result *arrow.Decimal128Type
	sums   []decimal128.Num
	has    []bool
	counts []int64
	mask   []bool
}

// Resize implements Accumulator.
func (a *decimalAvg) Resize(n int) {
	a.sums = grow(a.sums, n)
	a.has = grow(a.has, n)
	a.counts = grow(a.counts, n)
}

// Update implements Accumulator.
func (a *decimalAvg) Update(groupIDs []uint32, args []arrow.Array, filter *array.Boolean) error {
	if err := a.check(groupIDs, args, filter); err != nil {
		return err
	}
	vals := rawValues[decimal128.Num](args[0])[:len(groupIDs)]
	m := rowMask(&a.mask, len(groupIDs), args, filter)
	for i, g := range groupIDs {
		if m != nil && !m[i] {
			continue
		}
		addDecimal(&a.sums[g], &a.has[g], vals[i])
		a.counts[g]++
	}
	return nil
}

// Evaluate implements Accumulator.
func (a *decimalAvg) Evaluate(mem memory.Allocator) (arrow.Array, error) {
	n := len(a.sums)
	out := make([]decimal128.Num, n)
	valid := make([]bool, n)
	up := int(a.result.Scale - a.scale)
	for g := range n {
		if a.counts[g] == 0 || !a.has[g] {
			continue
		}
		out[g], valid[g] = divideHalfUp(a.sums[g], up, a.counts[g])
	}
	return newFixedArray(mem, a.result, out, valid), nil
}

// divideHalfUp returns sum * 10^up / count rounded half away from zero, and
// whether it fits 38 digits.
func divideHalfUp(sum decimal128.Num, up int, count int64) (decimal128.Num, bool) {
	if sum.FitsInPrecision(int32(38 - up)) {
		scaled := sum.Mul(decimal128.GetScaleMultiplier(up))
		c := decimal128.FromI64(count)
		q, r := scaled.Div(c)
		if r.Abs().Mul(decimal128.FromI64(2)).GreaterEqual(c) {
			if scaled.Sign() < 0 {
				q = q.Sub(decimal128.FromI64(1))
			} else {
				q = q.Add(decimal128.FromI64(1))
			}
		}
		return q, q.FitsInPrecision(38)
	}
	b := sum.BigInt()
	b.Mul(b, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(up)), nil))
	c := big.NewInt(count)
	q, r := new(big.Int).QuoRem(b, c, new(big.Int))
	if r.Abs(r).Lsh(r, 1).Cmp(c) >= 0 {
		q.Add(q, big.NewInt(int64(b.Sign())))
	}
	if q.CmpAbs(new(big.Int).Exp(big.NewInt(10), big.NewInt(38), nil)) >= 0 {
		return decimal128.Num{}, false
	}
	return decimal128.FromBigInt(q), true
}

// SizeBytes implements Accumulator.
func (a *decimalAvg) SizeBytes() int64 {
	return int64(cap(a.sums))*16 + int64(cap(a.has)) + int64(cap(a.counts))*8 + int64(cap(a.mask))
}
