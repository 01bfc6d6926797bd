package rules

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

func ruleByName(t *testing.T, name string) Rule {
	for _, r := range All(testRegistry(), &function.EvalContext{}) {
		if r.Name() == name {
			return r
		}
	}
	t.Fatalf("no rule %s", name)
	return nil
}

// sampleScan etc. are shared inputs for the rule cases.
var (
	ordersScan = scanOf(ordersT)
	itemsScan  = scanOf(itemsT)
)

type ruleCase struct {
	name string
	rule string
	in   logical.Node
	want string // logical.Explain of the result; "" means the rule must not fire
}

func ruleCases() []ruleCase {
	o, it := ordersScan, itemsScan
	a, b := ref(o, 0), ref(o, 1)
	oi := join(o, it, logical.InnerJoin, nil)
	d := refAt(3, "d", intT)
	e := refAt(4, "e", intT)
	return []ruleCase{
		{
			name: "fold arithmetic in a projection",
			rule: "ReduceExpressionsRule",
			in:   project(o, []string{"x"}, add(a, add(i32(1), i32(2)))),
			want: "LogicalProject(x=[+($0, 3)])\n+- LogicalTableScan(table=[[default_catalog, default_database, orders]])\n",
		},
		{
			name: "division by zero stays for run time",
			rule: "ReduceExpressionsRule",
			in:   project(o, []string{"x"}, call("/", intT, i32(1), i32(0))),
		},
		{
			name: "nondeterministic call is not folded",
			rule: "ReduceExpressionsRule",
			in:   project(o, []string{"x"}, call("RAND", types.DoubleT)),
		},
		{
			name: "AND with TRUE simplifies, Filter(TRUE) disappears",
			rule: "ReduceExpressionsRule",
			in:   filter(filter(o, and(gt(a, i32(1)), lit(true, boolT))), gt(i32(2), i32(1))),
			want: "LogicalFilter(condition=[>($0, 1)])\n+- LogicalTableScan(table=[[default_catalog, default_database, orders]])\n",
		},
		{
			name: "Filter(FALSE) becomes empty Values",
			rule: "ReduceExpressionsRule",
			in:   filter(o, and(gt(a, i32(1)), lit(false, boolT))),
			want: "LogicalValues(tuples=[[]])\n",
		},
		{
			name: "Filter(NULL) becomes empty Values",
			rule: "ReduceExpressionsRule",
			in:   filter(o, lit(nil, boolT)),
			want: "LogicalValues(tuples=[[]])\n",
		},
		{
			name: "OR with TRUE is TRUE",
			rule: "ReduceExpressionsRule",
			in:   filter(o, call("OR", boolT, gt(a, i32(1)), lit(true, boolT))),
			want: "LogicalTableScan(table=[[default_catalog, default_database, orders]])\n",
		},
		{
			name: "CASE with literal conditions",
			rule: "ReduceExpressionsRule",
			in: project(o, []string{"x"}, &logical.Case{Whens: []logical.When{
				{Cond: lit(false, boolT), Then: a},
				{Cond: gt(b, i32(0)), Then: b},
				{Cond: lit(true, boolT), Then: i32(7)},
				{Cond: gt(a, i32(0)), Then: a},
			}, T: intT}),
			want: "LogicalProject(x=[CASE(>($1, 0), $1, 7)])\n+- LogicalTableScan(table=[[default_catalog, default_database, orders]])\n",
		},
		{
			name: "join condition TRUE becomes a cross join",
			rule: "ReduceExpressionsRule",
			in:   join(o, it, logical.InnerJoin, gt(i32(2), i32(1))),
			want: "LogicalJoin(condition=[true], joinType=[inner])\n:- LogicalTableScan(table=[[default_catalog, default_database, orders]])\n+- LogicalTableScan(table=[[default_catalog, default_database, items]])\n",
		},
		{
			name: "empty input empties the projection above",
			rule: "PruneEmptyRule",
			in:   project(emptyValues(o.Schema()), []string{"a"}, a),
			want: "LogicalValues(tuples=[[]])\n",
		},
		{
			name: "global aggregate over empty input still yields a row",
			rule: "PruneEmptyRule",
			in: &logical.Aggregate{Input: emptyValues(o.Schema()), Aggs: []logical.AggCall{{Name: "COUNT", Filter: -1, T: types.BigIntT.WithNullable(false), Alias: "c"}},
				Out: types.Schema{field("c", types.BigIntT.WithNullable(false))}},
		},
		{
			name: "LIMIT 0 is empty",
			rule: "PruneEmptyRule",
			in:   &logical.Limit{Input: o, Fetch: 0},
			want: "LogicalValues(tuples=[[]])\n",
		},
		{
			name: "empty union input dropped",
			rule: "PruneEmptyRule",
			in:   &logical.Union{Inputs: []logical.Node{o, emptyValues(o.Schema())}, Out: o.Schema()},
			want: "LogicalUnion(all=[true])\n+- LogicalTableScan(table=[[default_catalog, default_database, orders]])\n",
		},
		{
			name: "left join with empty right side stays",
			rule: "PruneEmptyRule",
			in:   join(o, emptyValues(it.Schema()), logical.LeftJoin, nil),
		},
		{
			name: "filters merge, lower condition first",
			rule: "FilterMergeRule",
			in:   filter(filter(o, gt(a, i32(1))), gt(b, i32(2))),
			want: "LogicalFilter(condition=[AND(>($0, 1), >($1, 2))])\n+- LogicalTableScan(table=[[default_catalog, default_database, orders]])\n",
		},
		{
			name: "filter moves below projection with substitution",
			rule: "FilterProjectTransposeRule",
			in:   filter(project(o, []string{"x", "c"}, add(a, b), ref(o, 2)), gt(refAt(0, "x", intT), i32(10))),
			want: "LogicalProject(x=[+($0, $1)], c=[$2])\n+- LogicalFilter(condition=[>(+($0, $1), 10)])\n   +- LogicalTableScan(table=[[default_catalog, default_database, orders]])\n",
		},
		{
			name: "filter over nondeterministic projection stays",
			rule: "FilterProjectTransposeRule",
			in:   filter(project(o, []string{"r"}, call("RAND", types.DoubleT)), gt(refAt(0, "r", types.DoubleT), lit(0.5, types.DoubleT))),
		},
		{
			name: "WHERE over a cross join: sides and join condition",
			rule: "FilterIntoJoinRule",
			in:   filter(oi, and(eq(a, d), gt(b, i32(1)), gt(e, i32(2)))),
			want: "LogicalJoin(condition=[=($0, $3)], joinType=[inner])\n:- LogicalFilter(condition=[>($1, 1)])\n:  +- LogicalTableScan(table=[[default_catalog, default_database, orders]])\n+- LogicalFilter(condition=[>($1, 2)])\n   +- LogicalTableScan(table=[[default_catalog, default_database, items]])\n",
		},
		{
			name: "common factor of an OR becomes the join condition (TPC-H Q19)",
			rule: "FilterIntoJoinRule",
			in:   filter(oi, or(and(eq(a, d), gt(b, i32(1))), and(eq(a, d), gt(e, i32(2))))),
			want: "LogicalJoin(condition=[AND(=($0, $3), OR(>($1, 1), >($4, 2)))], joinType=[inner])\n:- LogicalTableScan(table=[[default_catalog, default_database, orders]])\n+- LogicalTableScan(table=[[default_catalog, default_database, items]])\n",
		},
		{
			name: "an OR one of whose disjuncts is the common factor is the factor",
			rule: "FilterIntoJoinRule",
			in:   filter(oi, or(eq(a, d), and(eq(a, d), gt(e, i32(2))))),
			want: "LogicalJoin(condition=[=($0, $3)], joinType=[inner])\n:- LogicalTableScan(table=[[default_catalog, default_database, orders]])\n+- LogicalTableScan(table=[[default_catalog, default_database, items]])\n",
		},
		{
			name: "left join: only left conjuncts go down",
			rule: "FilterIntoJoinRule",
			in:   filter(join(o, it, logical.LeftJoin, eq(a, d)), and(gt(b, i32(1)), gt(e, i32(2)))),
			want: "LogicalFilter(condition=[>($4, 2)])\n+- LogicalJoin(condition=[=($0, $3)], joinType=[left])\n   :- LogicalFilter(condition=[>($1, 1)])\n   :  +- LogicalTableScan(table=[[default_catalog, default_database, orders]])\n   +- LogicalTableScan(table=[[default_catalog, default_database, items]])\n",
		},
		{
			name: "full join: nothing moves",
			rule: "FilterIntoJoinRule",
			in:   filter(join(o, it, logical.FullJoin, eq(a, d)), gt(b, i32(1))),
		},
		{
			name: "left join under a filter rejecting NULL right rows becomes inner",
			rule: "OuterJoinSimplifyRule",
			in:   filter(join(o, it, logical.LeftJoin, eq(a, d)), gt(e, i32(2))),
			want: "LogicalFilter(condition=[>($4, 2)])\n+- LogicalJoin(condition=[=($0, $3)], joinType=[inner])\n   :- LogicalTableScan(table=[[default_catalog, default_database, orders]])\n   +- LogicalTableScan(table=[[default_catalog, default_database, items]])\n",
		},
		{
			name: "full join rejecting NULL left rows becomes left join",
			rule: "OuterJoinSimplifyRule",
			in:   filter(join(o, it, logical.FullJoin, eq(a, d)), and(gt(add(b, i32(1)), i32(2)), call("OR", boolT, gt(a, i32(1)), gt(e, i32(1))))),
			want: "LogicalFilter(condition=[AND(>(+($1, 1), 2), OR(>($0, 1), >($4, 1)))])\n+- LogicalJoin(condition=[=($0, $3)], joinType=[left])\n   :- LogicalTableScan(table=[[default_catalog, default_database, orders]])\n   +- LogicalTableScan(table=[[default_catalog, default_database, items]])\n",
		},
		{
			name: "IS NULL on the right side keeps the left join",
			rule: "OuterJoinSimplifyRule",
			in:   filter(join(o, it, logical.LeftJoin, eq(a, d)), call("IS NULL", boolT, e)),
		},
		{
			name: "one-sided ON conjuncts of an inner join go into the inputs",
			rule: "JoinConditionPushRule",
			in:   join(o, it, logical.InnerJoin, and(eq(a, d), gt(b, i32(1)), gt(e, i32(2)))),
			want: "LogicalJoin(condition=[=($0, $3)], joinType=[inner])\n:- LogicalFilter(condition=[>($1, 1)])\n:  +- LogicalTableScan(table=[[default_catalog, default_database, orders]])\n+- LogicalFilter(condition=[>($1, 2)])\n   +- LogicalTableScan(table=[[default_catalog, default_database, items]])\n",
		},
		{
			name: "left join ON: right-only conjunct goes right, left-only stays",
			rule: "JoinConditionPushRule",
			in:   join(o, it, logical.LeftJoin, and(eq(a, d), gt(b, i32(1)), gt(e, i32(2)))),
			want: "LogicalJoin(condition=[AND(=($0, $3), >($1, 1))], joinType=[left])\n:- LogicalTableScan(table=[[default_catalog, default_database, orders]])\n+- LogicalFilter(condition=[>($1, 2)])\n   +- LogicalTableScan(table=[[default_catalog, default_database, items]])\n",
		},
		{
			name: "group-key filter goes below the aggregate",
			rule: "FilterAggregateTransposeRule",
			in: filter(&logical.Aggregate{Input: o, GroupKeys: []int{1}, Aggs: []logical.AggCall{{Name: "SUM", Args: []int{0}, Filter: -1, T: intT, Alias: "s"}},
				Out: types.Schema{field("b", intT), field("s", intT)}}, and(gt(refAt(0, "b", intT), i32(1)), gt(refAt(1, "s", intT), i32(5)))),
			want: "LogicalFilter(condition=[>($1, 5)])\n+- LogicalAggregate(group=[{1}], s=[SUM($0)])\n   +- LogicalFilter(condition=[>($1, 1)])\n      +- LogicalTableScan(table=[[default_catalog, default_database, orders]])\n",
		},
		{
			name: "filter goes into union inputs",
			rule: "FilterSetOpTransposeRule",
			in:   filter(&logical.Union{Inputs: []logical.Node{o, o}, Out: o.Schema()}, gt(a, i32(1))),
			want: "LogicalUnion(all=[true])\n:- LogicalFilter(condition=[>($0, 1)])\n:  +- LogicalTableScan(table=[[default_catalog, default_database, orders]])\n+- LogicalFilter(condition=[>($0, 1)])\n   +- LogicalTableScan(table=[[default_catalog, default_database, orders]])\n",
		},
		{
			name: "filter goes into except inputs",
			rule: "FilterSetOpTransposeRule",
			in:   filter(&logical.SetOp{Left: o, Right: o, Kind: logical.Except}, gt(a, i32(1))),
			want: "LogicalMinus(all=[false])\n:- LogicalFilter(condition=[>($0, 1)])\n:  +- LogicalTableScan(table=[[default_catalog, default_database, orders]])\n+- LogicalFilter(condition=[>($0, 1)])\n   +- LogicalTableScan(table=[[default_catalog, default_database, orders]])\n",
		},
		{
			name: "filter goes below sort",
			rule: "FilterSortTransposeRule",
			in:   filter(&logical.Sort{Input: o, Keys: []logical.SortKey{{Index: 0}}}, gt(a, i32(1))),
			want: "LogicalSort(sort0=[$0 ASC-nulls-last])\n+- LogicalFilter(condition=[>($0, 1)])\n   +- LogicalTableScan(table=[[default_catalog, default_database, orders]])\n",
		},
		{
			name: "projections merge",
			rule: "ProjectMergeRule",
			in:   project(project(o, []string{"x", "c"}, add(a, b), ref(o, 2)), []string{"c", "y"}, refAt(1, "c", strT), add(refAt(0, "x", intT), i32(1))),
			want: "LogicalProject(c=[$2], y=[+(+($0, $1), 1)])\n+- LogicalTableScan(table=[[default_catalog, default_database, orders]])\n",
		},
		{
			name: "nondeterministic expression used twice blocks the merge",
			rule: "ProjectMergeRule",
			in: project(project(o, []string{"r"}, call("RAND", types.DoubleT)), []string{"r1", "r2"},
				refAt(0, "r", types.DoubleT), refAt(0, "r", types.DoubleT)),
		},
		{
			name: "identity projection removed",
			rule: "ProjectRemoveRule",
			in:   project(o, []string{"a", "b", "c"}, ref(o, 0), ref(o, 1), ref(o, 2)),
			want: "LogicalTableScan(table=[[default_catalog, default_database, orders]])\n",
		},
		{
			name: "renaming projection at the root kept",
			rule: "ProjectRemoveRule",
			in:   &logical.Limit{Input: filter(project(o, []string{"x", "b", "c"}, ref(o, 0), ref(o, 1), ref(o, 2)), gt(a, i32(0))), Fetch: 1},
		},
		{
			name: "renaming projection below a projection removed",
			rule: "ProjectRemoveRule",
			in: project(&logical.Sort{Input: project(o, []string{"x", "b", "c"}, ref(o, 0), ref(o, 1), ref(o, 2)), Keys: []logical.SortKey{{Index: 1}}},
				[]string{"x"}, refAt(0, "x", intT)),
			want: "LogicalProject(x=[$0])\n+- LogicalSort(sort0=[$1 ASC-nulls-last])\n   +- LogicalTableScan(table=[[default_catalog, default_database, orders]])\n",
		},
		{
			name: "scan reads only used columns",
			rule: "PruneColumnsRule",
			in:   project(filter(o, gt(b, i32(1))), []string{"c"}, ref(o, 2)),
			want: "LogicalProject(c=[$1])\n+- LogicalFilter(condition=[>($0, 1)])\n   +- LogicalTableScan(table=[[default_catalog, default_database, orders, project=[b, c]]])\n",
		},
		{
			name: "join inputs pruned",
			rule: "PruneColumnsRule",
			in:   project(join(o, it, logical.InnerJoin, eq(a, d)), []string{"c", "e"}, refAt(2, "c", strT), e),
			want: "LogicalProject(c=[$1], e=[$3])\n+- LogicalJoin(condition=[=($0, $2)], joinType=[inner])\n   :- LogicalTableScan(table=[[default_catalog, default_database, orders, project=[a, c]]])\n   +- LogicalTableScan(table=[[default_catalog, default_database, items]])\n",
		},
		{
			name: "columns only a filter reads do not travel through the join",
			rule: "PruneColumnsRule",
			in:   project(join(filter(o, gt(b, i32(1))), it, logical.InnerJoin, eq(a, d)), []string{"e"}, e),
			want: "LogicalProject(e=[$2])\n+- LogicalJoin(condition=[=($0, $1)], joinType=[inner])\n   :- LogicalProject(a=[$0])\n   :  +- LogicalFilter(condition=[>($1, 1)])\n   :     +- LogicalTableScan(table=[[default_catalog, default_database, orders, project=[a, b]]])\n   +- LogicalTableScan(table=[[default_catalog, default_database, items]])\n",
		},
		{
			name: "COUNT(*) keeps one column",
			rule: "PruneColumnsRule",
			in: &logical.Aggregate{Input: o, Aggs: []logical.AggCall{{Name: "COUNT", Filter: -1, T: types.BigIntT.WithNullable(false), Alias: "n"}},
				Out: types.Schema{field("n", types.BigIntT.WithNullable(false))}},
			want: "LogicalAggregate(group=[{}], n=[COUNT()])\n+- LogicalTableScan(table=[[default_catalog, default_database, orders, project=[a]]])\n",
		},
		{
			name: "root keeps all columns",
			rule: "PruneColumnsRule",
			in:   filter(o, gt(a, i32(1))),
		},
		{
			name: "union inputs projected",
			rule: "PruneColumnsRule",
			in: project(&logical.Union{Inputs: []logical.Node{o, filter(o, gt(b, i32(0)))}, Out: o.Schema()},
				[]string{"a"}, a),
			want: "LogicalProject(a=[$0])\n+- LogicalUnion(all=[true])\n   :- LogicalTableScan(table=[[default_catalog, default_database, orders, project=[a]]])\n   +- LogicalProject(a=[$0])\n      +- LogicalFilter(condition=[>($1, 0)])\n         +- LogicalTableScan(table=[[default_catalog, default_database, orders, project=[a, b]]])\n",
		},
	}
}

