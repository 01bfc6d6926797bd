package agg

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Function names of the variance family (Calcite's SqlAvgAggFunction
// kinds, which Flink reduces to SUM / COUNT arithmetic).
const (
	FuncStddevPop  = "STDDEV_POP"
	FuncStddevSamp = "STDDEV_SAMP"
	FuncStddev     = "STDDEV" // STDDEV_SAMP
	FuncVarPop     = "VAR_POP"
	FuncVarSamp    = "VAR_SAMP"
	FuncVariance   = "VARIANCE" // VAR_SAMP
)

// isStatFunc reports whether name is one of the variance family.
func isStatFunc(name string) bool {
	switch name {
	case FuncStddevPop, FuncStddevSamp, FuncStddev, FuncVarPop, FuncVarSamp, FuncVariance:
		return true
	}
	return false
}

// statSupported reports the argument types of the variance family
// (integers, floats, DECIMAL; the result type is the definition's, see
// ResultType).
func statSupported(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.FLOAT32, arrow.FLOAT64, arrow.DECIMAL128:
		return true
	}
	return false
}

// statAcc is STDDEV_POP, STDDEV_SAMP, VAR_POP and VAR_SAMP, computed as
// Flink's AggregateReduceFunctionsRule rewrites them:
//
//	VAR_POP(x)  = (SUM(x*x) - SUM(x)*SUM(x)/COUNT(x)) / COUNT(x)
//	VAR_SAMP(x) = (SUM(x*x) - SUM(x)*SUM(x)/COUNT(x)) / CASE COUNT(x) WHEN 1 THEN NULL ELSE COUNT(x)-1 END
//	STDDEV_*    = POWER(VAR_*, 0.5)
//
// cast back to the result type. For integer input the sums and products
// are of the input type (wrapping, as Java's) and the divisions integral
// (BIGINT); the state keeps int64 sums, which wrap to the same values
// modulo the input width. Float and DECIMAL input is computed in float64.
// The state (count, sum, sum of squares) is retractable and mergeable.
type statAcc struct {
	spec
	arg    arrow.DataType
	result arrow.DataType
	sample bool
	sqrt   bool
	ints   bool
	bits   uint // width of an integer input
	scale  int32

	cnt  []int64
	isum []int64
	isq  []int64
	fsum []float64
	fsq  []float64

	mask []bool
}

func newStat(name string, arg, result arrow.DataType) (*statAcc, error) {
	s := &statAcc{arg: arg, result: result,
		sample: name == FuncStddevSamp || name == FuncStddev || name == FuncVarSamp || name == FuncVariance,
		sqrt:   name == FuncStddevPop || name == FuncStddevSamp || name == FuncStddev,
	}
	switch arg.ID() {
	case arrow.INT8:
		s.ints, s.bits = true, 8
	case arrow.INT16:
		s.ints, s.bits = true, 16
	case arrow.INT32:
		s.ints, s.bits = true, 32
	case arrow.INT64:
		s.ints, s.bits = true, 64
	case arrow.FLOAT32, arrow.FLOAT64:
	case arrow.DECIMAL128:
		s.scale = arg.(*arrow.Decimal128Type).Scale
	default:
		return nil, fmt.Errorf("agg: %s of %s: %w", name, arg, ErrNotSupported)
	}
	s.setSpec([]arrow.DataType{arg})
	return s, nil
}

// wrap truncates v to the integer input width (Java's wrapping).
func (s *statAcc) wrap(v int64) int64 {
	switch s.bits {
	case 8:
		return int64(int8(v))
	case 16:
		return int64(int16(v))
	case 32:
		return int64(int32(v))
	}
	return v
}

// Resize implements Accumulator and Stepper.
func (s *statAcc) Resize(n int) {
	s.cnt = grow(s.cnt, n)
	if s.ints {
		s.isum, s.isq = grow(s.isum, n), grow(s.isq, n)
	} else {
		s.fsum, s.fsq = grow(s.fsum, n), grow(s.fsq, n)
	}
}

