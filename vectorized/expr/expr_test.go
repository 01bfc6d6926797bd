package expr

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
)

// gen builds random well-typed expressions over testSchema.
type gen struct {
	r *rand.Rand
}

const (
	gInt = iota
	gBig
	gDouble
	gBool
	gStr
	gKinds
)

var colsOf = map[int][]int{
	gInt:    {0, 1, 10},
	gBig:    {2},
	gDouble: {3, 4},
	gBool:   {6},
	gStr:    {5},
}

func (g *gen) lit(kind int) logical.Expr {
	if g.r.IntN(8) == 0 {
		switch kind {
		case gInt:
			return lit(nil, types.IntT)
		case gBig:
			return lit(nil, types.BigIntT)
		case gDouble:
			return lit(nil, types.DoubleT)
		case gBool:
			return lit(nil, types.BooleanT)
		}
		return lit(nil, types.StringT)
	}
	switch kind {
	case gInt:
		return lit(int32(g.r.IntN(7)-3), types.IntT.WithNullable(false))
	case gBig:
		return lit(int64(g.r.IntN(7)-3), types.BigIntT.WithNullable(false))
	case gDouble:
		return lit(float64(g.r.IntN(9)-4)/2, types.DoubleT.WithNullable(false))
	case gBool:
		return lit(g.r.IntN(2) == 0, types.BooleanT.WithNullable(false))
	}
	w := words[g.r.IntN(len(words))]
	return lit(w, types.CharOf(len([]rune(w))).WithNullable(false))
}

func (g *gen) expr(kind, depth int) logical.Expr {
	for {
		e := g.try(kind, depth)
		if e != nil {
			return e
		}
	}
}

func (g *gen) leaf(kind int) logical.Expr {
	if g.r.IntN(3) == 0 {
		return g.lit(kind)
	}
	cs := colsOf[kind]
	return col(cs[g.r.IntN(len(cs))])
}