func TestRulesFire(t *testing.T) {
	for _, tc := range ruleCases() {
		t.Run(tc.rule+"/"+tc.name, func(t *testing.T) {
			r := ruleByName(t, tc.rule)
			before := show(tc.in)
			out, changed, err := r.Apply(tc.in)
			require.NoError(t, err)
			require.Equal(t, before, show(tc.in), "the rule modified its input")
			if tc.want == "" {
				require.False(t, changed, "rule fired: %s", show(out))
				require.Same(t, tc.in, out)
				return
			}
			require.True(t, changed)
			require.Equal(t, tc.want, show(out))
			requireSameSchema(t, tc.in.Schema(), out.Schema())
			// Honest about change: applying again to its own output
			// must not loop forever; for rules that reach their fixed
			// point in one application it reports no change.
			again, changed2, err := r.Apply(out)
			require.NoError(t, err)
			if changed2 {
				require.NotEqual(t, show(out), show(again), "rule reported a change but the plan is the same")
			}
		})
	}
}

func requireSameSchema(t *testing.T, want, got types.Schema) {
	t.Helper()
	require.Equal(t, want.Names(), got.Names())
	require.Len(t, got, len(want))
	for i := range want {
		require.True(t, want[i].Type.Equal(got[i].Type), "column %d: %s vs %s", i, want[i].Type, got[i].Type)
	}
}

