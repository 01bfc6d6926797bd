package physical

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

var (
	intT = types.IntT
	strT = types.StringT
)

func field(name string, t types.Type) types.Field { return types.Field{Name: name, Type: t} }

func table(name string, fields ...types.Field) *catalog.ResolvedTable {
	cols := make([]catalog.Column, len(fields))
	for i, f := range fields {
		cols[i] = catalog.Column{Name: f.Name, Type: f.Type}
	}
	return &catalog.ResolvedTable{
		ID:    catalog.ObjectIdentifier{Catalog: "default_catalog", Database: "default_database", Object: name},
		Table: &catalog.Table{Columns: cols},
		// what a bounded, projecting source (values) declares
		Abilities: &catalog.Abilities{Bounded: true, Lookup: true, ProjectionPushDown: true},
	}
}

var (
	ordersT = table("orders", field("a", intT), field("b", intT), field("c", strT))
	itemsT  = table("items", field("d", intT), field("a", intT))
	orders  = &logical.Scan{Table: ordersT, Out: ordersT.PhysicalSchema()}
	items   = &logical.Scan{Table: itemsT, Out: itemsT.PhysicalSchema()}
)

func ref(i int, name string, t types.Type) *logical.ColumnRef {
	return &logical.ColumnRef{Index: i, Name: name, T: t}
}

func lit(v any, t types.Type) *logical.Literal { return &logical.Literal{Value: v, T: t} }

func i32(v int32) *logical.Literal { return lit(v, intT.WithNullable(false)) }

func call(name string, t types.Type, args ...logical.Expr) *logical.Call {
	def, _ := function.Builtin(name)
	return &logical.Call{Name: name, Args: args, T: t, Def: def}
}

func project(in logical.Node, names []string, exprs ...logical.Expr) *logical.Project {
	out := make(types.Schema, len(exprs))
	for i, e := range exprs {
		out[i] = field(names[i], e.Type())
	}
	return &logical.Project{Input: in, Exprs: exprs, Out: out}
}

func join(l, r logical.Node, kind logical.JoinKind, cond logical.Expr) *logical.Join {
	out := append(types.Schema{}, l.Schema()...)
	if kind != logical.SemiJoin && kind != logical.AntiJoin {
		out = append(out, r.Schema()...)
	}
	return &logical.Join{Left: l, Right: r, Kind: kind, Cond: cond, Out: out}
}

func testEnv() *Env {
	reg := function.NewRegistry()
	reg.Register(&function.Definition{Name: "+", NullOnNull: true, Eval: func(_ *function.EvalContext, _ function.CallTypes, a []any) (any, error) {
		return a[0].(int32) + a[1].(int32), nil
	}})
	reg.Register(&function.Definition{Name: ">"})
	reg.Register(&function.Definition{Name: "="})
	reg.Register(&function.Definition{Name: "AND"})
	reg.Register(&function.Definition{Name: "RAND", Nondeterministic: true})
	return &Env{Functions: reg, Eval: &function.EvalContext{}}
}