func (g *gen) try(kind, depth int) logical.Expr {
	if depth <= 0 || g.r.IntN(4) == 0 {
		return g.leaf(kind)
	}
	d := depth - 1
	mk := func(name string, args ...logical.Expr) logical.Expr {
		e, err := call(name, args...)
		if err != nil {
			return nil
		}
		return e
	}
	numKinds := []int{gInt, gBig, gDouble}
	switch kind {
	case gInt, gBig, gDouble:
		switch g.r.IntN(8) {
		case 0, 1, 2:
			ops := []string{"+", "-", "*", "/", "MOD"}
			op := ops[g.r.IntN(len(ops))]
			e := mk(op, g.expr(kind, d), g.expr(numKinds[g.r.IntN(3)], d))
			if e == nil {
				return nil
			}
			return castIfNeeded(e, kind)
		case 3:
			return castIfNeeded(mk("NEGATE", g.expr(kind, d)), kind)
		case 4:
			src := numKinds[g.r.IntN(3)]
			return &logical.Cast{Arg: g.expr(src, d), T: kindType(kind)}
		case 5:
			w := []logical.When{{Cond: g.expr(gBool, d), Then: g.expr(kind, d)}}
			var els logical.Expr
			if g.r.IntN(2) == 0 {
				els = g.expr(kind, d)
			}
			return &logical.Case{Whens: w, Else: els, T: kindType(kind)}
		case 6:
			return castIfNeeded(mk("COALESCE", g.expr(kind, d), g.expr(kind, d)), kind)
		default:
			if kind == gInt {
				return castIfNeeded(mk("CHAR_LENGTH", g.expr(gStr, d)), kind)
			}
			return castIfNeeded(mk("ABS", g.expr(kind, d)), kind)
		}
	case gBool:
		switch g.r.IntN(9) {
		case 0, 1:
			ops := []string{"=", "<>", "<", "<=", ">", ">="}
			k := []int{gInt, gBig, gDouble, gStr}[g.r.IntN(4)]
			k2 := k
			if k != gStr {
				k2 = numKinds[g.r.IntN(3)]
			}
			return mk(ops[g.r.IntN(len(ops))], g.expr(k, d), g.expr(k2, d))
		case 2:
			return mk([]string{"AND", "OR"}[g.r.IntN(2)], g.expr(gBool, d), g.expr(gBool, d))
		case 3:
			return mk("NOT", g.expr(gBool, d))
		case 4:
			ops := []string{"IS NULL", "IS NOT NULL", "IS TRUE", "IS NOT TRUE", "IS FALSE", "IS NOT FALSE"}
			op := ops[g.r.IntN(len(ops))]
			if op == "IS NULL" || op == "IS NOT NULL" {
				return mk(op, g.expr(g.r.IntN(gKinds), d))
			}
			return mk(op, g.expr(gBool, d))
		case 5:
			pats := []string{"a%", "%b%", "_b%", "H%o", "%", "a", "x\\%y", "%_%"}
			p := pats[g.r.IntN(len(pats))]
			if p == "x\\%y" {
				return mk("LIKE", g.expr(gStr, d), lit(p, types.StringT.WithNullable(false)), lit("\\", types.CharOf(1).WithNullable(false)))
			}
			return mk("LIKE", g.expr(gStr, d), lit(p, types.StringT.WithNullable(false)))
		case 6:
			k := []int{gInt, gBig, gStr}[g.r.IntN(3)]
			args := []logical.Expr{g.expr(k, d)}
			for i := 0; i < 1+g.r.IntN(3); i++ {
				args = append(args, g.lit(k))
			}
			return mk("IN", args...)
		case 7:
			return mk("IS DISTINCT FROM", g.expr(gInt, d), g.expr(gInt, d))
		default:
			// Comparisons on dates, timestamps and decimals.
			c := []int{7, 8, 9}[g.r.IntN(3)]
			return mk([]string{"<", "=", ">="}[g.r.IntN(3)], col(c), col(c))
		}
	case gStr:
		switch g.r.IntN(7) {
		case 0:
			return castIfNeededStr(mk([]string{"UPPER", "LOWER"}[g.r.IntN(2)], g.expr(gStr, d)))
		case 1:
			args := []logical.Expr{g.expr(gStr, d), g.expr(gInt, d)}
			if g.r.IntN(2) == 0 {
				args = append(args, lit(int32(g.r.IntN(4)), types.IntT.WithNullable(false)))
			}
			return castIfNeededStr(mk("SUBSTRING", args...))
		case 2:
			return castIfNeededStr(mk("CONCAT", g.expr(gStr, d), g.expr(gStr, d)))
		case 3:
			return &logical.Cast{Arg: g.expr(numKinds[g.r.IntN(3)], d), T: types.StringT}
		case 4:
			return &logical.Case{Whens: []logical.When{{Cond: g.expr(gBool, d), Then: g.expr(gStr, d)}}, Else: g.expr(gStr, d), T: types.StringT}
		case 5:
			return castIfNeededStr(mk("REPLACE", g.expr(gStr, d), g.lit(gStr), g.lit(gStr)))
		default:
			return castIfNeededStr(mk("COALESCE", g.expr(gStr, d), g.expr(gStr, d)))
		}
	}
	return nil
}

func kindType(kind int) types.Type {
	switch kind {
	case gInt:
		return types.IntT
	case gBig:
		return types.BigIntT
	case gDouble:
		return types.DoubleT
	case gBool:
		return types.BooleanT
	}
	return types.StringT
}

// castIfNeeded makes e have the generator kind's type.
func castIfNeeded(e logical.Expr, kind int) logical.Expr {
	if e == nil {
		return nil
	}
	want := kindType(kind)
	if e.Type().Kind == want.Kind {
		return e
	}
	return &logical.Cast{Arg: e, T: want}
}

func castIfNeededStr(e logical.Expr) logical.Expr {
	if e == nil {
		return nil
	}
	if e.Type().IsString() {
		return e
	}
	return &logical.Cast{Arg: e, T: types.StringT}
}

