package planner

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/planner/rules"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the golden files in testdata")

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
	bigintNN = types.BigIntT.WithNullable(false)
	ordersT  = table("orders", field("user", bigintNN), field("product", types.VarCharOf(32)),
		field("amount", types.IntT), field("ts", types.TimestampOf(3)))
	usersT  = table("users", field("id", bigintNN), field("name", types.StringT))
	orders2 = table("orders2", field("user", bigintNN), field("product", types.VarCharOf(32)),
		field("amount", types.IntT), field("ts", types.TimestampOf(3)))
)

func scan(t *catalog.ResolvedTable) *logical.Scan {
	return &logical.Scan{Table: t, Out: t.PhysicalSchema()}
}

func ref(n logical.Node, i int) *logical.ColumnRef {
	f := n.Schema()[i]
	return &logical.ColumnRef{Index: i, Name: f.Name, T: f.Type}
}

func project(in logical.Node, names []string, exprs ...logical.Expr) *logical.Project {
	out := make(types.Schema, len(exprs))
	for i, e := range exprs {
		out[i] = field(names[i], e.Type())
	}
	return &logical.Project{Input: in, Exprs: exprs, Out: out}
}

func call(name string, t types.Type, args ...logical.Expr) *logical.Call {
	def, _ := function.Builtin(name)
	return &logical.Call{Name: name, Args: args, T: t, Def: def}
}

func lit(v any, t types.Type) *logical.Literal { return &logical.Literal{Value: v, T: t} }

func registry() *function.Registry {
	reg := function.NewRegistry()
	reg.Register(&function.Definition{Name: "+", NullOnNull: true, Eval: func(_ *function.EvalContext, _ function.CallTypes, a []any) (any, error) {
		return a[0].(int32) + a[1].(int32), nil
	}})
	for _, n := range []string{">", "=", "AND", "OR", "NOT"} {
		reg.Register(&function.Definition{Name: n})
	}
	return reg
}

type explainCase struct {
	name    string
	plan    logical.Node
	details []string
}

func explainCases() []explainCase {
	o := scan(ordersT)
	u := scan(usersT)
	selectUserProduct := project(o, []string{"user", "product"}, ref(o, 0), ref(o, 1))
	insert := &logical.Sink{Table: orders2, Input: project(o, []string{"user", "product", "amount", "ts"}, ref(o, 0), ref(o, 1), ref(o, 2), ref(o, 3))}
	// SELECT product, SUM(amount) FROM orders WHERE amount > 1 + 1 GROUP BY product
	filtered := &logical.Filter{Input: o, Cond: call(">", types.BooleanT, ref(o, 2), call("+", types.IntT.WithNullable(false), lit(int32(1), types.IntT.WithNullable(false)), lit(int32(1), types.IntT.WithNullable(false))))}
	agg := &logical.Aggregate{
		Input:     project(filtered, []string{"product", "amount"}, ref(o, 1), ref(o, 2)),
		GroupKeys: []int{0},
		Aggs:      []logical.AggCall{{Name: "SUM", Args: []int{1}, Filter: -1, T: types.IntT, Alias: "EXPR$1"}},
		Out:       types.Schema{field("product", types.VarCharOf(32)), field("EXPR$1", types.IntT)},
	}
	// SELECT name, amount FROM orders, users WHERE user = id ORDER BY amount DESC LIMIT 3
	cross := &logical.Join{Left: o, Right: u, Kind: logical.InnerJoin, Out: append(append(types.Schema{}, o.Out...), u.Out...)}
	where := &logical.Filter{Input: cross, Cond: call("=", types.BooleanT, ref(cross, 0), ref(cross, 4))}
	sel := project(where, []string{"name", "amount"}, ref(cross, 5), ref(cross, 2))
	top := &logical.Limit{Input: &logical.Sort{Input: sel, Keys: []logical.SortKey{{Index: 1, Desc: true}}}, Fetch: 3}
	return []explainCase{
		{name: "select", plan: selectUserProduct},
		{name: "insert", plan: insert},
		{name: "aggregate", plan: agg},
		{name: "join-sort-limit", plan: top},
		{name: "changelog-mode", plan: selectUserProduct, details: []string{"CHANGELOG_MODE"}},
		{name: "estimated-cost", plan: selectUserProduct, details: []string{"ESTIMATED_COST"}},
		{name: "plan-advice", plan: agg, details: []string{"plan_advice"}},
	}
}