func TestTranslateAndExplain(t *testing.T) {
	a, b, c := ref(0, "a", intT), ref(1, "b", intT), ref(2, "c", strT)
	gt := func(x, y logical.Expr) logical.Expr { return call(">", types.BooleanT, x, y) }
	eq := func(x, y logical.Expr) logical.Expr { return call("=", types.BooleanT, x, y) }
	plus := func(x, y logical.Expr) logical.Expr { return call("+", intT, x, y) }
	sum := logical.AggCall{Name: "SUM", Args: []int{1}, Filter: -1, T: intT, Alias: "EXPR$1"}
	cnt := logical.AggCall{Name: "COUNT", Filter: -1, T: types.BigIntT.WithNullable(false), Alias: "n"}
	sorted := &logical.Sort{Input: orders, Keys: []logical.SortKey{{Index: 0, NullsFirst: true}, {Index: 1, Desc: true}}}
	pruned := &logical.Scan{Table: ordersT, Projection: []int{0, 2}, Out: types.Schema{field("a", intT), field("c", strT)}}
	cases := []struct {
		name string
		in   logical.Node
		want string
	}{
		{
			name: "scan",
			in:   orders,
			want: "TableSourceScan(table=[[default_catalog, default_database, orders]], fields=[a, b, c])\n",
		},
		{
			name: "scan with projection",
			in:   pruned,
			want: "TableSourceScan(table=[[default_catalog, default_database, orders, project=[a, c]]], fields=[a, c])\n",
		},
		{
			name: "filter over scan is a calc with identity projection",
			in:   &logical.Filter{Input: orders, Cond: gt(a, i32(10))},
			want: "Calc(select=[a, b, c], where=[>(a, 10)])\n+- TableSourceScan(table=[[default_catalog, default_database, orders]], fields=[a, b, c])\n",
		},
		{
			name: "project over filter over project fuse into one calc",
			in: project(&logical.Filter{Input: project(orders, []string{"x", "c"}, plus(a, b), c), Cond: gt(ref(0, "x", intT), i32(10))},
				[]string{"c", "y"}, ref(1, "c", strT), ref(0, "x", intT)),
			want: "Calc(select=[c, +(a, b) AS y], where=[>(+(a, b), 10)])\n+- TableSourceScan(table=[[default_catalog, default_database, orders]], fields=[a, b, c])\n",
		},
		{
			name: "filter over nondeterministic projection gets its own calc",
			in: &logical.Filter{Input: project(orders, []string{"r"}, call("RAND", types.DoubleT)),
				Cond: gt(ref(0, "r", types.DoubleT), lit(0.5, types.DoubleT))},
			want: "Calc(select=[r], where=[>(r, 0.5)])\n+- Calc(select=[RAND() AS r])\n   +- TableSourceScan(table=[[default_catalog, default_database, orders]], fields=[a, b, c])\n",
		},
		{
			name: "grouped aggregate",
			in:   &logical.Aggregate{Input: orders, GroupKeys: []int{0}, Aggs: []logical.AggCall{sum, cnt}, Out: types.Schema{field("a", intT), field("EXPR$1", intT), field("n", cnt.T)}},
			want: "HashAggregate(isMerge=[false], groupBy=[a], select=[a, SUM(b) AS EXPR$1, COUNT(*) AS n])\n+- TableSourceScan(table=[[default_catalog, default_database, orders]], fields=[a, b, c])\n",
		},
		{
			name: "equi join is a hash join; duplicate names get a suffix",
			in:   join(orders, items, logical.InnerJoin, call("AND", types.BooleanT, eq(a, ref(4, "a", intT)), gt(b, ref(3, "d", intT)))),
			want: "HashJoin(joinType=[InnerJoin], where=[AND(=(a, a0), >(b, d))], select=[a, b, c, d, a0], build=[right])\n" +
				":- TableSourceScan(table=[[default_catalog, default_database, orders]], fields=[a, b, c])\n" +
				"+- TableSourceScan(table=[[default_catalog, default_database, items]], fields=[d, a])\n",
		},
		{
			name: "expression keys are computed below and dropped above",
			in:   join(orders, items, logical.LeftJoin, eq(plus(a, i32(1)), ref(3, "d", intT))),
			want: "Calc(select=[a, b, c, d, a0 AS a])\n" +
				"+- HashJoin(joinType=[LeftOuterJoin], where=[=($f3, d)], select=[a, b, c, $f3, d, a0], build=[right])\n" +
				"   :- Calc(select=[a, b, c, +(a, 1) AS $f3])\n" +
				"   :  +- TableSourceScan(table=[[default_catalog, default_database, orders]], fields=[a, b, c])\n" +
				"   +- TableSourceScan(table=[[default_catalog, default_database, items]], fields=[d, a])\n",
		},
		{
			name: "semi join",
			in:   join(orders, items, logical.SemiJoin, eq(ref(4, "a", intT), a)),
			want: "HashJoin(joinType=[LeftSemiJoin], where=[=(a, a0)], select=[a, b, c], build=[right])\n" +
				":- TableSourceScan(table=[[default_catalog, default_database, orders]], fields=[a, b, c])\n" +
				"+- TableSourceScan(table=[[default_catalog, default_database, items]], fields=[d, a])\n",
		},
		{
			name: "non-equi join is a nested loop join",
			in:   join(orders, items, logical.InnerJoin, gt(a, ref(3, "d", intT))),
			want: "NestedLoopJoin(joinType=[InnerJoin], where=[>(a, d)], select=[a, b, c, d, a0], build=[right])\n" +
				":- TableSourceScan(table=[[default_catalog, default_database, orders]], fields=[a, b, c])\n" +
				"+- TableSourceScan(table=[[default_catalog, default_database, items]], fields=[d, a])\n",
		},
		{
			name: "cross join",
			in:   join(orders, items, logical.InnerJoin, nil),
			want: "NestedLoopJoin(joinType=[InnerJoin], where=[true], select=[a, b, c, d, a0], build=[right])\n" +
				":- TableSourceScan(table=[[default_catalog, default_database, orders]], fields=[a, b, c])\n" +
				"+- TableSourceScan(table=[[default_catalog, default_database, items]], fields=[d, a])\n",
		},
		{
			name: "sort",
			in:   sorted,
			want: "Sort(orderBy=[a ASC, b DESC])\n+- TableSourceScan(table=[[default_catalog, default_database, orders]], fields=[a, b, c])\n",
		},
		{
			name: "null order is not printed, as in Flink",
			in:   &logical.Sort{Input: orders, Keys: []logical.SortKey{{Index: 0}, {Index: 1, Desc: true, NullsFirst: true}}},
			want: "Sort(orderBy=[a ASC, b DESC])\n+- TableSourceScan(table=[[default_catalog, default_database, orders]], fields=[a, b, c])\n",
		},
		{
			name: "sort with limit is a sort limit",
			in:   &logical.Limit{Input: sorted, Offset: 2, Fetch: 10},
			want: "SortLimit(orderBy=[a ASC, b DESC], offset=[2], fetch=[10])\n+- TableSourceScan(table=[[default_catalog, default_database, orders]], fields=[a, b, c])\n",
		},
		{
			name: "limit",
			in:   &logical.Limit{Input: orders, Offset: 0, Fetch: 5},
			want: "Limit(offset=[0], fetch=[5])\n+- TableSourceScan(table=[[default_catalog, default_database, orders]], fields=[a, b, c])\n",
		},
		{
			name: "union and intersect",
			in: &logical.SetOp{Kind: logical.Intersect,
				Left:  &logical.Union{Inputs: []logical.Node{pruned, pruned}, Out: pruned.Out},
				Right: pruned},
			want: "HashIntersect(all=[false], select=[a, c])\n" +
				":- Union(all=[true], union=[a, c])\n" +
				":  :- TableSourceScan(table=[[default_catalog, default_database, orders, project=[a, c]]], fields=[a, c])\n" +
				":  +- TableSourceScan(table=[[default_catalog, default_database, orders, project=[a, c]]], fields=[a, c])\n" +
				"+- TableSourceScan(table=[[default_catalog, default_database, orders, project=[a, c]]], fields=[a, c])\n",
		},
		{
			name: "values are evaluated",
			in: &logical.Values{Rows: [][]logical.Expr{{plus(i32(1), i32(2)), lit("x", strT)}, {i32(4), lit(nil, strT)}},
				Out: types.Schema{field("a", intT), field("s", strT)}},
			want: "Values(type=[RecordType(INTEGER a, VARCHAR(2147483647) s)], tuples=[[{ 3, 'x' }, { 4, null:STRING }]])\n",
		},
		{
			name: "sink",
			in:   &logical.Sink{Input: orders, Table: ordersT},
			want: "Sink(table=[default_catalog.default_database.orders], fields=[a, b, c])\n+- TableSourceScan(table=[[default_catalog, default_database, orders]], fields=[a, b, c])\n",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := TranslateWith(tc.in, testEnv())
			require.NoError(t, err)
			require.Equal(t, tc.want, Explain(p))
			if _, ok := tc.in.(*logical.Sink); ok {
				return
			}
			require.Equal(t, tc.in.Schema().Names(), p.Schema().Names())
			for i, f := range tc.in.Schema() {
				require.True(t, f.Type.Equal(p.Schema()[i].Type), "column %d type", i)
			}
		})
	}
}