// TestVectorizedMatchesOracle compiles random expression trees over random
// batches (with NULLs, and sliced batches) and compares every row with
// logical.Eval.
func TestVectorizedMatchesOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	g := &gen{r: r}
	for iter := 0; iter < 1500; iter++ {
		n := 1 + r.IntN(40)
		rows := randRows(r, testSchema, n, []int{0, 20, 60}[iter%3])
		rec := buildRec(t, testSchema, rows)
		kind := iter % gKinds
		e := g.expr(kind, 1+r.IntN(4))
		checkAgainstOracle(t, e, testSchema, rec)
		if n > 3 {
			sl := rec.NewSlice(1, int64(n-1))
			checkAgainstOracle(t, e, testSchema, sl)
			sl.Release()
		}
		rec.Release()
	}
}

// TestGenericFunctions runs every string/math/temporal function through
// the generic adapter and checks it against the oracle.
func TestGenericFunctions(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	rec := buildRec(t, testSchema, randRows(r, testSchema, 50, 20))
	defer rec.Release()
	s, i32, f64, d, ts, dec := col(5), col(1), col(4), col(7), col(8), col(9)
	str := func(v string) logical.Expr { return lit(v, types.StringT.WithNullable(false)) }
	cases := []struct {
		name string
		args []logical.Expr
	}{
		{"UPPER", []logical.Expr{s}}, {"INITCAP", []logical.Expr{s}}, {"REVERSE", []logical.Expr{s}},
		{"TRIM", []logical.Expr{str("BOTH"), str(" "), s}}, {"LTRIM", []logical.Expr{s}}, {"RTRIM", []logical.Expr{s}},
		{"POSITION", []logical.Expr{str("l"), s}}, {"REPLACE", []logical.Expr{s, str("l"), str("L")}},
		{"CONCAT_WS", []logical.Expr{str("-"), s, s}}, {"LPAD", []logical.Expr{s, i32, str("*")}},
		{"RPAD", []logical.Expr{s, i32, str("*")}}, {"REPEAT", []logical.Expr{s, i32}},
		{"SPLIT_INDEX", []logical.Expr{s, str("l"), i32}}, {"REGEXP_REPLACE", []logical.Expr{s, str("[aeiou]"), str("_")}},
		{"REGEXP_EXTRACT", []logical.Expr{s, str("(l+)"), lit(int32(1), types.IntT)}}, {"INSTR", []logical.Expr{s, str("l")}},
		{"LEFT", []logical.Expr{s, i32}}, {"RIGHT", []logical.Expr{s, i32}}, {"ASCII", []logical.Expr{s}},
		{"CHR", []logical.Expr{i32}}, {"MD5", []logical.Expr{s}}, {"SHA256", []logical.Expr{s}},
		{"ABS", []logical.Expr{f64}}, {"CEIL", []logical.Expr{f64}}, {"FLOOR", []logical.Expr{dec}},
		{"ROUND", []logical.Expr{dec, lit(int32(1), types.IntT)}}, {"TRUNCATE", []logical.Expr{f64, i32}},
		{"POWER", []logical.Expr{f64, i32}}, {"SQRT", []logical.Expr{f64}}, {"LN", []logical.Expr{f64}},
		{"LOG", []logical.Expr{f64, f64}}, {"SIGN", []logical.Expr{dec}}, {"SIN", []logical.Expr{f64}},
		{"EXTRACT", []logical.Expr{str("YEAR"), ts}}, {"YEAR", []logical.Expr{d}}, {"HOUR", []logical.Expr{ts}},
		{"YEAR", []logical.Expr{ts}}, {"QUARTER", []logical.Expr{d}}, {"MONTH", []logical.Expr{ts}},
		{"DAYOFMONTH", []logical.Expr{d}}, {"DAYOFYEAR", []logical.Expr{ts}}, {"DAYOFWEEK", []logical.Expr{ts}},
		{"MINUTE", []logical.Expr{ts}}, {"SECOND", []logical.Expr{ts}}, {"HOUR", []logical.Expr{d}},
		{"EXTRACT", []logical.Expr{str("DOY"), d}}, {"EXTRACT", []logical.Expr{str("DOW"), d}},
		{"EXTRACT", []logical.Expr{str("MILLISECOND"), ts}},
		{"DAYOFWEEK", []logical.Expr{d}}, {"DATE_FORMAT", []logical.Expr{ts, str("yyyy-MM-dd HH")}},
		{"TIMESTAMPADD", []logical.Expr{str("DAY"), i32, ts}}, {"TIMESTAMPDIFF", []logical.Expr{str("DAY"), d, ts}},
		{"TO_DATE", []logical.Expr{s}}, {"TO_TIMESTAMP", []logical.Expr{s}}, {"GREATEST", []logical.Expr{i32, col(0)}},
		{"IF", []logical.Expr{col(6), s, str("no")}}, {"IFNULL", []logical.Expr{i32, lit(int32(0), types.IntT)}},
		{"NULLIF", []logical.Expr{i32, lit(int32(0), types.IntT)}}, {"+", []logical.Expr{dec, dec}},
		{"*", []logical.Expr{dec, i32}}, {"/", []logical.Expr{dec, lit(int32(3), types.IntT)}},
		{"+", []logical.Expr{ts, lit(int64(86_400_000), types.IntervalDT)}},
		{"$FIELD", []logical.Expr{col(12), lit(int32(0), types.IntT)}},
		{"$ITEM", []logical.Expr{col(11), lit(int32(1), types.IntT)}},
		{"CARDINALITY", []logical.Expr{col(11)}}, {"$ROW", []logical.Expr{i32, s}}, {"$ARRAY", []logical.Expr{i32, col(10)}},
		{"=", []logical.Expr{col(6), col(6)}}, {"<", []logical.Expr{dec, dec}},
		{">=", []logical.Expr{dec, lit(decimal128.FromI64(150), types.DecimalOf(10, 2).WithNullable(false))}},
		{"-", []logical.Expr{dec, dec}}, {"+", []logical.Expr{dec, i32}},
		{"-", []logical.Expr{lit(decimal128.FromI64(5), types.DecimalOf(3, 1).WithNullable(false)), dec}},
		{"+", []logical.Expr{col(13), col(13)}}, {"-", []logical.Expr{col(13), dec}},
		{"<>", []logical.Expr{lit(decimal128.FromI64(-3), types.DecimalOf(5, 1).WithNullable(false)), dec}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := mustCall(t, tc.name, tc.args...)
			checkAgainstOracle(t, e, testSchema, rec)
		})
	}
	// Casts through the generic path.
	for _, to := range []types.Type{types.StringT, types.DecimalOf(5, 1), types.IntT, types.DateT, types.TimestampOf(0), types.CharOf(3), types.VarCharOf(2), types.BooleanT} {
		for _, from := range []int{0, 2, 4, 5, 7, 8, 9, 6, 11, 12} {
			a := col(from)
			if !castable(a.Type(), to) {
				continue
			}
			for _, try := range []bool{false, true} {
				e := &logical.Cast{Arg: a, T: to, Try: try}
				checkAgainstOracle(t, e, testSchema, rec)
			}
		}
	}
}

