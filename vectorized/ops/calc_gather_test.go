package ops

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/expr"
)

// The filtering Calc gathers only what its projections read (calc.go).
// These tests compare it with the former algorithm, cgOldProcess: gather
// every column of the kept rows, then evaluate every projection.

var cgReg = function.Builtins()

func cgCol(s types.Schema, i int) logical.Expr {
	return &logical.ColumnRef{Index: i, Name: s[i].Name, T: s[i].Type}
}

func cgField(e logical.Expr, i int) logical.Expr {
	ft := e.Type().Fields[i].Type
	if e.Type().Nullable() {
		ft = ft.WithNullable(true)
	}
	return &logical.Call{Name: "$FIELD", Def: function.OpField, Args: []logical.Expr{e, &logical.Literal{Value: int32(i), T: types.IntT.WithNullable(false)}}, T: ft}
}

func cgLit(v any, t types.Type) logical.Expr { return &logical.Literal{Value: v, T: t} }

// cgCall types a call like the validator: Infer, then casts where asked.
func cgCall(t testing.TB, name string, args ...logical.Expr) logical.Expr {
	t.Helper()
	ts := make([]types.Type, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	def, ok := cgReg.Lookup(name)
	require.True(t, ok, name)
	res, casts, err := def.Infer(ts)
	require.NoError(t, err)
	xs := append([]logical.Expr(nil), args...)
	for i, c := range casts {
		if c.Kind == types.Null && ts[i].Kind != types.Null {
			continue
		}
		if !c.Equal(ts[i]) {
			xs[i] = &logical.Cast{Arg: xs[i], T: c}
		}
	}
	return &logical.Call{Name: def.Name, Args: xs, T: res, Def: def}
}

// cgCalc compiles a Calc like vectorized/build does for a physical Calc.
func cgCalc(t testing.TB, in types.Schema, cond logical.Expr, projs []logical.Expr) (*Calc, types.Schema) {
	t.Helper()
	var sel Selector
	if cond != nil {
		f, err := expr.CompileFilter(cond, in, cgReg, nil)
		require.NoError(t, err)
		sel = f
	}
	ps := make([]Projection, len(projs))
	out := make(types.Schema, len(projs))
	for i, e := range projs {
		out[i] = types.Field{Name: fmt.Sprintf("o%d", i), Type: e.Type()}
		if c, ok := e.(*logical.ColumnRef); ok {
			ps[i] = Projection{Column: c.Index}
			continue
		}
		ev, err := expr.Compile(e, in, cgReg, nil)
		require.NoError(t, err)
		ps[i] = Projection{Eval: ev}
	}
	as, err := types.ArrowSchema(out)
	require.NoError(t, err)
	return NewCalc(sel, ps, as), out
}

// cgOldProcess is the former Calc.Process: gather every input column of
// the kept rows, then evaluate the projections on them.
func cgOldProcess(c *Calc, b vectorized.Batch) (vectorized.Batch, bool, error) {
	rec, kinds := b.Rec, b.Kinds
	if c.cond != nil {
		sel, err := c.cond.Select(rec)
		if err != nil {
			return vectorized.Batch{}, false, err
		}
		if len(sel) == 0 {
			return vectorized.Batch{}, false, nil
		}
		if len(sel) < int(rec.NumRows()) {
			if rec, err = Gather(rec, sel, nil); err != nil {
				return vectorized.Batch{}, false, err
			}
			if kinds != nil {
				nk := make([]changelog.RowKind, len(sel))
				for i, s := range sel {
					nk[i] = kinds[s]
				}
				kinds = nk
			}
		}
	}
	cols := make([]arrow.Array, len(c.projs))
	for i, p := range c.projs {
		if p.Eval == nil {
			cols[i] = rec.Column(p.Column)
			continue
		}
		a, err := p.Eval.Eval(rec)
		if err != nil {
			return vectorized.Batch{}, false, err
		}
		cols[i] = a
	}
	out, err := NewRecord(c.out, cols, rec.NumRows())
	return vectorized.Batch{Rec: out, Kinds: kinds}, true, err
}

// cgCompare runs c and the former algorithm on every batch and requires
// the same output: arrays equal (NULLs included), same row kinds.
func cgCompare(t *testing.T, c *Calc, out types.Schema, batches []vectorized.Batch) {
	t.Helper()
	for bi, b := range batches {
		want, ok, err := cgOldProcess(c, b)
		require.NoError(t, err)
		col := &collector{}
		require.NoError(t, c.Process(context.Background(), b, col))
		if !ok {
			require.Empty(t, col.batches, "batch %d", bi)
			continue
		}
		require.Len(t, col.batches, 1, "batch %d", bi)
		got := col.batches[0]
		require.Equal(t, want.Kinds, got.Kinds, "batch %d", bi)
		require.Equal(t, want.Rec.NumRows(), got.Rec.NumRows(), "batch %d", bi)
		require.True(t, want.Rec.Schema().Equal(got.Rec.Schema()))
		for i := 0; i < int(want.Rec.NumCols()); i++ {
			require.True(t, array.Equal(want.Rec.Column(i), got.Rec.Column(i)),
				"batch %d column %d:\nwant %v\ngot  %v", bi, i, want.Rec.Column(i), got.Rec.Column(i))
			require.Equal(t, want.Rec.Column(i).NullN(), got.Rec.Column(i).NullN(), "batch %d column %d", bi, i)
		}
		require.Equal(t, types.RecordRows(want.Rec, out), types.RecordRows(got.Rec, out), "batch %d", bi)
	}
}

// cgBatches builds batches of bs rows (0: one batch), plus the same rows
// as slices of a larger record (non-zero offsets), with kinds when asked.
func cgBatches(t *testing.T, s types.Schema, rows [][]any, bs int, kinds bool, r *rand.Rand) []vectorized.Batch {
	t.Helper()
	var out []vectorized.Batch
	for _, b := range split(t, s, rows, bs) {
		b.Rec = cgMaskStructs(b.Rec, r)
		if kinds {
			b.Kinds = make([]changelog.RowKind, b.NumRows())
			for i := range b.Kinds {
				b.Kinds[i] = changelog.RowKind(r.IntN(4))
			}
		}
		out = append(out, b)
	}
	if len(rows) > 2 {
		rec, err := types.BuildRecord(vectorized.Mem, s, rows)
		require.NoError(t, err)
		sl := cgMaskStructs(rec, r).NewSlice(1, int64(len(rows)-1))
		b := vectorized.Batch{Rec: sl}
		if kinds {
			b.Kinds = make([]changelog.RowKind, sl.NumRows())
			for i := range b.Kinds {
				b.Kinds[i] = changelog.RowKind(r.IntN(4))
			}
		}
		out = append(out, b)
	}
	return out
}

// cgMaskStructs makes some more rows of every ROW column (and nested ROW)
// NULL without touching their fields, as sources may produce: a NULL row
// over valid field values. rec has offset 0 (types.BuildRecord).
func cgMaskStructs(rec arrow.RecordBatch, r *rand.Rand) arrow.RecordBatch {
	cols := make([]arrow.Array, rec.NumCols())
	for i := range cols {
		cols[i] = cgMaskNulls(rec.Column(i), r)
	}
	return array.NewRecordBatch(rec.Schema(), cols, rec.NumRows())
}

func cgMaskNulls(a arrow.Array, r *rand.Rand) arrow.Array {
	s, ok := a.(*array.Struct)
	if !ok {
		return a
	}
	kids := make([]arrow.ArrayData, s.NumField())
	for f := range kids {
		kids[f] = cgMaskNulls(s.Field(f), r).Data()
	}
	n := a.Len()
	bits := make([]byte, bitutil.BytesForBits(int64(n)))
	nulls := 0
	for i := 0; i < n; i++ {
		if a.IsValid(i) && r.IntN(6) > 0 {
			bitutil.SetBit(bits, i)
		} else {
			nulls++
		}
	}
	nd := array.NewData(a.DataType(), n, []*memory.Buffer{memory.NewBufferBytes(bits)}, kids, nulls, 0)
	defer nd.Release()
	return array.MakeFromData(nd)
}

// cgBidT is the shape of Nexmark's event table.
var cgBidT = types.RowOf(
	types.Field{Name: "auction", Type: types.BigIntT},
	types.Field{Name: "bidder", Type: types.BigIntT},
	types.Field{Name: "price", Type: types.BigIntT},
	types.Field{Name: "channel", Type: types.StringT},
	types.Field{Name: "url", Type: types.StringT},
	types.Field{Name: "dateTime", Type: types.TimestampOf(3)},
	types.Field{Name: "extra", Type: types.StringT},
)

var cgEventSchema = types.Schema{
	{Name: "event_type", Type: types.IntT},
	{Name: "bid", Type: cgBidT},
	{Name: "dateTime", Type: types.TimestampOf(3)},
}

func cgEventRows(r *rand.Rand, n int, nullP float64) [][]any {
	rows := make([][]any, n)
	maybe := func(v any) any {
		if r.Float64() < nullP {
			return nil
		}
		return v
	}
	for i := range rows {
		et := int32(r.IntN(3))
		var bid any
		if et == 2 || r.IntN(8) == 0 { // some non-bid events carry a bid too
			bid = maybe([]any{
				maybe(int64(r.IntN(1000))), maybe(int64(r.IntN(1000))), maybe(int64(r.IntN(100000))),
				maybe(fmt.Sprintf("channel-%d", r.IntN(10))), maybe(strings.Repeat("u", r.IntN(40))),
				maybe(int64(1_700_000_000_000 + r.IntN(1_000_000))), maybe(strings.Repeat("x", r.IntN(40))),
			})
		}
		rows[i] = []any{maybe(et), bid, maybe(int64(1_700_000_000_000 + i))}
	}
	return rows
}

func TestCalcGatherStructFields(t *testing.T) {
	s := cgEventSchema
	r := rand.New(rand.NewPCG(7, 8))
	rows := cgEventRows(r, 1500, 0.1)
	bid := cgCol(s, 1)
	eq := func(v int32) logical.Expr {
		return cgCall(t, "=", cgCol(s, 0), cgLit(v, types.IntT.WithNullable(false)))
	}
	conds := map[string]logical.Expr{
		"none":       eq(7),
		"some":       eq(2),
		"all":        cgCall(t, "IS NOT NULL", cgCol(s, 2)),
		"most":       cgCall(t, "<>", cgCol(s, 0), cgLit(int32(1), types.IntT.WithNullable(false))),
		"no filter":  nil,
		"null field": cgCall(t, "IS NULL", cgField(bid, 2)),
	}
	projSets := map[string][]logical.Expr{
		"paths only": {cgField(bid, 0), cgField(bid, 2)},
		"strings":    {cgField(bid, 3), cgField(bid, 6), cgCol(s, 2)},
		"whole row":  {bid, cgCol(s, 0)},
		"mixed": {
			cgField(bid, 0),
			cgCall(t, "*", cgField(bid, 2), cgLit(int64(3), types.BigIntT.WithNullable(false))),
			cgCall(t, "UPPER", cgField(bid, 3)),
			cgLit(int64(5), types.BigIntT.WithNullable(false)),
			cgCol(s, 2),
			cgField(bid, 5),
		},
		"computed only": {cgCall(t, "+", cgCol(s, 0), cgLit(int32(1), types.IntT.WithNullable(false)))},
		"constant only": {cgLit("k", types.StringT.WithNullable(false))},
	}
	for cn, cond := range conds {
		for pn, projs := range projSets {
			for _, kinds := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/kinds=%v", cn, pn, kinds), func(t *testing.T) {
					c, out := cgCalc(t, s, cond, projs)
					for _, bs := range []int{1, 7, 1024, 0} {
						rs := rows
						if bs == 1 {
							rs = rows[:200]
						}
						cgCompare(t, c, out, cgBatches(t, s, rs, bs, kinds, r))
					}
				})
			}
		}
	}
}