func TestOptimizeKeepsSchemaAndIsStable(t *testing.T) {
	reg := testRegistry()
	ctx := &function.EvalContext{}
	for _, tc := range ruleCases() {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Optimize(tc.in, reg, ctx, nil)
			require.NoError(t, err)
			requireSameSchema(t, tc.in.Schema(), out.Schema())
			// The result is a fixed point: no rule changes it.
			for _, r := range All(reg, ctx) {
				_, changed, err := r.Apply(out)
				require.NoError(t, err)
				require.False(t, changed, "%s still fires on\n%s", r.Name(), show(out))
			}
		})
	}
}

func TestOptimizeEndToEnd(t *testing.T) {
	o, it := ordersScan, itemsScan
	a, b := ref(o, 0), ref(o, 1)
	d, e := refAt(3, "d", intT), refAt(4, "e", intT)
	// SELECT c, e FROM orders, items WHERE a = d AND b > 1 + 1
	in := project(filter(join(o, it, logical.InnerJoin, nil), and(eq(a, d), gt(b, add(i32(1), i32(1))))),
		[]string{"c", "e"}, refAt(2, "c", strT), e)
	out, err := Optimize(in, testRegistry(), &function.EvalContext{}, nil)
	require.NoError(t, err)
	require.Equal(t, "LogicalProject(c=[$1], e=[$3])\n"+
		"+- LogicalJoin(condition=[=($0, $2)], joinType=[inner])\n"+
		"   :- LogicalProject(a=[$0], c=[$2])\n"+
		"   :  +- LogicalFilter(condition=[>($1, 2)])\n"+
		"   :     +- LogicalTableScan(table=[[default_catalog, default_database, orders]])\n"+
		"   +- LogicalTableScan(table=[[default_catalog, default_database, items]])\n", show(out))

	// All rules off: the plan comes back as it was.
	off := map[string]bool{}
	for _, n := range Names() {
		off[n] = true
	}
	same, err := Optimize(in, testRegistry(), &function.EvalContext{}, off)
	require.NoError(t, err)
	require.Same(t, in, same)

	// The trace names each rule that changed the plan, in order, and ends
	// with the final plan.
	final, steps, err := OptimizeTrace(in, testRegistry(), &function.EvalContext{}, nil)
	require.NoError(t, err)
	require.NotEmpty(t, steps)
	require.Equal(t, "ReduceExpressionsRule", steps[0].Rule)
	require.Equal(t, show(final), show(steps[len(steps)-1].Plan))
}

func TestUnknownDisabledRule(t *testing.T) {
	_, err := Optimize(ordersScan, nil, nil, map[string]bool{"NoSuchRule": true})
	require.ErrorContains(t, err, `unknown optimizer rule "NoSuchRule"`)
}

func TestNamesAreStable(t *testing.T) {
	require.Equal(t, []string{
		"ReduceExpressionsRule",
		"PruneEmptyRule",
		"FilterMergeRule",
		"OuterJoinSimplifyRule",
		"FilterProjectTransposeRule",
		"FilterIntoJoinRule",
		"JoinConditionPushRule",
		"FilterAggregateTransposeRule",
		"FilterSetOpTransposeRule",
		"FilterSortTransposeRule",
		"FilterCorrelateRule",
		"PushFilterIntoTableSourceScanRule",
		"ProjectMergeRule",
		"ProjectRemoveRule",
		"PruneColumnsRule",
		"PushLimitIntoTableSourceScanRule",
		"JoinReorderRule",
	}, Names())
}
