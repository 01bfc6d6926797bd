package expr

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

var nexmarkURLs = []any{
	nil, "", "/", "//", "a", "a/b", "https://www.nexmark.com/abc/def/ghi/item.htm?query=1",
	"https://www.nexmark.com/x/y?channel_id=1234&b=c", "channel_id=abc", "a=1&channel_id=&z=2",
	"channel_id=héllo&x", "&channel_id=z", "no-channel", "ü/ö/ä/ß", "a//b///c", nil,
}

var nexmarkSchema = types.Schema{{Name: "url", Type: types.StringT}, {Name: "n", Type: types.IntT}}

func TestNexmarkStringKernels(t *testing.T) {
	rows := make([][]any, len(nexmarkURLs))
	for i, u := range nexmarkURLs {
		rows[i] = []any{u, int32(i)}
	}
	rec := buildRec(t, nexmarkSchema, rows)
	defer rec.Release()
	url := &logical.ColumnRef{Index: 0, Name: "url", T: types.StringT}
	s := func(v string) logical.Expr { return lit(v, types.StringT.WithNullable(false)) }
	i32 := func(v int32) logical.Expr { return lit(v, types.IntT.WithNullable(false)) }
	cases := []struct {
		e      logical.Expr
		kernel bool
	}{
		{mustCall(t, "REGEXP_EXTRACT", url, s("(&|^)channel_id=([^&]*)"), i32(2)), true},
		{mustCall(t, "REGEXP_EXTRACT", url, s("(&|^)channel_id=([^&]*)"), i32(1)), true},
		{mustCall(t, "REGEXP_EXTRACT", url, s("(&|^)channel_id=([^&]*)"), i32(0)), true},
		{mustCall(t, "REGEXP_EXTRACT", url, s("(&|^)channel_id=([^&]*)"), i32(3)), true},
		{mustCall(t, "REGEXP_EXTRACT", url, s("(&|^)channel_id=([^&]*)"), i32(-1)), true},
		{mustCall(t, "REGEXP_EXTRACT", url, s("(x)|(/)")), true},
		{mustCall(t, "REGEXP_EXTRACT", url, s("(x)|(/)"), i32(1)), true}, // group not taking part
		{mustCall(t, "REGEXP_EXTRACT", url, s("(x)|(/)"), lit(int64(2), types.BigIntT)), true},
		{mustCall(t, "REGEXP_EXTRACT", url, s("[invalid"), i32(1)), false},           // error, as the oracle
		{mustCall(t, "REGEXP_EXTRACT", url, lit(nil, types.StringT), i32(1)), false}, // NULL pattern
		{mustCall(t, "REGEXP_EXTRACT", url, s("a"), lit(nil, types.IntT)), false},    // NULL group
		{mustCall(t, "REGEXP_EXTRACT", url, s("(a)"), &logical.ColumnRef{Index: 1, Name: "n", T: types.IntT}), false},
		{mustCall(t, "SPLIT_INDEX", url, s("/"), i32(3)), true},
		{mustCall(t, "SPLIT_INDEX", url, s("/"), i32(0)), true},
		{mustCall(t, "SPLIT_INDEX", url, s("/"), i32(4)), true},
		{mustCall(t, "SPLIT_INDEX", url, s("/"), i32(5)), true},
		{mustCall(t, "SPLIT_INDEX", url, s("//"), i32(1)), true},
		{mustCall(t, "SPLIT_INDEX", url, s("ö"), i32(1)), true},
		{mustCall(t, "SPLIT_INDEX", url, s("/"), lit(int64(100), types.BigIntT)), true},
		{mustCall(t, "SPLIT_INDEX", url, s("/"), i32(-1)), false},
		{mustCall(t, "SPLIT_INDEX", url, s(""), i32(0)), false},
		{mustCall(t, "SPLIT_INDEX", url, lit(nil, types.StringT), i32(0)), false},
		{mustCall(t, "SPLIT_INDEX", url, s("/"), &logical.ColumnRef{Index: 1, Name: "n", T: types.IntT}), false},
	}
	for _, tc := range cases {
		t.Run(tc.e.String(), func(t *testing.T) {
			checkAgainstOracle(t, tc.e, nexmarkSchema, rec)
			ev, err := Compile(tc.e, nexmarkSchema, testReg, testCtx)
			require.NoError(t, err)
			root := ev.(*compiled).root
			_, isRe := root.(*regexExtractNode)
			_, isSplit := root.(*splitIndexNode)
			require.Equal(t, tc.kernel, isRe || isSplit, "kernel used: %T", root)
		})
	}
	// Inside CASE and behind a filter (the shape of q21).
	lower := mustCall(t, "LOWER", url)
	re := mustCall(t, "REGEXP_EXTRACT", url, s("(&|^)channel_id=([^&]*)"), i32(2))
	q21 := &logical.Case{Whens: []logical.When{{Cond: mustCall(t, "=", lower, s("a")), Then: s("0")}}, Else: re, T: types.StringT}
	checkAgainstOracle(t, q21, nexmarkSchema, rec)
	checkAgainstOracle(t, mustCall(t, "IS NOT NULL", re), nexmarkSchema, rec)
}