func TestTranslateValuesThatCannotBeEvaluated(t *testing.T) {
	// Without a registry, and when evaluation fails (1/0), the rows are
	// computed at run time by a Calc over a one-row Values.
	v := &logical.Values{Rows: [][]logical.Expr{{call("+", intT, i32(1), i32(2))}}, Out: types.Schema{field("a", intT)}}
	p, err := Translate(v)
	require.NoError(t, err)
	require.Equal(t, "Calc(select=[+(1, 2) AS a])\n+- Values(type=[RecordType(INTEGER ZERO)], tuples=[[{ 0 }]])\n", Explain(p))
	v2 := &logical.Values{Rows: [][]logical.Expr{{i32(1)}, {call("/", intT, i32(1), i32(0))}}, Out: types.Schema{field("a", intT)}}
	p, err = TranslateWith(v2, testEnv())
	require.NoError(t, err)
	require.Equal(t, "Union(all=[true], union=[a])\n"+
		":- Calc(select=[1 AS a])\n"+
		":  +- Values(type=[RecordType(INTEGER ZERO)], tuples=[[{ 0 }]])\n"+
		"+- Calc(select=[/(1, 0) AS a])\n"+
		"   +- Values(type=[RecordType(INTEGER ZERO)], tuples=[[{ 0 }]])\n", Explain(p))
	_, err = Translate(&logical.Values{Rows: [][]logical.Expr{{ref(0, "a", intT)}}, Out: types.Schema{field("a", intT)}})
	require.ErrorContains(t, err, "not constant")
}
