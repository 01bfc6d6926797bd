package agg

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// stepValue returns value i of a Step result as a comparable Go value (nil
// for NULL).
func stepValue(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch x := a.(type) {
	case *array.Int64:
		return x.Value(i)
	case *array.Int32:
		return int64(x.Value(i))
	case *array.Float64:
		return x.Value(i)
	case *array.String:
		return x.Value(i)
	case *array.Boolean:
		return x.Value(i)
	case *array.Decimal128:
		return x.Value(i).ToString(x.DataType().(*arrow.Decimal128Type).Scale)
	case *array.Timestamp:
		return int64(x.Value(i))
	}
	panic(fmt.Sprintf("stepValue: %T", a))
}

// refResult computes an aggregate over the multiset vals (Go values as
// stepValue returns them, NULLs excluded).
func refResult(name string, distinct bool, vals []any) any {
	if distinct {
		seen := map[any]bool{}
		var d []any
		for _, v := range vals {
			if !seen[v] {
				seen[v] = true
				d = append(d, v)
			}
		}
		vals = d
	}
	if name == FuncCount || name == FuncCountStar {
		return int64(len(vals))
	}
	if len(vals) == 0 {
		return nil
	}
	less := func(a, b any) bool {
		switch x := a.(type) {
		case int64:
			return x < b.(int64)
		case float64:
			return x < b.(float64)
		case string:
			return x < b.(string)
		case bool:
			return !x && b.(bool)
		case decimal128.Num:
			return x.Less(b.(decimal128.Num))
		}
		panic("less")
	}
	switch name {
	case FuncMin, FuncMax:
		best := vals[0]
		for _, v := range vals[1:] {
			if name == FuncMin && less(v, best) || name == FuncMax && less(best, v) {
				best = v
			}
		}
		if d, ok := best.(decimal128.Num); ok {
			return d.ToString(2)
		}
		return best
	}
	switch vals[0].(type) {
	case int64:
		var s int64
		for _, v := range vals {
			s += v.(int64)
		}
		if name == FuncAvg {
			return s / int64(len(vals))
		}
		return s
	case float64:
		var s float64
		for _, v := range vals {
			s += v.(float64)
		}
		if name == FuncAvg {
			return s / float64(len(vals))
		}
		return s
	case decimal128.Num:
		var s decimal128.Num
		for _, v := range vals {
			s = s.Add(v.(decimal128.Num))
		}
		if name == FuncAvg {
			q, _ := divideHalfUp(s, 4, int64(len(vals)))
			return q.ToString(6)
		}
		return s.ToString(2)
	}
	panic("sum")
}