// Clear implements Stepper.
func (s *statAcc) Clear(g uint32) {
	s.cnt[g] = 0
	if s.ints {
		s.isum[g], s.isq[g] = 0, 0
	} else {
		s.fsum[g], s.fsq[g] = 0, 0
	}
}

// SizeBytes implements Accumulator and Stepper.
func (s *statAcc) SizeBytes() int64 {
	return int64(cap(s.cnt)+cap(s.isum)+cap(s.isq)+cap(s.fsum)+cap(s.fsq)) * 8
}

// apply adds (sign 1) or retracts (sign -1) row i of a into group g.
func (s *statAcc) apply(g uint32, a arrow.Array, i int, sign int64) {
	s.cnt[g] += sign
	if s.ints {
		var v int64
		switch x := a.(type) {
		case *array.Int8:
			v = int64(x.Value(i))
		case *array.Int16:
			v = int64(x.Value(i))
		case *array.Int32:
			v = int64(x.Value(i))
		case *array.Int64:
			v = x.Value(i)
		}
		s.isum[g] += sign * v
		s.isq[g] += sign * s.wrap(v*v)
		return
	}
	var f float64
	switch x := a.(type) {
	case *array.Float32:
		f = float64(x.Value(i))
	case *array.Float64:
		f = x.Value(i)
	case *array.Decimal128:
		f = x.Value(i).ToFloat64(s.scale)
	}
	if sign > 0 {
		s.fsum[g] += f
		s.fsq[g] += f * f
	} else {
		s.fsum[g] -= f
		s.fsq[g] -= f * f
		if s.cnt[g] == 0 {
			s.fsum[g], s.fsq[g] = 0, 0
		}
	}
}

// statVal is one result: an integer (integer input) or a float.
type statVal struct {
	i  int64
	f  float64
	ok bool
}

// value computes group g's result.
func (s *statAcc) value(g uint32) statVal {
	n := s.cnt[g]
	if n <= 0 || (s.sample && n == 1) {
		return statVal{}
	}
	den := n
	if s.sample {
		den = n - 1
	}
	if s.ints {
		sum := s.wrap(s.isum[g])
		diff := s.wrap(s.isq[g]) - s.wrap(sum*sum)/n
		div := diff / den
		if !s.sqrt {
			return statVal{i: s.wrap(div), ok: true}
		}
		return statVal{i: s.wrap(javaD2L(math.Sqrt(float64(div)))), ok: true}
	}
	sum := s.fsum[g]
	div := (s.fsq[g] - sum*sum/float64(n)) / float64(den)
	if s.sqrt {
		div = math.Sqrt(div)
	}
	return statVal{f: div, ok: true}
}

// javaD2L is Java's (long) cast of a double: NaN is 0, out-of-range
// values saturate.
func javaD2L(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

func (s *statAcc) appendVal(b array.Builder, v statVal) {
	if !v.ok {
		b.AppendNull()
		return
	}
	switch x := b.(type) {
	case *array.Int8Builder:
		x.Append(int8(v.i))
	case *array.Int16Builder:
		x.Append(int16(v.i))
	case *array.Int32Builder:
		x.Append(int32(v.i))
	case *array.Int64Builder:
		x.Append(v.i)
	case *array.Float32Builder:
		x.Append(float32(v.f))
	case *array.Float64Builder:
		x.Append(v.f)
	case *array.Decimal128Builder:
		rt := s.result.(*arrow.Decimal128Type)
		d, err := decimal128.FromFloat64(v.f, rt.Precision, rt.Scale)
		if err != nil || math.IsNaN(v.f) || math.IsInf(v.f, 0) {
			x.AppendNull()
			return
		}
		x.Append(d)
	default:
		b.AppendNull()
	}
}

// Update implements Accumulator.
func (s *statAcc) Update(groupIDs []uint32, args []arrow.Array, filter *array.Boolean) error {
	if err := s.check(groupIDs, args, filter); err != nil {
		return err
	}
	m := rowMask(&s.mask, len(groupIDs), args, filter)
	for i, g := range groupIDs {
		if m == nil || m[i] {
			s.apply(g, args[0], i, 1)
		}
	}
	return nil
}

// Evaluate implements Accumulator.
func (s *statAcc) Evaluate(mem memory.Allocator) (arrow.Array, error) {
	b := array.NewBuilder(mem, s.result)
	defer b.Release()
	b.Reserve(len(s.cnt))
	for g := range s.cnt {
		s.appendVal(b, s.value(uint32(g)))
	}
	return b.NewArray(), nil
}

// StateTypes implements Merger: count, sum and sum of squares (int64 for
// integer input, float64 otherwise).
func (s *statAcc) StateTypes() []arrow.DataType {
	if s.ints {
		return []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int64}
	}
	return []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Float64}
}