func castable(from, to types.Type) bool {
	if from.Kind == types.Array || from.Kind == types.Row {
		return to.IsString()
	}
	if from.Kind == types.Boolean {
		return to.IsString() || to.IsNumeric()
	}
	if from.Kind == types.Date || from.Kind == types.Timestamp {
		return to.IsString() || to.IsTemporal()
	}
	if from.IsNumeric() {
		return to.IsString() || to.IsNumeric() || to.Kind == types.Boolean
	}
	return true
}

func TestLazyEvaluation(t *testing.T) {
	s := types.Schema{{Name: "x", Type: types.IntT}}
	rec := buildRec(t, s, [][]any{{int32(0)}, {int32(2)}, {nil}, {int32(5)}})
	defer rec.Release()
	x := &logical.ColumnRef{Index: 0, T: types.IntT}
	zero := lit(int32(0), types.IntT.WithNullable(false))
	ten := lit(int32(10), types.IntT.WithNullable(false))
	div := mustCall(t, "/", ten, x)
	cases := []logical.Expr{
		&logical.Case{Whens: []logical.When{{Cond: mustCall(t, "<>", x, zero), Then: div}}, Else: zero, T: types.IntT},
		mustCall(t, "AND", mustCall(t, "<>", x, zero), mustCall(t, ">", div, lit(int32(1), types.IntT))),
		mustCall(t, "OR", mustCall(t, "=", x, zero), mustCall(t, ">", div, lit(int32(1), types.IntT))),
		mustCall(t, "COALESCE", mustCall(t, "NULLIF", zero, zero), lit(int32(7), types.IntT)),
	}
	for _, e := range cases {
		checkAgainstOracle(t, e, s, rec)
	}
	// Without the guard the division fails, as in Flink.
	ev, err := Compile(div, s, testReg, testCtx)
	require.NoError(t, err)
	_, err = ev.Eval(rec)
	require.ErrorContains(t, err, "/ by zero")
}