// TestNexmarkStringKernelsRandom checks random strings over several batches.
func TestNexmarkStringKernelsRandom(t *testing.T) {
	alphabet := []string{"a", "/", "&", "=", "channel_id=", "é", "//", "b"}
	rows := make([][]any, 500)
	for i := range rows {
		if i%7 == 0 {
			rows[i] = []any{nil, int32(i)}
			continue
		}
		v := ""
		for k := 0; k < (i*31)%9; k++ {
			v += alphabet[(i*k+k*k+i)%len(alphabet)]
		}
		rows[i] = []any{v, int32(i)}
	}
	rec := buildRec(t, nexmarkSchema, rows)
	defer rec.Release()
	url := &logical.ColumnRef{Index: 0, Name: "url", T: types.StringT}
	s := func(v string) logical.Expr { return lit(v, types.StringT.WithNullable(false)) }
	for g := int32(0); g < 4; g++ {
		checkAgainstOracle(t, mustCall(t, "REGEXP_EXTRACT", url, s("(&|^)channel_id=([^&]*)"), lit(g, types.IntT)), nexmarkSchema, rec)
		checkAgainstOracle(t, mustCall(t, "SPLIT_INDEX", url, s("/"), lit(g, types.IntT)), nexmarkSchema, rec)
		checkAgainstOracle(t, mustCall(t, "SPLIT_INDEX", url, s("a/"), lit(g, types.IntT)), nexmarkSchema, rec)
	}
}

