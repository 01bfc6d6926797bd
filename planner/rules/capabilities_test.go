package rules

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/planner/logical"
)

// withAbilities returns ordersT with the given connector abilities.
func withAbilities(a catalog.Abilities) *catalog.ResolvedTable {
	t := *ordersT
	t.Abilities = &a
	return &t
}

// acceptEquals accepts the = conjuncts fully and leaves the others.
func acceptEquals(partial bool, calls *int) func([]catalog.Expression) catalog.FilterResult {
	return func(fs []catalog.Expression) catalog.FilterResult {
		*calls++
		var r catalog.FilterResult
		for i, f := range fs {
			if c, ok := f.(*catalog.CallExpr); ok && c.Name == "=" {
				r.Accepted = append(r.Accepted, i)
				if partial {
					r.Remaining = append(r.Remaining, i)
				}
			} else {
				r.Remaining = append(r.Remaining, i)
			}
		}
		return r
	}
}

func TestPushFilterIntoTableSourceScan(t *testing.T) {
	var calls int
	tests := []struct {
		name      string
		abilities catalog.Abilities
		want      string
	}{
		{"no filter push-down", catalog.Abilities{ProjectionPushDown: true},
			"LogicalFilter(condition=[AND(=($0, 1), >($1, 2))])\n" +
				"+- LogicalTableScan(table=[[default_catalog, default_database, orders]])\n"},
		{"accepted fully", catalog.Abilities{ApplyFilters: acceptEquals(false, &calls)},
			"LogicalFilter(condition=[>($1, 2)])\n" +
				"+- LogicalTableScan(table=[[default_catalog, default_database, orders, filter=[=($0, 1)]]])\n"},
		{"accepted partially", catalog.Abilities{ApplyFilters: acceptEquals(true, &calls)},
			"LogicalFilter(condition=[AND(=($0, 1), >($1, 2))])\n" +
				"+- LogicalTableScan(table=[[default_catalog, default_database, orders, filter=[=($0, 1)]]])\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := scanOf(withAbilities(tt.abilities))
			in := filter(o, and(eq(ref(o, 0), i32(1)), gt(ref(o, 1), i32(2))))
			r := &PushFilterIntoTableSourceScan{}
			out, changed, err := r.Apply(in)
			require.NoError(t, err)
			require.Equal(t, tt.want, show(out))
			again, changedAgain, err := r.Apply(out)
			require.NoError(t, err)
			require.False(t, changedAgain, "a second application changes nothing")
			require.Equal(t, show(out), show(again))
			require.Equal(t, tt.abilities.ApplyFilters != nil, changed)
		})
	}
	require.Positive(t, calls)
}

func TestPushFilterRejectsBadIndexes(t *testing.T) {
	o := scanOf(withAbilities(catalog.Abilities{ApplyFilters: func([]catalog.Expression) catalog.FilterResult {
		return catalog.FilterResult{Accepted: []int{3}}
	}}))
	_, _, err := (&PushFilterIntoTableSourceScan{}).Apply(filter(o, eq(ref(o, 0), i32(1))))
	require.EqualError(t, err, "the connector of default_catalog.default_database.orders accepted filter 3 of 1")
}

func TestPushLimitIntoTableSourceScan(t *testing.T) {
	o := scanOf(withAbilities(catalog.Abilities{LimitPushDown: true, ProjectionPushDown: true}))
	in := &logical.Limit{Input: project(o, []string{"b", "a"}, ref(o, 1), ref(o, 0)), Offset: 2, Fetch: 3}
	out, err := Optimize(in, testRegistry(), &function.EvalContext{}, nil)
	require.NoError(t, err)
	require.Equal(t, "LogicalSort(offset=[2], fetch=[3])\n"+
		"+- LogicalProject(b=[$1], a=[$0])\n"+
		"   +- LogicalTableScan(table=[[default_catalog, default_database, orders, project=[a, b], limit=[5]]])\n", show(out))

	plain := scanOf(withAbilities(catalog.Abilities{}))
	out, err = Optimize(&logical.Limit{Input: plain, Fetch: 3}, testRegistry(), &function.EvalContext{}, nil)
	require.NoError(t, err)
	require.NotContains(t, show(out), "limit=[", "a source without limit push-down is not told")
}
