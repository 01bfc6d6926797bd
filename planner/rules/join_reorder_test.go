package rules

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// sized is a table whose source reports rows rows.
func sized(name string, rows int64, fields ...types.Field) *catalog.ResolvedTable {
	t := table(name, fields...)
	t.Abilities.ReportStatistics = func() catalog.TableStats { return catalog.TableStats{RowCount: rows} }
	return t
}

func innerJoin(l, r logical.Node, cond logical.Expr) *logical.Join {
	out := append(append(types.Schema(nil), l.Schema()...), r.Schema()...)
	return &logical.Join{Left: l, Right: r, Kind: logical.InnerJoin, Cond: cond, Out: out}
}

// leafOrder lists the scanned tables of a join tree left to right, and
// whether a join without condition (a cross join) is among them.
func leafOrder(n logical.Node) (names []string, cross bool) {
	switch x := n.(type) {
	case *logical.Scan:
		return []string{x.Table.ID.Object}, false
	case *logical.Join:
		l, cl := leafOrder(x.Left)
		r, cr := leafOrder(x.Right)
		return append(l, r...), cl || cr || x.Cond == nil
	}
	var out []string
	cross = false
	for _, c := range n.Children() {
		s, cc := leafOrder(c)
		out = append(out, s...)
		cross = cross || cc
	}
	return out, cross
}

func TestJoinReorderStarSchema(t *testing.T) {
	fact := scanOf(sized("fact", 1_000_000, field("k1", intT), field("k2", intT), field("v", intT)))
	d1 := scanOf(sized("d1", 100, field("id1", intT), field("n1", strT)))
	d2 := scanOf(sized("d2", 10_000, field("id2", intT), field("n2", strT)))
	// FROM d1, d2, fact WHERE fact.k1 = d1.id1 AND fact.k2 = d2.id2 AND d2.n2 = 'x':
	// d1 × d2 is a cross join, fact joins last and is the build side.
	cross := innerJoin(d1, d2, nil)
	all := innerJoin(cross, fact, and(eq(refAt(4, "k1", intT), refAt(0, "id1", intT)), eq(refAt(5, "k2", intT), refAt(2, "id2", intT))))
	plan := filter(all, eq(refAt(3, "n2", strT), lit("x", strT)))
	got, err := OptimizeWith(plan, testRegistry(), nil, nil, Settings{JoinReorder: true})
	require.NoError(t, err)
	require.Equal(t, plan.Schema(), got.Schema())
	names, hasCross := leafOrder(got)
	// fact probes; the filtered d2 (≈1,500 rows) joins first, as it
	// leaves fewer rows than d1 (100 rows, no filter).
	require.Equal(t, []string{"fact", "d2", "d1"}, names)
	require.False(t, hasCross)

	off, err := OptimizeWith(plan, testRegistry(), nil, nil, Settings{})
	require.NoError(t, err)
	names, hasCross = leafOrder(off)
	require.Equal(t, []string{"d1", "d2", "fact"}, names, "off: the FROM clause's order")
	require.True(t, hasCross)

	disabled, err := OptimizeWith(plan, testRegistry(), nil, map[string]bool{"JoinReorderRule": true}, Settings{JoinReorder: true})
	require.NoError(t, err)
	names, _ = leafOrder(disabled)
	require.Equal(t, []string{"d1", "d2", "fact"}, names, "disabled by name")

	// A second run finds the order already chosen.
	again, changed, err := (&JoinReorder{env: &Env{Functions: testRegistry()}}).Apply(got)
	require.NoError(t, err)
	require.False(t, changed, "%v", again)
}

func TestJoinReorderKeepsOuterJoinsAndUnknownSizes(t *testing.T) {
	// Tables without statistics count as Flink's 10^8 rows; an outer join
	// is an input of the tree, never reordered through.
	a := scanOf(table("a", field("x", intT)))
	b := scanOf(sized("b", 10, field("y", intT)))
	c := scanOf(sized("c", 1000, field("z", intT)))
	left := &logical.Join{Left: b, Right: c, Kind: logical.LeftJoin, Cond: eq(refAt(0, "y", intT), refAt(1, "z", intT)),
		Out: types.Schema{field("y", intT), field("z", intT)}}
	plan := innerJoin(left, a, eq(refAt(0, "y", intT), refAt(2, "x", intT)))
	got, err := OptimizeWith(plan, testRegistry(), nil, nil, Settings{JoinReorder: true})
	require.NoError(t, err)
	require.Equal(t, plan.Schema(), got.Schema())
	names, _ := leafOrder(got)
	require.Equal(t, []string{"a", "b", "c"}, names)
	var outer *logical.Join
	var find func(logical.Node)
	find = func(n logical.Node) {
		if j, ok := n.(*logical.Join); ok && j.Kind == logical.LeftJoin {
			outer = j
		}
		for _, ch := range n.Children() {
			find(ch)
		}
	}
	find(got)
	require.NotNil(t, outer)
	require.Equal(t, "b", outer.Left.(*logical.Scan).Table.ID.Object)
}