func benchStringKernel(b *testing.B, e logical.Expr) {
	bld := array.NewStringBuilder(memory.DefaultAllocator)
	for i := 0; i < benchRows; i++ {
		if i%3 == 0 {
			bld.Append(fmt.Sprintf("https://www.nexmark.com/abc/def%d/item.htm?query=1&channel_id=%d", i%50, i))
		} else {
			bld.Append(fmt.Sprintf("https://www.nexmark.com/xyz/dir%d/item.htm?query=1", i%50))
		}
	}
	col := bld.NewArray()
	ints := array.NewInt32Builder(memory.DefaultAllocator)
	for i := 0; i < benchRows; i++ {
		ints.Append(int32(i))
	}
	icol := ints.NewArray()
	rec := array.NewRecordBatch(types.MustArrowSchema(nexmarkSchema), []arrow.Array{col, icol}, benchRows)
	defer rec.Release()
	ev, err := Compile(e, nexmarkSchema, testReg, testCtx)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := ev.Eval(rec)
		if err != nil {
			b.Fatal(err)
		}
		out.Release()
	}
	b.ReportMetric(float64(b.N)*benchRows/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkRegexpExtractConst(b *testing.B) {
	url := &logical.ColumnRef{Index: 0, Name: "url", T: types.StringT}
	benchStringKernel(b, mustCall(b, "REGEXP_EXTRACT", url, lit("(&|^)channel_id=([^&]*)", types.StringT.WithNullable(false)), lit(int32(2), types.IntT.WithNullable(false))))
}

func BenchmarkSplitIndexConst(b *testing.B) {
	url := &logical.ColumnRef{Index: 0, Name: "url", T: types.StringT}
	benchStringKernel(b, mustCall(b, "SPLIT_INDEX", url, lit("/", types.StringT.WithNullable(false)), lit(int32(3), types.IntT.WithNullable(false))))
}

func TestDecimalMultiplyKernel(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 9))
	rec := buildRec(t, testSchema, randRows(r, testSchema, 3000, 15))
	defer rec.Release()
	dec := func(p, s int) types.Type { return types.DecimalOf(p, s).WithNullable(false) }
	num := func(v int64, p, s int) logical.Expr { return lit(decimal128.FromI64(v), dec(p, s)) }
	cases := []logical.Expr{
		mustCall(t, "*", num(908, 3, 3), col(2)), // q1: 0.908 * BIGINT
		mustCall(t, "*", col(2), num(908, 3, 3)), // and commuted
		mustCall(t, "*", num(-5, 2, 1), col(1)),  // INT
		mustCall(t, "*", num(3, 1, 0), col(0)),   // TINYINT
		mustCall(t, "*", col(9), col(9)),         // DECIMAL(10,2)²
		mustCall(t, "*", col(9), col(2)),         // DECIMAL × BIGINT
		mustCall(t, "*", col(13), col(9)),        // DECIMAL(38,0): slow path, overflow → NULL
		mustCall(t, "*", col(13), num(1, 1, 0)),  // DECIMAL(38,0) × 1
		mustCall(t, "*", col(9), &logical.Cast{Arg: col(13), T: types.DecimalOf(38, 10)}),
		mustCall(t, "*", &logical.Cast{Arg: col(9), T: types.DecimalOf(38, 18)}, &logical.Cast{Arg: col(9), T: types.DecimalOf(38, 18)}), // result scale reduced: HALF_UP
		mustCall(t, "*", &logical.Cast{Arg: col(9), T: types.DecimalOf(30, 20)}, num(5, 20, 19)),
		mustCall(t, "*", col(9), lit(nil, types.DecimalOf(3, 3))),
		mustCall(t, "+", mustCall(t, "*", num(908, 3, 3), col(2)), col(9)),
	}
	for _, e := range cases {
		t.Run(e.String(), func(t *testing.T) { checkAgainstOracle(t, e, testSchema, rec) })
	}
	ev, err := Compile(cases[0], testSchema, testReg, testCtx)
	require.NoError(t, err)
	n, ok := ev.(*compiled).root.(*decMulNode)
	require.True(t, ok, "%T", ev.(*compiled).root)
	_, isCol := n.xb.(*colNode)
	require.True(t, isCol, "BIGINT operand read directly")
}