// State implements Merger.
func (s *statAcc) State(mem memory.Allocator) ([]arrow.Array, error) {
	cnt := newFixedArray(mem, arrow.PrimitiveTypes.Int64, append([]int64(nil), s.cnt...), nil)
	if s.ints {
		return []arrow.Array{cnt,
			newFixedArray(mem, arrow.PrimitiveTypes.Int64, append([]int64(nil), s.isum...), nil),
			newFixedArray(mem, arrow.PrimitiveTypes.Int64, append([]int64(nil), s.isq...), nil)}, nil
	}
	return []arrow.Array{cnt,
		newFixedArray(mem, arrow.PrimitiveTypes.Float64, append([]float64(nil), s.fsum...), nil),
		newFixedArray(mem, arrow.PrimitiveTypes.Float64, append([]float64(nil), s.fsq...), nil)}, nil
}

// Merge implements Merger.
func (s *statAcc) Merge(groupIDs []uint32, state []arrow.Array) error {
	if len(state) != 3 {
		return fmt.Errorf("agg: variance state has 3 columns, got %d", len(state))
	}
	for k, t := range s.StateTypes() {
		if !arrow.TypeEqual(state[k].DataType(), t) || state[k].Len() < len(groupIDs) {
			return fmt.Errorf("agg: variance state column %d is %s of %d rows, want %s", k, state[k].DataType(), state[k].Len(), t)
		}
	}
	cnt := state[0].(*array.Int64)
	for i, g := range groupIDs {
		if state[0].IsNull(i) {
			continue
		}
		s.cnt[g] += cnt.Value(i)
		if s.ints {
			s.isum[g] += state[1].(*array.Int64).Value(i)
			s.isq[g] += state[2].(*array.Int64).Value(i)
		} else {
			s.fsum[g] += state[1].(*array.Float64).Value(i)
			s.fsq[g] += state[2].(*array.Float64).Value(i)
		}
	}
	return nil
}

// Step implements Stepper; retraction subtracts the row from the sums.
func (s *statAcc) Step(mem memory.Allocator, ids []uint32, ops []Op, args []arrow.Array, changed []bool) (arrow.Array, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("agg: variance takes one argument, got %d", len(args))
	}
	if args[0].Len() < len(ids) {
		return nil, fmt.Errorf("agg: argument of %d rows for %d group ids", args[0].Len(), len(ids))
	}
	b := array.NewBuilder(mem, s.result)
	defer b.Release()
	b.Reserve(2 * len(ids))
	for i, g := range ids {
		before := s.value(g)
		s.appendVal(b, before)
		switch ops[i] {
		case OpAdd:
			s.apply(g, args[0], i, 1)
		case OpRetract:
			s.apply(g, args[0], i, -1)
		default:
			s.appendVal(b, before)
			continue
		}
		after := s.value(g)
		s.appendVal(b, after)
		if after != before && !(math.IsNaN(after.f) && math.IsNaN(before.f)) {
			changed[i] = true
		}
	}
	return b.NewArray(), nil
}