func TestTakeAllTypes(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	s := append(types.Schema{}, testSchema...)
	s = append(s,
		types.Field{Name: "m", Type: types.MapOf(types.StringT, types.IntT)},
		types.Field{Name: "bin", Type: types.BytesT},
		types.Field{Name: "iv", Type: types.IntervalDT},
		types.Field{Name: "t", Type: types.TimeOf(0)},
	)
	rows := randRows(r, testSchema, 30, 25)
	for i := range rows {
		m := &types.MapValue{Keys: []any{"k" + words[i%len(words)]}, Values: []any{int32(i)}}
		var bin any = []byte{byte(i), 1}
		if i%5 == 0 {
			m, bin = nil, nil
		}
		var mv any = m
		if m == nil {
			mv = nil
		}
		rows[i] = append(rows[i], mv, bin, int64(i*1000), int32(i*60000))
	}
	rec := buildRec(t, s, rows)
	defer rec.Release()
	for _, base := range []arrow.RecordBatch{rec, rec.NewSlice(3, 25)} {
		all := types.RecordRows(base, s)
		sel := []int32{0, 5, 5, 2, int32(base.NumRows() - 1), 1}
		out, err := Take(base, sel)
		require.NoError(t, err)
		got := types.RecordRows(out, s)
		for i, r := range sel {
			require.Equal(t, fmt.Sprint(norm(all[r])), fmt.Sprint(norm(got[i])), "row %d", i)
		}
		empty, err := Take(base, nil)
		require.NoError(t, err)
		require.EqualValues(t, 0, empty.NumRows())
		empty.Release()
		out.Release()
	}
	_, err := Take(rec, []int32{100})
	require.Error(t, err)
}

func TestFilterSelectEmpty(t *testing.T) {
	s := types.Schema{{Name: "x", Type: types.IntT}}
	rec := buildRec(t, s, [][]any{{int32(1)}, {nil}})
	defer rec.Release()
	x := &logical.ColumnRef{Index: 0, T: types.IntT}
	f, err := CompileFilter(mustCall(t, ">", x, lit(int32(5), types.IntT.WithNullable(false))), s, testReg, testCtx)
	require.NoError(t, err)
	sel, err := f.Select(rec)
	require.NoError(t, err)
	require.NotNil(t, sel)
	require.Empty(t, sel)
	_, err = CompileFilter(x, s, testReg, testCtx)
	require.Error(t, err)
}

func TestCompileErrors(t *testing.T) {
	s := types.Schema{{Name: "x", Type: types.IntT}}
	_, err := Compile(&logical.ColumnRef{Index: 4, T: types.IntT}, s, testReg, testCtx)
	require.Error(t, err)
	_, err = Compile(&logical.Call{Name: "NOPE", T: types.IntT}, s, testReg, testCtx)
	require.ErrorContains(t, err, "No match found")
}