// TestDecimalMultiplyRounding covers HALF_UP rounding and the precision
// bound on chosen values.
func TestDecimalMultiplyRounding(t *testing.T) {
	s := types.Schema{{Name: "x", Type: types.DecimalOf(38, 18)}, {Name: "y", Type: types.DecimalOf(38, 18)}}
	var rows [][]any
	vals := []int64{0, 1, -1, 5, -5, 499_999_999_999_999_999, 500_000_000_000_000_000, -500_000_000_000_000_000,
		999_999_999_999_999_999, math.MaxInt64, math.MinInt64, 1_500_000_000_000_000_000}
	for _, a := range vals {
		for _, b := range vals {
			rows = append(rows, []any{decimal128.FromI64(a), decimal128.FromI64(b)})
		}
	}
	rows = append(rows, []any{nil, decimal128.FromI64(3)}, []any{decimal128.FromI64(3), nil})
	rec := buildRec(t, s, rows)
	defer rec.Release()
	x := &logical.ColumnRef{Index: 0, Name: "x", T: s[0].Type}
	y := &logical.ColumnRef{Index: 1, Name: "y", T: s[1].Type}
	checkAgainstOracle(t, mustCall(t, "*", x, y), s, rec)
	checkAgainstOracle(t, mustCall(t, "*", x, lit(decimal128.FromI64(5), types.DecimalOf(2, 1))), s, rec)
	checkAgainstOracle(t, mustCall(t, "*", &logical.Cast{Arg: x, T: types.DecimalOf(20, 2)}, &logical.Cast{Arg: y, T: types.DecimalOf(20, 2)}), s, rec)
}

// TestDecimalMultiplyScaleDown covers results whose scale is reduced
// (precision above 38): HALF_UP on ties, both signs.
func TestDecimalMultiplyScaleDown(t *testing.T) {
	for _, sc := range [][2]int{{4, 5}, {6, 6}, {10, 3}, {12, 12}} {
		s := types.Schema{{Name: "x", Type: types.DecimalOf(38, sc[0])}, {Name: "y", Type: types.DecimalOf(38, sc[1])}}
		var rows [][]any
		vals := []int64{0, 1, -1, 5, -5, 15, -25, 49, 50, 51, -50, 12345, 99999, 5_000_000, 123_456_789, -987_654_321_123, 4_999_999_999_999, math.MaxInt64, math.MinInt64}
		for _, a := range vals {
			for _, b := range vals {
				rows = append(rows, []any{decimal128.FromI64(a), decimal128.FromI64(b)})
			}
		}
		rows = append(rows, []any{nil, decimal128.FromI64(3)})
		rec := buildRec(t, s, rows)
		x := &logical.ColumnRef{Index: 0, Name: "x", T: s[0].Type}
		y := &logical.ColumnRef{Index: 1, Name: "y", T: s[1].Type}
		e := mustCall(t, "*", x, y)
		ev, err := Compile(e, s, testReg, testCtx)
		require.NoError(t, err)
		n, ok := ev.(*compiled).root.(*decMulNode)
		require.True(t, ok)
		require.Greater(t, n.down, uint64(1), "%s", e.Type())
		checkAgainstOracle(t, e, s, rec)
		rec.Release()
	}
}

func BenchmarkDecimalMultiplyBigint(b *testing.B) {
	s := types.Schema{{Name: "price", Type: types.BigIntT}}
	bld := array.NewInt64Builder(memory.DefaultAllocator)
	for i := 0; i < benchRows; i++ {
		bld.Append(int64(i*37 + 100))
	}
	c := bld.NewArray()
	rec := array.NewRecordBatch(types.MustArrowSchema(s), []arrow.Array{c}, benchRows)
	defer rec.Release()
	e := mustCall(b, "*", lit(decimal128.FromI64(908), types.DecimalOf(3, 3).WithNullable(false)), &logical.ColumnRef{Index: 0, Name: "price", T: types.BigIntT})
	ev, err := Compile(e, s, testReg, testCtx)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := ev.Eval(rec)
		if err != nil {
			b.Fatal(err)
		}
		out.Release()
	}
	b.ReportMetric(float64(b.N)*benchRows/b.Elapsed().Seconds(), "rows/s")
}

func TestRequiredLiteral(t *testing.T) {
	for p, want := range map[string]string{
		"(&|^)channel_id=([^&]*)": "channel_id=",
		"abc":                     "abc",
		"(?i)abc":                 "",
		"a|b":                     "",
		"x(abc)y*":                "abc",
		"(ab)?c":                  "c",
		"[":                       "",
	} {
		require.Equal(t, want, requiredLiteral(p), p)
	}
}
