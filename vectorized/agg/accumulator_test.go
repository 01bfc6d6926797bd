package agg

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

var (
	dec20s2 = &arrow.Decimal128Type{Precision: 20, Scale: 2}
	numeric = []arrow.DataType{
		arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32,
		arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64,
		dec20s2,
	}
	orderedExtra = []arrow.DataType{
		arrow.PrimitiveTypes.Uint32, arrow.FixedWidthTypes.Date32, arrow.FixedWidthTypes.Timestamp_ms,
		arrow.FixedWidthTypes.Time64ns, arrow.FixedWidthTypes.Boolean, arrow.BinaryTypes.String,
		arrow.BinaryTypes.LargeString, arrow.BinaryTypes.Binary,
	}
)

type accCase struct {
	name string
	args []arrow.DataType
}

func accCases() []accCase {
	cases := []accCase{
		{FuncCountStar, nil},
		{FuncCount, []arrow.DataType{arrow.PrimitiveTypes.Int64}},
		{FuncCount, []arrow.DataType{arrow.BinaryTypes.String}},
		{FuncCount, []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String}},
	}
	for _, t := range numeric {
		cases = append(cases, accCase{FuncSum, []arrow.DataType{t}}, accCase{FuncAvg, []arrow.DataType{t}})
	}
	for _, t := range append(append([]arrow.DataType{}, numeric...), orderedExtra...) {
		cases = append(cases, accCase{FuncMin, []arrow.DataType{t}}, accCase{FuncMax, []arrow.DataType{t}})
	}
	return cases
}

func TestAccumulatorsAgainstReference(t *testing.T) {
	for _, c := range accCases() {
		for _, distinct := range []bool{false, true} {
			if distinct && c.name == FuncCountStar {
				continue
			}
			for _, groups := range []int{1, 37, 3000} {
				name := fmt.Sprintf("%s(%s)/distinct=%v/groups=%d", c.name, typeList(c.args), distinct, groups)
				t.Run(name, func(t *testing.T) {
					checkAccumulator(t, c, distinct, groups)
				})
			}
		}
	}
}

func checkAccumulator(t *testing.T, c accCase, distinct bool, groups int) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(uint64(groups), uint64(len(c.name))))
	const n = 6000
	card := 40
	if distinct {
		card = 12
	}
	args := make([]arrow.Array, len(c.args))
	refs := make([][]any, len(c.args))
	for i, typ := range c.args {
		args[i], refs[i] = randomColumn(mem, typ, n, card, 0.1, r)
	}
	defer release(args)
	fb := array.NewBooleanBuilder(mem)
	var fref []bool
	useFilter := groups != 37
	for range n {
		switch x := r.IntN(5); {
		case x == 0:
			fb.AppendNull()
			fref = append(fref, false)
		default:
			fb.Append(x != 1)
			fref = append(fref, x != 1)
		}
	}
	filter := fb.NewBooleanArray()
	fb.Release()
	defer filter.Release()

	// group ids appear in first-seen order, as a group table makes them
	gids := make([]uint32, n)
	nGroups := 0
	for i := range gids {
		g := r.IntN(min(groups, nGroups+1))
		if g == nGroups {
			nGroups++
		}
		gids[i] = uint32(g)
	}

	acc, err := NewAccumulator(c.name, c.args, nil, distinct)
	require.NoError(t, err)
	want, err := ResultType(c.name, c.args)
	require.NoError(t, err)

	seenGroups := 0
	for bi, b := range batchSizes(n, []int{1, 100, 7, 4096, 33}) {
		for _, g := range gids[b[0]:b[1]] {
			seenGroups = max(seenGroups, int(g)+1)
		}
		acc.Resize(seenGroups)
		sl := sliceArrays(args, b[0], b[1])
		var f *array.Boolean
		if useFilter {
			f = array.NewSlice(filter, int64(b[0]), int64(b[1])).(*array.Boolean)
		}
		require.NoError(t, acc.Update(gids[b[0]:b[1]], sl, f))
		release(sl)
		if f != nil {
			f.Release()
		}
		if bi == 3 { // Evaluate in the middle must not disturb the state
			mid, err := acc.Evaluate(mem)
			require.NoError(t, err)
			mid.Release()
		}
	}
	require.Positive(t, acc.SizeBytes())
	got, err := acc.Evaluate(mem)
	require.NoError(t, err)
	defer got.Release()
	require.True(t, arrow.TypeEqual(want, got.DataType()), "type %s want %s", got.DataType(), want)
	require.Equal(t, seenGroups, got.Len())

	// reference: per group, the qualifying argument values in row order
	lists := make([][][]any, seenGroups)
	seen := make([]map[string]bool, seenGroups)
	for i, g := range gids {
		if useFilter && !fref[i] {
			continue
		}
		row := make([]any, len(c.args))
		key := ""
		skip := false
		for a := range c.args {
			row[a] = refs[a][i]
			skip = skip || row[a] == nil
			key += canon(row[a]) + "|"
		}
		if skip {
			continue
		}
		if distinct {
			if seen[g] == nil {
				seen[g] = map[string]bool{}
			}
			if seen[g][key] {
				continue
			}
			seen[g][key] = true
		}
		lists[g] = append(lists[g], row)
	}
	for g := range seenGroups {
		exp := reference(c, want, lists[g])
		require.Equal(t, canon(exp), canon(valueAt(got, g)), "group %d of %v", g, lists[g])
	}
}

