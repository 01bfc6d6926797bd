package physical

import (
	"strings"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// ReplicateRowsFunc is the registry key of the table function that emits
// its arguments after the first n times (Flink's ReplicateRows, used by
// INTERSECT ALL and EXCEPT ALL); vectorized/build implements it.
const ReplicateRowsFunc = "$REPLICATE_ROWS$1"

// replicateRowsDef is its internal definition (the Correlate builder
// implements it).
var replicateRowsDef = function.Internal(ReplicateRowsFunc, function.Table)

// streamSetOp plans INTERSECT / EXCEPT [ALL] over the streaming inputs l
// and r as Flink's rewrite rules do, so they run as updating operators:
//
//   - INTERSECT / EXCEPT (ReplaceIntersectWithSemiJoinRule,
//     ReplaceMinusWithAntiJoinRule): a semi / anti Join on IS NOT DISTINCT
//     FROM every column, under a GroupAggregate on all columns.
//   - INTERSECT ALL (RewriteIntersectAllRule): a Union of both sides with
//     a marker column per side, a GroupAggregate counting each side's
//     rows per distinct row, the rows present on both sides, replicated
//     min(left, right) times by a Correlate of ReplicateRows.
//   - EXCEPT ALL (RewriteMinusAllRule): the Union with +1 / -1 markers,
//     their SUM per distinct row, rows with a positive sum replicated that
//     many times.
func streamSetOp(x *SetOp, l, r Node) Node {
	out := x.Schema()
	n := len(out)
	keys := make([]int, n)
	for i := range keys {
		keys[i] = i
	}
	if !x.All {
		kind := logical.SemiJoin
		if x.Kind == logical.Except {
			kind = logical.AntiJoin
		}
		safe := make([]bool, n)
		for i := range safe {
			safe[i] = true
		}
		j := &StreamJoin{Left: &Exchange{Input: l, Keys: keys}, Right: &Exchange{Input: r, Keys: keys}, Kind: kind,
			LeftKeys: keys, RightKeys: keys, NullSafe: safe, Out: l.Schema()}
		return &GroupAggregate{Input: &Exchange{Input: j, Keys: keys}, GroupKeys: keys, Out: out}
	}
	// the union's columns: the left names, nullable where either side is
	cols := make(types.Schema, n)
	rs := r.Schema()
	for i, f := range l.Schema() {
		cols[i] = f
		if i < len(rs) && rs[i].Type.Nullable() {
			cols[i].Type = f.Type.WithNullable(true)
		}
	}
	refs := func(in Node) []logical.Expr {
		s := in.Schema()
		es := make([]logical.Expr, n)
		for i := range es {
			es[i] = &logical.ColumnRef{Index: i, Name: s[i].Name, T: s[i].Type}
		}
		return es
	}
	boolT, bigint := types.BooleanT, types.BigIntT.WithNullable(false)
	lit := func(v any, t types.Type) logical.Expr { return &logical.Literal{Value: v, T: t} }
	ref := func(i int, s types.Schema) *logical.ColumnRef {
		return &logical.ColumnRef{Index: i, Name: s[i].Name, T: s[i].Type}
	}
	call := func(def *function.Definition, t types.Type, args ...logical.Expr) logical.Expr {
		return logical.NewCall(def, t, args...)
	}
	var union, agg Node
	var count logical.Expr
	var cond logical.Expr
	var aggOut types.Schema
	if x.Kind == logical.Intersect {
		ut := append(append(types.Schema(nil), cols...), types.Field{Name: "vcol_left_marker", Type: boolT}, types.Field{Name: "vcol_right_marker", Type: boolT})
		lc := &Calc{Input: l, Projection: append(refs(l), lit(true, boolT.WithNullable(false)), lit(nil, boolT)), Out: ut}
		rc := &Calc{Input: r, Projection: append(refs(r), lit(nil, boolT), lit(true, boolT.WithNullable(false))), Out: ut}
		union = &StreamUnion{Inputs: []Node{fuseCalc(lc), fuseCalc(rc)}, Out: ut}
		aggOut = append(append(types.Schema(nil), cols...), types.Field{Name: "vcol_left_cnt", Type: bigint}, types.Field{Name: "vcol_right_cnt", Type: bigint})
		agg = &GroupAggregate{Input: &Exchange{Input: union, Keys: keys}, GroupKeys: keys, Out: aggOut, Aggs: []logical.AggCall{
			{Name: "COUNT", Args: []int{n}, Filter: -1, T: bigint, Alias: "vcol_left_cnt", Def: function.AggCount},
			{Name: "COUNT", Args: []int{n + 1}, Filter: -1, T: bigint, Alias: "vcol_right_cnt", Def: function.AggCount},
		}}
		lcnt, rcnt := ref(n, aggOut), ref(n+1, aggOut)
		count = call(function.FnIf, bigint, call(function.OpGreater, boolT.WithNullable(false), lcnt, rcnt), rcnt, lcnt)
		one := lit(int64(1), bigint)
		cond = call(function.OpAnd, boolT.WithNullable(false), call(function.OpGreaterEq, boolT.WithNullable(false), lcnt, one), call(function.OpGreaterEq, boolT.WithNullable(false), rcnt, one))
	} else {
		ut := append(append(types.Schema(nil), cols...), types.Field{Name: "vcol_marker", Type: bigint})
		lc := &Calc{Input: l, Projection: append(refs(l), lit(int64(1), bigint)), Out: ut}
		rc := &Calc{Input: r, Projection: append(refs(r), lit(int64(-1), bigint)), Out: ut}
		union = &StreamUnion{Inputs: []Node{fuseCalc(lc), fuseCalc(rc)}, Out: ut}
		aggOut = append(append(types.Schema(nil), cols...), types.Field{Name: "sum_vcol_marker", Type: bigint})
		agg = &GroupAggregate{Input: &Exchange{Input: union, Keys: keys}, GroupKeys: keys, Out: aggOut, Aggs: []logical.AggCall{
			{Name: "SUM", Args: []int{n}, Filter: -1, T: bigint, Alias: "sum_vcol_marker", Def: function.AggSum},
		}}
		count = ref(n, aggOut)
		cond = call(function.OpGreater, boolT.WithNullable(false), count, lit(int64(0), bigint))
	}
	// Calc(select=[count AS $f0 | sum_vcol_marker, cols…], where=[…])
	countName := "$f0"
	if c, ok := count.(*logical.ColumnRef); ok {
		countName = c.Name
	}
	calcOut := append(types.Schema{{Name: countName, Type: bigint}}, cols...)
	calcProj := append([]logical.Expr{count}, refs(agg)...)
	calc := &Calc{Input: agg, Projection: calcProj, Condition: cond, Out: calcOut}
	// Correlate(ReplicateRows($f0, cols…)): the function's columns follow
	args := make([]logical.Expr, n+1)
	for i := range args {
		args[i] = ref(i, calcOut)
	}
	fnCols := make(types.Schema, n)
	for i, f := range cols {
		fnCols[i] = types.Field{Name: f.Name, Type: f.Type}
	}
	corOut := uniquifySchema(append(append(types.Schema(nil), calcOut...), fnCols...))
	cor := &Correlate{Input: calc, Call: logical.NewCall(replicateRowsDef, types.RowOf(fnCols...), args...),
		Display: "ReplicateRows", Kind: logical.InnerJoin, Out: corOut}
	final := make([]logical.Expr, n)
	for i := range final {
		final[i] = ref(n+1+i, corOut)
	}
	return &Calc{Input: cor, Projection: final, Out: out}
}

// nullSafeJoinDescribe prints a join on IS NOT DISTINCT FROM keys as
// Flink does: IS NOT DISTINCT FROM(c, f) for one key, Calcite's expansion
// ((a = d) OR (a IS NULL AND d IS NULL)) AND … for more.
func nullSafeJoinDescribe(x *StreamJoin, left, right Node, execution bool) string {
	names := joinNames(left.Schema(), right.Schema())
	nLeft := len(left.Schema())
	exprStr := ExprString
	if execution {
		exprStr = ExecExprString
	}
	var conds []string
	for i := range x.LeftKeys {
		l := &logical.ColumnRef{Index: x.LeftKeys[i]}
		r := &logical.ColumnRef{Index: nLeft + x.RightKeys[i]}
		if i >= len(x.NullSafe) || !x.NullSafe[i] {
			conds = append(conds, exprStr(logical.NewCall(function.OpEquals, types.BooleanT, l, r), names))
			continue
		}
		if len(x.LeftKeys) == 1 {
			conds = append(conds, "IS NOT DISTINCT FROM("+colName(names, l.Index)+", "+colName(names, r.Index)+")")
			continue
		}
		boolT := types.BooleanT
		eq := logical.NewCall(function.OpEquals, boolT, l, r)
		both := logical.NewCall(function.OpAnd, boolT,
			logical.NewCall(function.OpIsNull, boolT, l), logical.NewCall(function.OpIsNull, boolT, r))
		conds = append(conds, exprStr(logical.NewCall(function.OpOr, boolT, eq, both), names))
	}
	if x.Extra != nil {
		conds = append(conds, exprStr(x.Extra, names))
	}
	where := conds[0]
	if len(conds) > 1 {
		where = "(" + strings.Join(conds, " AND ") + ")"
	}
	return "joinType=[" + x.Kind.String() + "], where=[" + where + "], select=[" + strings.Join(outNames(left, right, x.Kind, names), ", ") +
		"], leftInputSpec=[NoUniqueKey], rightInputSpec=[NoUniqueKey]"
}

// fuseCalc merges c with a Calc below it, as Flink's plans show one Calc.
func fuseCalc(c *Calc) Node {
	if in, ok := c.Input.(*Calc); ok {
		if m, ok := mergeCalcs(c, in); ok {
			return m
		}
	}
	return c
}