func TestCalcGatherNestedStruct(t *testing.T) {
	innerT := types.RowOf(types.Field{Name: "x", Type: types.BigIntT}, types.Field{Name: "s", Type: types.StringT})
	s := types.Schema{
		{Name: "k", Type: types.IntT},
		{Name: "r", Type: types.RowOf(types.Field{Name: "in", Type: innerT}, types.Field{Name: "b", Type: types.IntT})},
		{Name: "pad", Type: types.StringT},
	}
	r := rand.New(rand.NewPCG(3, 4))
	rows := make([][]any, 2000)
	for i := range rows {
		var inner, outer any
		switch r.IntN(4) {
		case 0: // NULL inner row
		default:
			var x, str any
			if r.IntN(5) > 0 {
				x = int64(r.IntN(100))
			}
			if r.IntN(5) > 0 {
				str = strings.Repeat("s", r.IntN(20))
			}
			inner = []any{x, str}
		}
		if r.IntN(5) > 0 {
			var b any
			if r.IntN(5) > 0 {
				b = int32(r.IntN(10))
			}
			outer = []any{inner, b}
		}
		rows[i] = []any{int32(r.IntN(10)), outer, strings.Repeat("p", r.IntN(30))}
	}
	rc := cgCol(s, 1)
	projs := []logical.Expr{
		cgField(cgField(rc, 0), 0),
		cgField(cgField(rc, 0), 1),
		cgField(rc, 0),
		cgField(rc, 1),
		cgCall(t, "CHAR_LENGTH", cgField(cgField(rc, 0), 1)),
	}
	for _, cond := range []logical.Expr{
		cgCall(t, "<", cgCol(s, 0), cgLit(int32(8), types.IntT.WithNullable(false))),
		cgCall(t, "<", cgCol(s, 0), cgLit(int32(1), types.IntT.WithNullable(false))),
		cgCall(t, "IS NOT NULL", cgField(cgField(rc, 0), 0)),
	} {
		c, out := cgCalc(t, s, cond, projs)
		for _, bs := range []int{1, 5, 1024, 0} {
			for _, kinds := range []bool{false, true} {
				cgCompare(t, c, out, cgBatches(t, s, rows, bs, kinds, r))
			}
		}
	}
}

