package agg

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// TestStepStateRoundTrip steps a stepper through random batches; at half
// time its state is exported and set into a fresh stepper under other
// group ids (and a subset of groups into a third one), and both go on with
// the same rows: their results must stay identical.
func TestStepStateRoundTrip(t *testing.T) {
	dec := &arrow.Decimal128Type{Precision: 10, Scale: 2}
	type col struct {
		typ  arrow.DataType
		make func(r *rand.Rand) any
	}
	cols := map[string]col{
		"int":    {arrow.PrimitiveTypes.Int32, func(r *rand.Rand) any { return int32(r.IntN(20) - 5) }},
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
		{FuncCount, "bigint", true}, {FuncSum, "int", false}, {FuncSum, "bigint", false},
		{FuncSum, "double", false}, {FuncSum, "dec", false}, {FuncSum, "bigint", true},
		{FuncAvg, "bigint", false}, {FuncAvg, "double", false}, {FuncAvg, "dec", false},
		{FuncMin, "bigint", false}, {FuncMax, "double", false}, {FuncMin, "string", false},
		{FuncMax, "bool", false}, {FuncMin, "dec", false}, {FuncMax, "dec", true},
		{FuncListAgg, "string", false}, {FuncFirstValue, "string", false}, {FuncLastValue, "bigint", false},
		{FuncFirstValue, "dec", false}, {FuncStddevPop, "int", false}, {FuncVarSamp, "double", false},
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
				mk := func() StepStater {
					s, err := NewStepper(tc.name, argTypes, nil, tc.distinct, retract)
					require.NoError(t, err)
					st, err := AsStepStater(s, tc.name)
					require.NoError(t, err)
					return st
				}
				const groups = 5
				a, b, sub := mk(), mk(), mk()
				a.Resize(groups)
				// b holds group g as id groups-1-g, after two unused ids
				b.Resize(groups + 2)
				sub.Resize(2)
				perm := func(g uint32) uint32 { return groups + 1 - g }
				r := rand.New(rand.NewPCG(uint64(len(tc.name)), 5))
				gen := make([][]any, groups)
				for batch := range 40 {
					if batch == 20 {
						all := []uint32{0, 1, 2, 3, 4}
						st, err := a.StepState(mem, all)
						require.NoError(t, err)
						for k, typ := range a.StepStateTypes() {
							require.True(t, arrow.TypeEqual(typ, st[k].DataType()), "state column %d", k)
						}
						ids := make([]uint32, len(all))
						for i, g := range all {
							ids[i] = perm(g)
						}
						require.NoError(t, b.SetStepState(ids, st))
						// groups 3 and 1 alone, as ids 0 and 1
						part, err := a.StepState(mem, []uint32{3, 1})
						require.NoError(t, err)
						require.NoError(t, sub.SetStepState([]uint32{0, 1}, part))
						release(st)
						release(part)
					}
					n := 1 + r.IntN(30)
					ids := make([]uint32, n)
					ops := make([]Op, n)
					bld := array.NewBuilder(mem, c.typ)
					for i := range n {
						g := uint32(r.IntN(groups))
						ids[i] = g
						var v any
						switch {
						case r.IntN(15) == 0:
							v, ops[i] = c.make(r), OpSkip
						case retract && len(gen[g]) > 0 && r.IntN(3) == 0:
							j := r.IntN(len(gen[g]))
							v, ops[i] = gen[g][j], OpRetract
							gen[g] = append(gen[g][:j:j], gen[g][j+1:]...)
						default:
							v, ops[i] = c.make(r), OpAdd
							gen[g] = append(gen[g], v)
						}
						switch x := v.(type) {
						case int32:
							bld.(*array.Int32Builder).Append(x)
						case int64:
							bld.(*array.Int64Builder).Append(x)
						case float64:
							bld.(*array.Float64Builder).Append(x)
						case string:
							bld.(*array.StringBuilder).Append(x)
						case bool:
							bld.(*array.BooleanBuilder).Append(x)
						case decimal128.Num:
							bld.(*array.Decimal128Builder).Append(x)
						}
					}
					arg := bld.NewArray()
					bld.Release()
					var args []arrow.Array
					if len(argTypes) > 0 {
						args = []arrow.Array{arg}
					}
					step := func(s StepStater, ids []uint32) (arrow.Array, []bool) {
						changed := make([]bool, len(ids))
						out, err := s.Step(mem, ids, ops, args, changed)
						require.NoError(t, err)
						return out, changed
					}
					want, wantChanged := step(a, ids)
					if batch >= 20 {
						pids := make([]uint32, n)
						for i, g := range ids {
							pids[i] = perm(g)
						}
						got, gotChanged := step(b, pids)
						require.True(t, array.Equal(want, got), "batch %d:\n%v\n%v", batch, want, got)
						require.Equal(t, wantChanged, gotChanged)
						got.Release()
						// the subset stepper sees only rows of groups 3 and 1
						var sel []int
						for i, g := range ids {
							if g == 3 || g == 1 {
								sel = append(sel, i)
							}
						}
						if len(sel) > 0 {
							sids := make([]uint32, len(sel))
							sops := make([]Op, len(sel))
							ab := array.NewBuilder(mem, c.typ)
							for k, i := range sel {
								sids[k] = map[uint32]uint32{3: 0, 1: 1}[ids[i]]
								sops[k] = ops[i]
								require.NoError(t, ab.AppendValueFromString(arg.ValueStr(i)))
							}
							sarg := ab.NewArray()
							ab.Release()
							var sargs []arrow.Array
							if len(argTypes) > 0 {
								sargs = []arrow.Array{sarg}
							}
							out, err := sub.Step(mem, sids, sops, sargs, make([]bool, len(sel)))
							require.NoError(t, err)
							for k, i := range sel {
								require.Equal(t, want.ValueStr(2*i), out.ValueStr(2*k), "subset before")
								require.Equal(t, want.ValueStr(2*i+1), out.ValueStr(2*k+1), "subset after")
							}
							out.Release()
							sarg.Release()
						}
					}
					want.Release()
					arg.Release()
				}
			})
		}
	}
}

func TestAsStepStaterRefusesWithoutExport(t *testing.T) {
	_, err := AsStepStater(noStateStep{}, "MY_AGG(x)")
	require.ErrorIs(t, err, ErrNotSupported)
	require.Contains(t, err.Error(), "not supported yet: checkpointing the state of MY_AGG(x)")
}

type noStateStep struct{}

func (noStateStep) Resize(int)       {}
func (noStateStep) Clear(uint32)     {}
func (noStateStep) SizeBytes() int64 { return 0 }
func (noStateStep) Step(memory.Allocator, []uint32, []Op, []arrow.Array, []bool) (arrow.Array, error) {
	return nil, nil
}