func TestExplainGolden(t *testing.T) {
	for _, tc := range explainCases() {
		t.Run(tc.name, func(t *testing.T) {
			_, phys, err := Optimize(tc.plan, registry(), &function.EvalContext{}, Options{})
			require.NoError(t, err)
			got := Explain(tc.plan, phys, tc.details)
			path := filepath.Join("testdata", "explain", tc.name+".txt")
			if *rewrite {
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run go test ./planner -rewrite to create the golden file")
			require.Equal(t, string(want), got)
		})
	}
}

func TestExplainLayout(t *testing.T) {
	o := scan(ordersT)
	_, phys, err := Optimize(o, registry(), nil, Options{})
	require.NoError(t, err)
	scanLine := "TableSourceScan(table=[[default_catalog, default_database, orders]], fields=[user, product, amount, ts])\n"
	require.Equal(t, "== Abstract Syntax Tree ==\n"+
		"LogicalTableScan(table=[[default_catalog, default_database, orders]])\n"+
		"\n== Optimized Physical Plan ==\n"+scanLine+
		"\n== Optimized Execution Plan ==\n"+scanLine, Explain(o, phys, nil))
	all := Explain(o, phys, []string{"changelog_mode", "estimated_cost", "plan_advice"})
	require.Contains(t, all, "== Optimized Physical Plan With Advice ==\n"+
		"TableSourceScan(table=[[default_catalog, default_database, orders]], fields=[user, product, amount, ts], changelogMode=[I]): rowcount = 1.0E8, cumulative cost = {1.0E8 rows, 1.0E8 cpu, 3.6E9 io, 0.0 network, 0.0 memory}\n"+
		"\nNo available advice...\n\n== Optimized Execution Plan ==\n"+scanLine)
}

func TestCheckExplainDetails(t *testing.T) {
	require.NoError(t, CheckExplainDetails([]string{"estimated_cost", "CHANGELOG_MODE", "PLAN_ADVICE"}))
	require.NoError(t, CheckExplainDetails([]string{"JSON_EXECUTION_PLAN"}))
	require.Error(t, CheckExplainDetails([]string{"VERBOSE_PLAN"}))
}

func TestRulesOffAgreeOnSchema(t *testing.T) {
	for _, tc := range explainCases() {
		on, physOn, err := Optimize(tc.plan, registry(), nil, Options{})
		require.NoError(t, err)
		off, physOff, err := Optimize(tc.plan, registry(), nil, AllRulesOff())
		require.NoError(t, err)
		require.Same(t, tc.plan, off, tc.name)
		require.Equal(t, on.Schema().Names(), off.Schema().Names(), tc.name)
		require.Equal(t, physOn.Schema().Names(), physOff.Schema().Names(), tc.name)
	}
}

func TestOptimizeErrors(t *testing.T) {
	_, _, err := Optimize(scan(ordersT), registry(), nil, Options{Disabled: map[string]bool{"Nope": true}})
	require.ErrorContains(t, err, "unknown optimizer rule")
	require.Len(t, AllRulesOff().Disabled, len(rules.Names()))
	require.True(t, strings.HasPrefix(ExplainLogical(scan(ordersT)), "LogicalTableScan("))
}

func TestExplainLogicalSortAndLimit(t *testing.T) {
	o := scan(ordersT)
	scanLine := "+- LogicalTableScan(table=[[default_catalog, default_database, orders]])\n"
	cases := []struct {
		plan logical.Node
		want string
	}{
		{&logical.Sort{Input: o, Keys: []logical.SortKey{{Index: 0, NullsFirst: true}, {Index: 2, Desc: true}}},
			"LogicalSort(sort0=[$0], sort1=[$2], dir0=[ASC-nulls-first], dir1=[DESC-nulls-last])\n"},
		{&logical.Sort{Input: o, Keys: []logical.SortKey{{Index: 1}}}, "LogicalSort(sort0=[$1], dir0=[ASC])\n"},
		{&logical.Limit{Input: o, Offset: 2, Fetch: -1}, "LogicalSort(offset=[2])\n"},
		{&logical.Limit{Input: &logical.Sort{Input: o, Keys: []logical.SortKey{{Index: 1, Desc: true, NullsFirst: true}}}, Offset: 1, Fetch: 5},
			"LogicalSort(sort0=[$1], dir0=[DESC], offset=[1], fetch=[5])\n"},
	}
	for _, tc := range cases {
		require.Equal(t, tc.want+scanLine, ExplainLogical(tc.plan))
	}
}