// A projection that fails on a row the filter removes must not fail: it
// is evaluated on the kept rows only.
func TestCalcGatherNoErrorOnFilteredRows(t *testing.T) {
	s := types.Schema{
		{Name: "d", Type: types.BigIntT},
		{Name: "r", Type: types.RowOf(types.Field{Name: "d", Type: types.BigIntT}, types.Field{Name: "s", Type: types.StringT})},
	}
	var rows [][]any
	for i := 0; i < 100; i++ {
		rows = append(rows, []any{int64(i % 4), []any{int64(i % 3), "abc"}})
	}
	hundred := cgLit(int64(100), types.BigIntT.WithNullable(false))
	zero := cgLit(int64(0), types.BigIntT.WithNullable(false))
	rc := cgCol(s, 1)
	for _, tc := range []struct {
		name  string
		cond  logical.Expr
		projs []logical.Expr
	}{
		{"column divisor", cgCall(t, "<>", cgCol(s, 0), zero),
			[]logical.Expr{cgCall(t, "/", hundred, cgCol(s, 0)), cgField(rc, 1)}},
		{"field divisor", cgCall(t, "<>", cgField(rc, 0), zero),
			[]logical.Expr{cgField(rc, 1), cgCall(t, "/", hundred, cgField(rc, 0)), cgField(rc, 0)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Unfiltered, the division fails.
			_, err := expr.Compile(tc.projs[0], s, cgReg, nil)
			require.NoError(t, err)
			noCond, _ := cgCalc(t, s, nil, tc.projs)
			err = noCond.Process(context.Background(), split(t, s, rows, 0)[0], &collector{})
			require.ErrorContains(t, err, "by zero")

			c, out := cgCalc(t, s, tc.cond, tc.projs)
			for _, bs := range []int{1, 10, 0} {
				cgCompare(t, c, out, cgBatches(t, s, rows, bs, true, rand.New(rand.NewPCG(1, 1))))
			}
		})
	}
}