// reference computes one group's expected result from its rows.
func reference(c accCase, result arrow.DataType, rows [][]any) any {
	switch c.name {
	case FuncCount, FuncCountStar:
		return int64(len(rows))
	}
	if len(rows) == 0 {
		return nil
	}
	vals := make([]any, len(rows))
	for i, r := range rows {
		vals[i] = r[0]
	}
	in := c.args[0]
	switch c.name {
	case FuncSum, FuncAvg:
		switch in.ID() {
		case arrow.FLOAT32:
			var s32 float32
			var s64 float64
			for _, v := range vals {
				s32 += float32(v.(float64))
				s64 += v.(float64)
			}
			if c.name == FuncSum {
				return float64(s32)
			}
			return float64(float32(s64 / float64(len(vals))))
		case arrow.FLOAT64:
			var s float64
			for _, v := range vals {
				s += v.(float64)
			}
			if c.name == FuncSum {
				return s
			}
			return s / float64(len(vals))
		case arrow.DECIMAL128:
			s := new(big.Int)
			for _, v := range vals {
				s.Add(s, v.(decimal128.Num).BigInt())
			}
			if c.name == FuncSum {
				return decimal128.FromBigInt(s)
			}
			up := result.(*arrow.Decimal128Type).Scale - in.(*arrow.Decimal128Type).Scale
			num := new(big.Int).Mul(new(big.Int).Abs(s), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(up)), nil))
			cnt := big.NewInt(int64(len(vals)))
			// half-up: floor((2*num + cnt) / (2*cnt))
			q := new(big.Int).Div(new(big.Int).Add(new(big.Int).Lsh(num, 1), cnt), new(big.Int).Lsh(cnt, 1))
			if s.Sign() < 0 {
				q.Neg(q)
			}
			return decimal128.FromBigInt(q)
		default:
			var s int64
			for _, v := range vals {
				s += v.(int64)
			}
			if c.name == FuncAvg {
				s /= int64(len(vals))
			}
			return wrapInt(in, s)
		}
	}
	// MIN / MAX: sequential, replace only on strict improvement
	best := vals[0]
	for _, v := range vals[1:] {
		if better(v, best, c.name == FuncMax) {
			best = v
		}
	}
	return best
}

func better(v, cur any, isMax bool) bool {
	var less, greater bool
	switch x := v.(type) {
	case int64:
		less, greater = x < cur.(int64), x > cur.(int64)
	case uint64:
		less, greater = x < cur.(uint64), x > cur.(uint64)
	case float64:
		less, greater = x < cur.(float64), x > cur.(float64)
	case string:
		less, greater = x < cur.(string), x > cur.(string)
	case bool:
		less, greater = !x && cur.(bool), x && !cur.(bool)
	case decimal128.Num:
		less, greater = x.Less(cur.(decimal128.Num)), x.Greater(cur.(decimal128.Num))
	}
	if isMax {
		return greater
	}
	return less
}

func wrapInt(t arrow.DataType, v int64) int64 {
	switch t.ID() {
	case arrow.INT8:
		return int64(int8(v))
	case arrow.INT16:
		return int64(int16(v))
	case arrow.INT32:
		return int64(int32(v))
	}
	return v
}