func TestNoLeaks(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	old := vectorized.Mem
	vectorized.Mem = mem
	defer func() { vectorized.Mem = old }()
	r := rand.New(rand.NewPCG(7, 8))
	g := &gen{r: r}
	rec := buildRec(t, testSchema, randRows(r, testSchema, 64, 20))
	defer rec.Release()
	for i := 0; i < 200; i++ {
		e := g.expr(i%gKinds, 3)
		ev, err := Compile(e, testSchema, testReg, testCtx)
		require.NoError(t, err)
		a, err := ev.Eval(rec)
		if err == nil {
			a.Release()
		}
	}
	out, err := Take(rec, []int32{1, 2, 3})
	require.NoError(t, err)
	out.Release()
	mem.AssertSize(t, 0)
}

// norm makes values printable for comparison (maps by content).
func norm(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = norm(x[i])
		}
		return out
	case *types.MapValue:
		if x == nil {
			return nil
		}
		return [2]any{norm(x.Keys), norm(x.Values)}
	}
	return v
}

// TestFilterSelectors checks the direct selection path (AND of column vs
// constant comparisons) against the oracle, with NULLs and slices.
func TestFilterSelectors(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	rec := buildRec(t, testSchema, randRows(r, testSchema, 200, 15))
	defer rec.Release()
	ops := []string{"=", "<>", "<", "<=", ">", ">="}
	consts := map[int]logical.Expr{
		0:  lit(int8(1), types.TinyIntT.WithNullable(false)),
		1:  lit(int32(0), types.IntT.WithNullable(false)),
		2:  lit(int64(-3), types.BigIntT.WithNullable(false)),
		3:  lit(float32(0.5), types.FloatT.WithNullable(false)),
		4:  lit(0.25, types.DoubleT.WithNullable(false)),
		7:  lit(int32(19050), types.DateT.WithNullable(false)),
		10: lit(int32(2), types.IntT.WithNullable(false)),
	}
	cols := []int{0, 1, 2, 3, 4, 7, 10}
	for i := 0; i < 300; i++ {
		var conj []logical.Expr
		for k := 0; k < 1+r.IntN(3); k++ {
			c := cols[r.IntN(len(cols))]
			a, b := col(c), consts[c]
			if r.IntN(2) == 0 {
				a, b = b, a
			}
			conj = append(conj, mustCall(t, ops[r.IntN(len(ops))], a, b))
		}
		e := conj[0]
		if len(conj) > 1 {
			e = mustCall(t, "AND", conj...)
		}
		checkAgainstOracle(t, e, testSchema, rec)
		sl := rec.NewSlice(3, 190)
		checkAgainstOracle(t, e, testSchema, sl)
		sl.Release()
	}
}

// TestFieldKernelWideRange checks the civil-date kernels against the
// oracle far before and after 1970, leap days included.
func TestFieldKernelWideRange(t *testing.T) {
	s := types.Schema{{Name: "d", Type: types.DateT}, {Name: "ts", Type: types.TimestampOf(6)}}
	var rows [][]any
	for d := int64(-800_000); d <= 800_000; d += 997 {
		rows = append(rows, []any{int32(d), d*86_400_000_000 + (d*7919)%86_400_000_000})
	}
	rows = append(rows, []any{int32(-1), int64(-1)}, []any{int32(59), int64(59*86_400_000_000 - 1)}, []any{nil, nil})
	rec := buildRec(t, s, rows)
	defer rec.Release()
	d := &logical.ColumnRef{Index: 0, T: types.DateT}
	ts := &logical.ColumnRef{Index: 1, T: types.TimestampOf(6)}
	for _, name := range []string{"YEAR", "QUARTER", "MONTH", "DAYOFMONTH", "DAYOFYEAR", "DAYOFWEEK", "HOUR", "MINUTE", "SECOND"} {
		for _, a := range []logical.Expr{d, ts} {
			checkAgainstOracle(t, mustCall(t, name, a), s, rec)
		}
	}
}