// The plan: which projections run before the filter, which columns the
// others read.
func TestCalcGatherPlan(t *testing.T) {
	s := cgEventSchema
	bid := cgCol(s, 1)
	c, _ := cgCalc(t, s, cgCall(t, "=", cgCol(s, 0), cgLit(int32(2), types.IntT.WithNullable(false))), []logical.Expr{
		cgField(bid, 0),
		cgField(bid, 2),
		cgCol(s, 2),
		cgCall(t, "+", cgCol(s, 0), cgLit(int32(1), types.IntT.WithNullable(false))),
	})
	require.Equal(t, []bool{true, true, true, false}, c.early)
	require.Equal(t, []int{0}, c.reads)
	require.False(t, c.readsAll)

	// An evaluator that does not say what it reads makes the filtered
	// record complete.
	c = NewCalc(c.cond, []Projection{{Eval: &rowEvaluator{s: s, t: types.BigIntT, fn: func([]any) any { return int64(1) }}}}, c.out)
	require.True(t, c.readsAll)
}

// cgPathEval claims to be a field-access path that the Calc cannot walk
// (a field index past the row's fields): the Calc then evaluates it on the
// whole batch and gathers the result.
type cgPathEval struct{ Evaluator }

func (cgPathEval) FieldPath() (int, []int, bool) { return 1, []int{99}, true }