func TestResultTypes(t *testing.T) {
	i8, i64 := arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int64
	f32 := arrow.PrimitiveTypes.Float32
	str := arrow.BinaryTypes.String
	for _, tc := range []struct {
		name string
		args []arrow.DataType
		want arrow.DataType
	}{
		{FuncCountStar, nil, i64},
		{"count", []arrow.DataType{str}, i64},
		{FuncSum, []arrow.DataType{i8}, i8},
		{FuncSum, []arrow.DataType{f32}, f32},
		{FuncSum, []arrow.DataType{&arrow.Decimal128Type{Precision: 10, Scale: 3}}, &arrow.Decimal128Type{Precision: 38, Scale: 3}},
		{FuncAvg, []arrow.DataType{i8}, i8},
		{FuncAvg, []arrow.DataType{&arrow.Decimal128Type{Precision: 10, Scale: 3}}, &arrow.Decimal128Type{Precision: 38, Scale: 6}},
		{FuncAvg, []arrow.DataType{&arrow.Decimal128Type{Precision: 30, Scale: 9}}, &arrow.Decimal128Type{Precision: 38, Scale: 9}},
		{FuncMin, []arrow.DataType{str}, str},
		{FuncMax, []arrow.DataType{arrow.FixedWidthTypes.Timestamp_us}, arrow.FixedWidthTypes.Timestamp_us},
	} {
		got, err := ResultType(tc.name, tc.args)
		require.NoError(t, err)
		require.True(t, arrow.TypeEqual(tc.want, got), "%s(%v) = %s, want %s", tc.name, tc.args, got, tc.want)
	}
}

func TestNewAccumulatorErrors(t *testing.T) {
	i64 := arrow.PrimitiveTypes.Int64
	str := arrow.BinaryTypes.String
	for _, tc := range []struct {
		name     string
		args     []arrow.DataType
		result   arrow.DataType
		distinct bool
	}{
		{"MEDIAN", []arrow.DataType{i64}, nil, false},
		{FuncSum, []arrow.DataType{str}, nil, false},
		{FuncAvg, []arrow.DataType{arrow.PrimitiveTypes.Uint8}, nil, false},
		{FuncSum, []arrow.DataType{i64}, arrow.PrimitiveTypes.Float64, false},
		{FuncCountStar, nil, nil, true},
		{FuncMin, []arrow.DataType{arrow.ListOf(i64)}, nil, false},
	} {
		_, err := NewAccumulator(tc.name, tc.args, tc.result, tc.distinct)
		require.ErrorIs(t, err, ErrNotSupported, "%s", tc.name)
		require.ErrorContains(t, err, "not supported yet")
	}
	_, err := NewAccumulator(FuncSum, []arrow.DataType{i64, i64}, nil, false)
	require.Error(t, err)
	_, err = NewAccumulator(FuncCountStar, []arrow.DataType{i64}, nil, false)
	require.Error(t, err)

	acc, err := NewAccumulator(FuncSum, []arrow.DataType{i64}, i64, false)
	require.NoError(t, err)
	acc.Resize(1)
	mem := memory.NewGoAllocator()
	a := int64Array(mem, []int64{1, 2})
	defer a.Release()
	require.Error(t, acc.Update([]uint32{0, 0}, nil, nil), "missing argument")
	require.Error(t, acc.Update([]uint32{0, 0, 0}, []arrow.Array{a}, nil), "short argument")
	i32b := array.NewInt32Builder(mem)
	i32b.AppendValues([]int32{1, 2}, nil)
	i32 := i32b.NewArray()
	i32b.Release()
	defer i32.Release()
	require.ErrorContains(t, acc.Update([]uint32{0, 0}, []arrow.Array{i32}, nil), "type int32")
	dacc, err := NewAccumulator(FuncMax, []arrow.DataType{i64}, nil, true)
	require.NoError(t, err)
	dacc.Resize(1)
	require.Error(t, dacc.Update([]uint32{0, 0}, []arrow.Array{i32}, nil))
	fb := array.NewBooleanBuilder(mem)
	fb.AppendValues([]bool{true}, nil)
	short := fb.NewBooleanArray()
	fb.Release()
	defer short.Release()
	require.Error(t, acc.Update([]uint32{0, 0}, []arrow.Array{a}, short), "short filter")
}