// TestFilterLosslessCast checks the comparison that skips the cast of
// Flink's INT-typed MOD(BIGINT, INT) (v % 7 = 3 compares MOD(v, 7) with 3
// as BIGINTs) against the oracle, including divisors where the cast must
// stay, and that the cast is really dropped.
func TestFilterLosslessCast(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	rows := randRows(r, testSchema, 300, 15)
	rows[0][2], rows[1][2] = int64(math.MinInt64), int64(math.MaxInt64)
	rec := buildRec(t, testSchema, rows)
	defer rec.Release()
	nn := func(t types.Type) types.Type { return t.WithNullable(false) }
	for _, d := range []int64{7, -7, 1, math.MaxInt32, 3_000_000_000} {
		for _, op := range []string{"=", "<>", "<", ">="} {
			for _, k := range []int32{3, -2, 0} {
				mod := mustCall(t, "MOD", col(2), lit(d, nn(types.BigIntT)))
				cast := &logical.Cast{Arg: mod, T: types.IntT}
				e := mustCall(t, op, cast, lit(k, nn(types.IntT)))
				checkAgainstOracle(t, e, testSchema, rec)
				e2 := mustCall(t, op, lit(k, nn(types.IntT)), cast)
				checkAgainstOracle(t, e2, testSchema, rec)
				e3 := mustCall(t, "AND", mustCall(t, ">", col(1), lit(int32(0), nn(types.IntT))), e)
				checkAgainstOracle(t, e3, testSchema, rec)
				sl := rec.NewSlice(5, 250)
				checkAgainstOracle(t, e3, testSchema, sl)
				sl.Release()
			}
		}
	}
	c := &compiler{input: testSchema, reg: testReg, ctx: testCtx}
	mod := mustCall(t, "MOD", col(2), lit(int64(7), nn(types.BigIntT)))
	n, err := c.compile(mustCall(t, "=", &logical.Cast{Arg: mod, T: types.IntT}, lit(int32(3), nn(types.IntT))))
	require.NoError(t, err)
	cmp, ok := n.(*cmpNode)
	require.True(t, ok, "%T", n)
	_, isMod := cmp.a.(*arithNode)
	require.True(t, isMod, "the cast was kept: %T", cmp.a)
	require.True(t, cmp.canSelect())
}

// TestModConst checks the division-free MOD by a constant against Go's %
// on edge values and random ones, for divisors of every size and sign.
func TestModConst(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	xs := []int64{0, 1, -1, 2, -2, 6, 7, -7, 8, math.MaxInt64, math.MinInt64, math.MinInt64 + 1, math.MaxInt32, math.MinInt32}
	for i := 0; i < 2000; i++ {
		xs = append(xs, int64(r.Uint64()), int64(r.Uint64()>>uint(r.IntN(64))))
	}
	ds := []int64{1, -1, 2, 3, 7, -7, 10, 16, 1000, 1 << 31, 1<<31 - 1, 1<<32 + 1, 1<<62 + 3, math.MaxInt64, math.MinInt64, -3}
	for i := 0; i < 200; i++ {
		if d := int64(r.Uint64() >> uint(r.IntN(64))); d != 0 {
			ds = append(ds, d)
		}
	}
	out := make([]int64, len(xs))
	for _, d := range ds {
		modConst(xs, d, out)
		for i, x := range xs {
			if want := x % d; out[i] != want {
				t.Fatalf("%d mod %d: got %d, want %d", x, d, out[i], want)
			}
		}
	}
	x32 := []int32{0, 5, -5, math.MaxInt32, math.MinInt32, 12345, -98765}
	o32 := make([]int32, len(x32))
	for _, d := range []int64{3, -7, 1 << 20, math.MaxInt32, math.MinInt32} {
		modConst(x32, d, o32)
		for i, x := range x32 {
			if want := int32(int64(x) % d); o32[i] != want {
				t.Fatalf("int32 %d mod %d: got %d, want %d", x, d, o32[i], want)
			}
		}
	}
}