// TestStepperAgainstReference drives every stepper with random adds and
// retractions over a few groups, in random chunks, and checks each row's
// before/after results and changed flag against a reference multiset.
func TestStepperAgainstReference(t *testing.T) {
	dec := &arrow.Decimal128Type{Precision: 10, Scale: 2}
	type col struct {
		typ  arrow.DataType
		make func(r *rand.Rand) any // Go value appended to the column
	}
	cols := map[string]col{
		"bigint": {arrow.PrimitiveTypes.Int64, func(r *rand.Rand) any { return int64(r.IntN(20) - 5) }},
		"double": {arrow.PrimitiveTypes.Float64, func(r *rand.Rand) any { return float64(r.IntN(20)) / 4 }},
		"string": {arrow.BinaryTypes.String, func(r *rand.Rand) any { return fmt.Sprintf("s%02d", r.IntN(12)) }},
		"bool":   {arrow.FixedWidthTypes.Boolean, func(r *rand.Rand) any { return r.IntN(2) == 0 }},
		"dec":    {dec, func(r *rand.Rand) any { return decimal128.FromI64(int64(r.IntN(1000) - 300)) }},
	}
	cases := []struct {
		name     string
		col      string
		distinct bool
	}{
		{FuncCountStar, "bigint", false}, {FuncCount, "string", false}, {FuncCount, "string", true},
		{FuncSum, "bigint", false}, {FuncSum, "double", false}, {FuncSum, "dec", false}, {FuncSum, "bigint", true},
		{FuncAvg, "bigint", false}, {FuncAvg, "double", false}, {FuncAvg, "dec", false},
		{FuncMin, "bigint", false}, {FuncMax, "double", false}, {FuncMin, "string", false}, {FuncMax, "string", false},
		{FuncMax, "bool", false}, {FuncMin, "dec", false}, {FuncMax, "dec", true},
	}
	mem := memory.DefaultAllocator
	for _, tc := range cases {
		for _, retract := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/%s/distinct=%v/retract=%v", tc.name, tc.col, tc.distinct, retract), func(t *testing.T) {
				c := cols[tc.col]
				var argTypes []arrow.DataType
				if tc.name != FuncCountStar {
					argTypes = []arrow.DataType{c.typ}
				}
				s, err := NewStepper(tc.name, argTypes, nil, tc.distinct, retract)
				require.NoError(t, err)
				r := rand.New(rand.NewPCG(uint64(len(tc.name)), 9))
				const groups = 4
				s.Resize(groups)
				live := make([][]any, groups)
				gen := make([][]any, groups) // live as of the row being generated
				for range 30 {
					n := 1 + r.IntN(40)
					ids := make([]uint32, n)
					ops := make([]Op, n)
					vals := make([]any, n)
					b := array.NewBuilder(mem, c.typ)
					for i := range n {
						g := uint32(r.IntN(groups))
						ids[i] = g
						switch {
						case r.IntN(15) == 0:
							vals[i] = c.make(r)
							ops[i] = OpSkip
						case retract && len(gen[g]) > 0 && r.IntN(3) == 0:
							j := r.IntN(len(gen[g]))
							vals[i] = gen[g][j]
							ops[i] = OpRetract
							gen[g] = append(gen[g][:j:j], gen[g][j+1:]...)
						default:
							vals[i] = c.make(r)
							ops[i] = OpAdd
							gen[g] = append(gen[g], vals[i])
						}
						switch x := vals[i].(type) {
						case int64:
							b.(*array.Int64Builder).Append(x)
						case float64:
							b.(*array.Float64Builder).Append(x)
						case string:
							b.(*array.StringBuilder).Append(x)
						case bool:
							b.(*array.BooleanBuilder).Append(x)
						case decimal128.Num:
							b.(*array.Decimal128Builder).Append(x)
						}
					}
					arg := b.NewArray()
					b.Release()
					var args []arrow.Array
					if len(argTypes) > 0 {
						args = []arrow.Array{arg}
					}
					changed := make([]bool, n)
					out, err := s.Step(mem, ids, ops, args, changed)
					require.NoError(t, err)
					require.Equal(t, 2*n, out.Len())
					for i, g := range ids {
						before := refResult(tc.name, tc.distinct, live[g])
						switch ops[i] {
						case OpAdd:
							live[g] = append(live[g], vals[i])
						case OpRetract:
							for j, v := range live[g] {
								if v == vals[i] {
									live[g] = append(live[g][:j:j], live[g][j+1:]...)
									break
								}
							}
						}
						after := refResult(tc.name, tc.distinct, live[g])
						require.Equal(t, before, stepValue(out, 2*i), "row %d before", i)
						require.Equal(t, after, stepValue(out, 2*i+1), "row %d after", i)
						require.Equal(t, before != after, changed[i], "row %d changed", i)
					}
					out.Release()
					arg.Release()
				}
				require.Positive(t, s.SizeBytes())
			})
		}
	}
}

func TestStepperClearAndErrors(t *testing.T) {
	mem := memory.DefaultAllocator
	s, err := NewStepper(FuncMax, []arrow.DataType{arrow.PrimitiveTypes.Int64}, nil, false, false)
	require.NoError(t, err)
	s.Resize(1)
	b := array.NewInt64Builder(mem)
	b.AppendValues([]int64{7}, nil)
	arg := b.NewArray()
	_, err = s.Step(mem, []uint32{0}, []Op{OpRetract}, []arrow.Array{arg}, make([]bool, 1))
	require.ErrorContains(t, err, "without retraction")

	out, err := s.Step(mem, []uint32{0}, []Op{OpAdd}, []arrow.Array{arg}, make([]bool, 1))
	require.NoError(t, err)
	require.Equal(t, int64(7), stepValue(out, 1))
	s.Clear(0)
	out, err = s.Step(mem, []uint32{0}, []Op{OpSkip}, []arrow.Array{arg}, make([]bool, 1))
	require.NoError(t, err)
	require.Nil(t, stepValue(out, 0))

	_, err = NewStepper("MEDIAN", []arrow.DataType{arrow.BinaryTypes.String}, nil, false, true)
	require.ErrorIs(t, err, ErrNotSupported)
	_, err = NewStepper(FuncSum, []arrow.DataType{arrow.PrimitiveTypes.Int64}, arrow.PrimitiveTypes.Int32, false, true)
	require.ErrorIs(t, err, ErrNotSupported)
}

func TestStepOps(t *testing.T) {
	mem := memory.DefaultAllocator
	fb := array.NewBooleanBuilder(mem)
	fb.AppendValues([]bool{true, false, true, true}, []bool{true, true, false, true})
	filter := fb.NewArray().(*array.Boolean)
	ab := array.NewInt64Builder(mem)
	ab.AppendValues([]int64{1, 2, 3, 4}, []bool{true, true, true, false})
	arg := ab.NewArray()
	got := StepOps(nil, []Op{OpAdd, OpAdd, OpRetract, OpRetract}, []arrow.Array{arg}, filter)
	require.Equal(t, []Op{OpAdd, OpSkip, OpSkip, OpSkip}, got)
	got = StepOps(got, []Op{OpAdd, OpRetract, OpRetract, OpAdd}, nil, nil)
	require.Equal(t, []Op{OpAdd, OpRetract, OpRetract, OpAdd}, got)
	_ = sort.Ints
}