func decimalArray(mem memory.Allocator, typ *arrow.Decimal128Type, vs []decimal128.Num) arrow.Array {
	b := array.NewDecimal128Builder(mem, typ)
	defer b.Release()
	b.AppendValues(vs, nil)
	return b.NewArray()
}

func evalOne(t *testing.T, name string, typ arrow.DataType, a arrow.Array) any {
	mem := memory.NewGoAllocator()
	acc, err := NewAccumulator(name, []arrow.DataType{typ}, nil, false)
	require.NoError(t, err)
	acc.Resize(1)
	require.NoError(t, acc.Update(make([]uint32, a.Len()), []arrow.Array{a}, nil))
	out, err := acc.Evaluate(mem)
	require.NoError(t, err)
	defer out.Release()
	return valueAt(out, 0)
}

func TestDecimalSemantics(t *testing.T) {
	mem := memory.NewGoAllocator()
	typ := &arrow.Decimal128Type{Precision: 10, Scale: 2}
	a := decimalArray(mem, typ, []decimal128.Num{decimal128.FromI64(100), decimal128.FromI64(200)})
	defer a.Release()
	require.Equal(t, decimal128.FromI64(300), evalOne(t, FuncSum, typ, a))
	require.Equal(t, decimal128.FromI64(1_500_000), evalOne(t, FuncAvg, typ, a), "1.50 as DECIMAL(38,6)")

	b := decimalArray(mem, typ, []decimal128.Num{decimal128.FromI64(-1), decimal128.FromI64(-2)})
	defer b.Release()
	require.Equal(t, decimal128.FromI64(-15_000), evalOne(t, FuncAvg, typ, b), "-0.015 rounds half away from zero")

	// overflow of 38 digits: NULL, then the sum restarts from the next value
	big38 := &arrow.Decimal128Type{Precision: 38, Scale: 0}
	nines := decimal128.GetScaleMultiplier(38).Sub(decimal128.FromI64(1))
	ov := decimalArray(mem, big38, []decimal128.Num{nines, nines})
	defer ov.Release()
	require.Nil(t, evalOne(t, FuncSum, big38, ov))
	ov2 := decimalArray(mem, big38, []decimal128.Num{nines, nines, decimal128.FromI64(5)})
	defer ov2.Release()
	require.Equal(t, decimal128.FromI64(5), evalOne(t, FuncSum, big38, ov2))
	// the average of huge values takes the wide path
	huge := decimalArray(mem, big38, []decimal128.Num{nines.Sub(decimal128.FromI64(8)), decimal128.FromI64(0)})
	defer huge.Release()
	require.Nil(t, evalOne(t, FuncAvg, big38, huge), "5e37 does not fit DECIMAL(38,6)")
}

func TestIntegerSemantics(t *testing.T) {
	mem := memory.NewGoAllocator()
	b := array.NewInt8Builder(mem)
	b.AppendValues([]int8{100, 100, -7}, nil)
	a := b.NewArray()
	b.Release()
	defer a.Release()
	require.Equal(t, int64(int8(-63)), evalOne(t, FuncSum, arrow.PrimitiveTypes.Int8, a), "TINYINT SUM wraps")
	require.Equal(t, int64(64), evalOne(t, FuncAvg, arrow.PrimitiveTypes.Int8, a), "AVG sums in BIGINT: 193/3")
	neg := int64Array(mem, []int64{-7, -8})
	defer neg.Release()
	require.Equal(t, int64(-7), evalOne(t, FuncAvg, arrow.PrimitiveTypes.Int64, neg), "truncates toward zero")
}

func TestEmptyGroupsAreNullOrZero(t *testing.T) {
	mem := memory.NewGoAllocator()
	for _, name := range []string{FuncCount, FuncSum, FuncAvg, FuncMin, FuncMax} {
		acc, err := NewAccumulator(name, []arrow.DataType{arrow.PrimitiveTypes.Int64}, nil, false)
		require.NoError(t, err)
		acc.Resize(3)
		out, err := acc.Evaluate(mem)
		require.NoError(t, err)
		require.Equal(t, 3, out.Len())
		if name == FuncCount {
			require.Equal(t, 0, out.NullN())
			require.Equal(t, int64(0), valueAt(out, 2))
		} else {
			require.Equal(t, 3, out.NullN(), name)
		}
		out.Release()
	}
}