func TestCalcGatherPathFallback(t *testing.T) {
	s := cgEventSchema
	r := rand.New(rand.NewPCG(9, 9))
	rows := cgEventRows(r, 500, 0.1)
	cond := cgCall(t, "=", cgCol(s, 0), cgLit(int32(2), types.IntT.WithNullable(false)))
	c, out := cgCalc(t, s, cond, []logical.Expr{cgField(cgCol(s, 1), 2), cgField(cgCol(s, 1), 4)})
	projs := append([]Projection(nil), c.projs...)
	projs[0].Eval = cgPathEval{projs[0].Eval}
	c = NewCalc(c.cond, projs, c.out)
	require.Equal(t, []bool{true, true}, c.early)
	for _, bs := range []int{7, 0} {
		cgCompare(t, c, out, cgBatches(t, s, rows, bs, false, r))
	}
}

// A filter keeping ~92 % of 4096 rows, projecting two BIGINT fields of a
// ROW with three ~40-byte strings (Nexmark's bid projection).
func BenchmarkCalcGatherStructFields(b *testing.B) {
	bidT := types.RowOf(
		types.Field{Name: "auction", Type: types.BigIntT},
		types.Field{Name: "bidder", Type: types.BigIntT},
		types.Field{Name: "price", Type: types.BigIntT},
		types.Field{Name: "channel", Type: types.StringT},
		types.Field{Name: "url", Type: types.StringT},
		types.Field{Name: "extra", Type: types.StringT},
	)
	s := types.Schema{{Name: "event_type", Type: types.IntT}, {Name: "bid", Type: bidT}, {Name: "dateTime", Type: types.TimestampOf(3)}}
	r := rand.New(rand.NewPCG(5, 6))
	rows := make([][]any, 4096)
	str := func() string { return strings.Repeat(string(rune('a'+r.IntN(26))), 36+r.IntN(9)) }
	for i := range rows {
		if r.IntN(100) < 92 {
			rows[i] = []any{int32(2), []any{int64(i), int64(r.IntN(1000)), int64(r.IntN(100000)), str(), str(), str()}, int64(i)}
		} else {
			rows[i] = []any{int32(r.IntN(2)), nil, int64(i)}
		}
	}
	rec, err := types.BuildRecord(vectorized.Mem, s, rows)
	require.NoError(b, err)
	bid := cgCol(s, 1)
	c, _ := cgCalc(b, s, cgCall(b, "=", cgCol(s, 0), cgLit(int32(2), types.IntT.WithNullable(false))),
		[]logical.Expr{cgField(bid, 0), cgField(bid, 2)})
	ctx := context.Background()
	col := &collector{}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		col.batches = col.batches[:0]
		if err := c.Process(ctx, vectorized.Batch{Rec: rec}, col); err != nil {
			b.Fatal(err)
		}
	}
}
