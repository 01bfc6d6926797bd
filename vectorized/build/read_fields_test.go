package build

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/connectors/nexmark"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/planner/physical"
)

// Hand-built plans over the Nexmark table's columns (event_type, person,
// auction, bid); read_fields_sql_test.go checks plans the planner makes.

func rfRef(s types.Schema, i int) *logical.ColumnRef {
	return &logical.ColumnRef{Index: i, Name: s[i].Name, T: s[i].Type}
}

func rfField(s types.Schema, col, f int) logical.Expr {
	return &logical.Call{Name: "$FIELD", Def: function.OpField, Args: []logical.Expr{rfRef(s, col),
		&logical.Literal{Value: int32(f), T: types.IntT.WithNullable(false)}}, T: s[col].Type.Fields[f].Type}
}

func rfCall(name string, t types.Type, args ...logical.Expr) logical.Expr {
	return &logical.Call{Name: name, Args: args, T: t, Def: builtinDef(name)}
}

func rfLit(v int32) logical.Expr { return &logical.Literal{Value: v, T: types.IntT} }

func rfCalc(in physical.Node, cond logical.Expr, proj ...logical.Expr) *physical.Calc {
	out := make(types.Schema, len(proj))
	for i, e := range proj {
		out[i] = types.Field{Name: "c" + string(rune('0'+i)), Type: e.Type()}
		if r, ok := e.(*logical.ColumnRef); ok {
			out[i].Name = r.Name
		}
	}
	return &physical.Calc{Input: in, Projection: proj, Condition: cond, Out: out}
}

// rfSource is the scan and the Calc with the computed dateTime below the
// WatermarkAssigner, as the DDL of ddl_gen.sql plans.
func rfSource(cols ...int) (*physical.TableSourceScan, *physical.WatermarkAssigner) {
	scan := &physical.TableSourceScan{Out: nexmark.Schema()}
	s := scan.Out
	ts := types.TimestampOf(3)
	dt := &logical.Case{Whens: []logical.When{
		{Cond: rfCall("=", types.BooleanT, rfRef(s, 0), rfLit(0)), Then: rfField(s, 1, 6)},
		{Cond: rfCall("=", types.BooleanT, rfRef(s, 0), rfLit(1)), Then: rfField(s, 2, 5)},
	}, Else: rfField(s, 3, 5), T: ts}
	var proj []logical.Expr
	for _, c := range cols {
		proj = append(proj, rfRef(s, c))
	}
	calc := rfCalc(scan, nil, append(proj, dt)...)
	rt := len(cols)
	wm := &physical.WatermarkAssigner{Input: calc, Rowtime: rt,
		Expr: rfCall("-", ts, rfRef(calc.Out, rt), &logical.Literal{Value: int64(4000), T: types.BigIntT})}
	return scan, wm
}

// bools is a []bool of n entries, true at the given indexes.
func bools(n int, set ...int) []bool {
	b := make([]bool, n)
	for _, i := range set {
		b[i] = true
	}
	return b
}

// TestReadFieldsNexmarkAggregate is the plan of
// SELECT auction, COUNT(*), SUM(price) FROM bid GROUP BY auction with
// mini-batch: only bid fields 0, 2 and 5, person field 6 and auction field
// 5 are read.
func TestReadFieldsNexmarkAggregate(t *testing.T) {
	scan, wm := rfSource(0, 3) // event_type, bid, dateTime
	mb := &physical.MiniBatchAssigner{Input: wm, IntervalMs: 2000}
	in := wm.Schema()
	calc := rfCalc(mb, rfCall("=", types.BooleanT, rfRef(in, 0), rfLit(2)), rfField(in, 1, 0), rfField(in, 1, 2))
	aggs := []logical.AggCall{{Name: "COUNT", Filter: -1, T: types.BigIntT}, {Name: "SUM", Args: []int{1}, Filter: -1, T: types.BigIntT}}
	local := &physical.LocalGroupAggregate{Input: calc, GroupKeys: []int{0}, Aggs: aggs, Out: calc.Out[:1]}
	ex := &physical.Exchange{Input: local, Keys: []int{0}}
	global := &physical.GlobalGroupAggregate{Input: ex, GroupKeys: []int{0}, Aggs: aggs, Out: calc.Out[:1]}
	rf := ReadFields(global)
	require.Equal(t, [][]bool{nil, bools(8, 6), bools(10, 5), bools(7, 0, 2, 5)}, rf[scan])
}

// TestReadFieldsWholeStruct: a ROW column that reaches the output, is
// used bare in a condition or a function, or is a hash key is read whole.
func TestReadFieldsWholeStruct(t *testing.T) {
	person, auction := bools(8, 6), bools(10, 5)
	t.Run("output", func(t *testing.T) { // SELECT bid FROM datagen
		scan, wm := rfSource(3)
		root := rfCalc(wm, nil, rfRef(wm.Schema(), 0))
		require.Equal(t, [][]bool{nil, person, auction, nil}, ReadFields(root)[scan])
	})
	t.Run("is null", func(t *testing.T) { // … WHERE bid IS NULL
		scan, wm := rfSource(3)
		in := wm.Schema()
		root := rfCalc(wm, rfCall("IS NULL", types.BooleanT, rfRef(in, 0)), rfField(in, 0, 0))
		require.Equal(t, [][]bool{nil, person, auction, nil}, ReadFields(root)[scan])
	})
	t.Run("function argument", func(t *testing.T) {
		scan, wm := rfSource(3)
		in := wm.Schema()
		root := rfCalc(wm, nil, rfCall("F", types.StringT, rfRef(in, 0)))
		require.Equal(t, [][]bool{nil, person, auction, nil}, ReadFields(root)[scan])
	})
	t.Run("cast", func(t *testing.T) {
		scan, wm := rfSource(3)
		in := wm.Schema()
		root := rfCalc(wm, nil, &logical.Cast{Arg: rfRef(in, 0), T: types.StringT})
		require.Equal(t, [][]bool{nil, person, auction, nil}, ReadFields(root)[scan])
	})
	t.Run("exchange key", func(t *testing.T) {
		scan, wm := rfSource(3)
		ex := &physical.Exchange{Input: wm, Keys: []int{0}}
		root := rfCalc(ex, nil, rfField(wm.Schema(), 0, 1))
		require.Equal(t, [][]bool{nil, person, auction, nil}, ReadFields(root)[scan])
	})
	t.Run("unknown node", func(t *testing.T) {
		scan, wm := rfSource(3)
		root := rfCalc(unknownNode{wm}, nil, rfField(wm.Schema(), 0, 1))
		require.Equal(t, [][]bool{nil, person, auction, nil}, ReadFields(root)[scan])
	})
	t.Run("set operation", func(t *testing.T) { // hashes whole rows
		scan, wm := rfSource(3)
		op := &physical.SetOp{Left: wm, Right: wm, Kind: logical.Intersect}
		root := rfCalc(op, nil, rfField(wm.Schema(), 0, 1))
		require.Equal(t, [][]bool{nil, person, auction, nil}, ReadFields(root)[scan])
	})
	t.Run("sink", func(t *testing.T) {
		scan, wm := rfSource(3)
		root := &physical.Sink{Input: wm}
		require.Equal(t, [][]bool{nil, person, auction, nil}, ReadFields(root)[scan])
	})
	t.Run("scan at the root", func(t *testing.T) {
		scan := &physical.TableSourceScan{Out: nexmark.Schema()}
		require.Nil(t, ReadFields(scan)[scan])
	})
}

// TestReadFieldsExpressions: field accesses inside functions, nested
// accesses and renamed columns.
func TestReadFieldsExpressions(t *testing.T) {
	person, auction := bools(8, 6), bools(10, 5)
	t.Run("inside a function and a nested access", func(t *testing.T) {
		scan, wm := rfSource(3)
		in := wm.Schema()
		nested := &logical.Call{Name: "$FIELD", Args: []logical.Expr{rfField(in, 0, 4),
			&logical.Literal{Value: int32(0), T: types.IntT}}, T: types.StringT}
		root := rfCalc(wm, rfCall("IS NOT NULL", types.BooleanT, rfField(in, 0, 1)),
			rfCall("UPPER", types.StringT, rfField(in, 0, 3)), nested)
		require.Equal(t, [][]bool{nil, person, auction, bools(7, 1, 3, 4, 5)}, ReadFields(root)[scan])
	})
	t.Run("through renaming Calcs", func(t *testing.T) {
		scan, wm := rfSource(0, 3)
		in := wm.Schema()
		// Swap the columns, then read the struct at its new position.
		swap := rfCalc(wm, nil, rfRef(in, 1), rfRef(in, 0), rfRef(in, 1))
		root := rfCalc(swap, nil, rfField(swap.Out, 0, 2), rfField(swap.Out, 2, 6))
		require.Equal(t, [][]bool{nil, person, auction, bools(7, 2, 5, 6)}, ReadFields(root)[scan])
	})
	t.Run("not read at all", func(t *testing.T) {
		scan, wm := rfSource(0, 3)
		root := rfCalc(wm, nil, rfRef(wm.Schema(), 0))
		require.Equal(t, [][]bool{nil, person, auction, bools(7, 5)}, ReadFields(root)[scan])
	})
	t.Run("unknown expression", func(t *testing.T) {
		scan, wm := rfSource(3)
		root := rfCalc(wm, nil, unknownExpr{}) // reads all its input: bid whole
		require.Equal(t, [][]bool{nil, person, auction, nil}, ReadFields(root)[scan])
	})
}

// TestReadFieldsSharedNode: a node with two parents gets the union of
// their reads.
func TestReadFieldsSharedNode(t *testing.T) {
	scan, wm := rfSource(3)
	in := wm.Schema()
	a := rfCalc(wm, nil, rfField(in, 0, 0))
	b := rfCalc(wm, nil, rfField(in, 0, 1))
	root := &physical.StreamUnion{Inputs: []physical.Node{a, b}, Out: a.Out}
	require.Equal(t, [][]bool{nil, bools(8, 6), bools(10, 5), bools(7, 0, 1, 5)}, ReadFields(root)[scan])
}

// unknownNode is a node kind the analysis does not know; its output is
// its input's.
type unknownNode struct{ physical.Node }

func (n unknownNode) Children() []physical.Node { return []physical.Node{n.Node} }

// unknownExpr is an expression kind the analysis does not know.
type unknownExpr struct{}

func (unknownExpr) Type() types.Type                         { return types.IntT }
func (unknownExpr) String() string                           { return "?" }
func (unknownExpr) Children() []logical.Expr                 { return nil }
func (unknownExpr) WithChildren([]logical.Expr) logical.Expr { return unknownExpr{} }

// The demands the hand-built plans below expect: the scans of rfSource
// always read the dateTime fields (person 6, auction 5, bid 5).
func wantBid(fs ...int) [][]bool {
	return [][]bool{nil, bools(8, 6), bools(10, 5), bools(7, append(fs, 5)...)}
}

func wantAuction(fs ...int) [][]bool {
	return [][]bool{nil, bools(8, 6), bools(10, append(fs, 5)...), bools(7, 5)}
}

var (
	wholeBid     = [][]bool{nil, bools(8, 6), bools(10, 5), nil}
	wholeAuction = [][]bool{nil, bools(8, 6), nil, bools(7, 5)}
)

// withCols is s followed by columns of the given names (TIMESTAMP(3)).
func withCols(s types.Schema, names ...string) types.Schema {
	out := append(types.Schema{}, s...)
	for _, n := range names {
		out = append(out, types.Field{Name: n, Type: types.TimestampOf(3)})
	}
	return out
}

// TestReadFieldsSingleInputNodes: nodes that output their input's columns
// (and maybe more) hand the demand on them down; their keys read whole.
// The input is rfSource(0, 3): event_type, bid, dateTime.
func TestReadFieldsSingleInputNodes(t *testing.T) {
	tumble := logical.WindowSpec{Kind: logical.Tumble, TimeCol: 2, Size: 10000}
	cases := []struct {
		name string
		// node builds the node over wm; root then reads field 1 of bid
		// (column 1) and the node's last column.
		node func(wm physical.Node) physical.Node
		want [][]bool
	}{
		{"limit", func(wm physical.Node) physical.Node { return &physical.Limit{Input: wm, Fetch: 10} }, wantBid(1)},
		{"sort", func(wm physical.Node) physical.Node {
			return &physical.Sort{Input: wm, Keys: []logical.SortKey{{Index: 2}, {Index: 0, Desc: true}}}
		}, wantBid(1)},
		{"sort by the row", func(wm physical.Node) physical.Node {
			return &physical.Sort{Input: wm, Keys: []logical.SortKey{{Index: 1}}}
		}, wholeBid},
		{"sort limit", func(wm physical.Node) physical.Node {
			return &physical.SortLimit{Input: wm, Keys: []logical.SortKey{{Index: 0}}, Fetch: 3}
		}, wantBid(1)},
		{"sort limit by the row", func(wm physical.Node) physical.Node {
			return &physical.SortLimit{Input: wm, Keys: []logical.SortKey{{Index: 1}}, Fetch: 3}
		}, wholeBid},
		{"tumble", func(wm physical.Node) physical.Node {
			return &physical.WindowTableFunction{Input: wm, Window: tumble,
				Out: withCols(wm.Schema(), "window_start", "window_end", "window_time")}
		}, wantBid(1)},
		{"hop", func(wm physical.Node) physical.Node {
			w := logical.WindowSpec{Kind: logical.Hop, TimeCol: 2, Size: 10000, Slide: 2000}
			return &physical.WindowTableFunction{Input: wm, Window: w,
				Out: withCols(wm.Schema(), "window_start", "window_end", "window_time")}
		}, wantBid(1)},
		{"session partitioned by the row", func(wm physical.Node) physical.Node {
			w := logical.WindowSpec{Kind: logical.Session, TimeCol: 2, Size: 10000, PartitionKeys: []int{1}}
			return &physical.WindowTableFunction{Input: wm, Window: w,
				Out: withCols(wm.Schema(), "window_start", "window_end", "window_time")}
		}, wholeBid},
		{"window table function of an unexpected shape", func(wm physical.Node) physical.Node {
			return &physical.WindowTableFunction{Input: wm, Window: tumble, Out: withCols(wm.Schema(), "window_start", "window_end")}
		}, wholeBid},
		{"rank", func(wm physical.Node) physical.Node {
			return &physical.Rank{Input: wm, PartitionKeys: []int{0}, OrderKeys: []logical.SortKey{{Index: 2, Desc: true}},
				RankEnd: 3, OutputRank: true, Out: append(withCols(wm.Schema()), types.Field{Name: "w0$o0", Type: types.BigIntT}), Streaming: true}
		}, wantBid(1)},
		{"rank without the rank column", func(wm physical.Node) physical.Node {
			return &physical.Rank{Input: wm, PartitionKeys: []int{0}, OrderKeys: []logical.SortKey{{Index: 2}}, RankEnd: 3, Out: wm.Schema()}
		}, wantBid(1)},
		{"rank partitioned by the row", func(wm physical.Node) physical.Node {
			return &physical.Rank{Input: wm, PartitionKeys: []int{1}, OrderKeys: []logical.SortKey{{Index: 2}}, RankEnd: 3, Out: wm.Schema()}
		}, wholeBid},
		{"rank ordered by the row", func(wm physical.Node) physical.Node {
			return &physical.Rank{Input: wm, PartitionKeys: []int{0}, OrderKeys: []logical.SortKey{{Index: 1}}, RankEnd: 3, Out: wm.Schema()}
		}, wholeBid},
		{"deduplicate", func(wm physical.Node) physical.Node {
			return &physical.Deduplicate{Input: wm, Keys: []int{0}, KeepLast: true, Rowtime: true, TimeCol: 2, Out: wm.Schema()}
		}, wantBid(1)},
		{"deduplicate by the row", func(wm physical.Node) physical.Node {
			return &physical.Deduplicate{Input: wm, Keys: []int{1}, KeepLast: true, Rowtime: true, TimeCol: 2, Out: wm.Schema()}
		}, wholeBid},
		{"over aggregate", func(wm physical.Node) physical.Node {
			return &physical.OverAggregate{Input: wm, PartitionKeys: []int{0}, OrderKeys: []logical.SortKey{{Index: 2}},
				Calls: []logical.OverCall{{Name: "COUNT_STAR", T: types.BigIntT}, {Name: "MAX", Args: []int{2}, T: types.TimestampOf(3)}},
				Out:   withCols(wm.Schema(), "w0$o0", "w0$o1"), Streaming: true, Rowtime: true}
		}, wantBid(1)},
		{"over aggregate of the row", func(wm physical.Node) physical.Node {
			return &physical.OverAggregate{Input: wm, PartitionKeys: []int{0}, OrderKeys: []logical.SortKey{{Index: 2}},
				Calls: []logical.OverCall{{Name: "COUNT", Args: []int{1}, T: types.BigIntT}}, Out: withCols(wm.Schema(), "w0$o0")}
		}, wholeBid},
		{"over aggregate partitioned by the row", func(wm physical.Node) physical.Node {
			return &physical.OverAggregate{Input: wm, PartitionKeys: []int{1}, OrderKeys: []logical.SortKey{{Index: 2}},
				Calls: []logical.OverCall{{Name: "COUNT_STAR", T: types.BigIntT}}, Out: withCols(wm.Schema(), "w0$o0")}
		}, wholeBid},
		{"correlate", func(wm physical.Node) physical.Node {
			in := wm.Schema()
			return &physical.Correlate{Input: wm, Kind: logical.InnerJoin, Display: "f",
				Call: &logical.Call{Name: "f", Args: []logical.Expr{rfField(in, 1, 4)}, T: types.RowOf(types.Field{Name: "f0", Type: types.StringT})},
				Out:  append(withCols(in), types.Field{Name: "f0", Type: types.StringT})}
		}, wantBid(1, 4)},
		{"left correlate with a condition", func(wm physical.Node) physical.Node {
			in := wm.Schema()
			out := append(withCols(in), types.Field{Name: "f0", Type: types.StringT})
			return &physical.Correlate{Input: wm, Kind: logical.LeftJoin, Display: "f",
				Call: &logical.Call{Name: "f", Args: []logical.Expr{rfField(in, 1, 4)}, T: types.RowOf(types.Field{Name: "f0", Type: types.StringT})},
				Out:  out, Cond: rfCall("=", types.BooleanT, rfRef(out, 3), rfField(out, 1, 3))}
		}, wantBid(1, 3, 4)},
		{"correlate over the row", func(wm physical.Node) physical.Node {
			in := wm.Schema()
			return &physical.Correlate{Input: wm, Kind: logical.InnerJoin, Display: "f",
				Call: &logical.Call{Name: "f", Args: []logical.Expr{rfRef(in, 1)}, T: types.RowOf(types.Field{Name: "f0", Type: types.StringT})},
				Out:  append(withCols(in), types.Field{Name: "f0", Type: types.StringT})}
		}, wholeBid},
		{"expand", func(wm physical.Node) physical.Node {
			in := wm.Schema()
			return &physical.Expand{Input: wm, Out: withCols(in[:2], "x"), Projects: [][]logical.Expr{
				{rfRef(in, 0), rfRef(in, 1), rfRef(in, 2)},
				{rfRef(in, 0), &logical.Literal{T: in[1].Type}, rfRef(in, 2)},
			}}
		}, wantBid(1)},
		{"expand reading the row", func(wm physical.Node) physical.Node {
			in := wm.Schema()
			return &physical.Expand{Input: wm, Out: withCols(in[:2], "x"), Projects: [][]logical.Expr{
				{rfRef(in, 0), rfRef(in, 1), rfRef(in, 2)},
				{rfCall("IS NULL", types.BooleanT, rfRef(in, 1)), rfRef(in, 1), rfRef(in, 2)},
			}}
		}, wholeBid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			scan, wm := rfSource(0, 3)
			n := c.node(wm)
			out := n.Schema()
			root := rfCalc(n, nil, rfField(out, 1, 1), rfRef(out, len(out)-1))
			require.Equal(t, c.want, ReadFields(root)[scan])
		})
	}
}

// TestReadFieldsUnion: column i of the output is column i of every input.
func TestReadFieldsUnion(t *testing.T) {
	for _, stream := range []bool{false, true} {
		union := func(out types.Schema, in ...physical.Node) physical.Node {
			if stream {
				return &physical.StreamUnion{Inputs: in, Out: out}
			}
			return &physical.Union{Inputs: in, Out: out}
		}
		scanA, wmA := rfSource(0, 3)
		scanB, wmB := rfSource(0, 3)
		in := wmA.Schema()
		root := rfCalc(union(in, wmA, wmB), nil, rfField(in, 1, 2))
		rf := ReadFields(root)
		require.Equal(t, wantBid(2), rf[scanA])
		require.Equal(t, wantBid(2), rf[scanB])

		// An input whose columns are not the output's: all read whole.
		scanA, wmA = rfSource(0, 3)
		scanB, wmB = rfSource(3)
		root = rfCalc(union(in, wmA, wmB), nil, rfField(in, 1, 2))
		rf = ReadFields(root)
		require.Equal(t, wholeBid, rf[scanA])
		require.Equal(t, wholeBid, rf[scanB])
	}
}

// joinCase builds a join of a bid input (event_type, bid, dateTime) and
// an auction input (event_type, auction, dateTime) with output out
// (left ++ right, or left only for semi and anti joins) and condition
// cond over left ++ right.
type joinCase struct {
	name string
	join func(l, r physical.Node, kind logical.JoinKind, lk, rk []int, cond logical.Expr, out types.Schema) physical.Node
	// lookup: the right input is no child (LookupJoin).
	lookup bool
}

var joinCases = []joinCase{
	{name: "HashJoin", join: func(l, r physical.Node, kind logical.JoinKind, lk, rk []int, cond logical.Expr, out types.Schema) physical.Node {
		return &physical.HashJoin{Left: l, Right: r, Kind: kind, LeftKeys: lk, RightKeys: rk, Extra: cond, Out: out}
	}},
	{name: "NestedLoopJoin", join: func(l, r physical.Node, kind logical.JoinKind, lk, rk []int, cond logical.Expr, out types.Schema) physical.Node {
		// The keys as equalities in the condition.
		both := append(append(types.Schema{}, l.Schema()...), r.Schema()...)
		nl := len(l.Schema())
		cs := []logical.Expr{}
		if cond != nil {
			cs = append(cs, cond)
		}
		for i := range lk {
			cs = append(cs, rfCall("=", types.BooleanT, rfRef(both, lk[i]), rfRef(both, nl+rk[i])))
		}
		var c logical.Expr
		if len(cs) > 0 {
			c = logical.And(cs...)
		}
		return &physical.NestedLoopJoin{Left: l, Right: r, Kind: kind, Cond: c, Out: out}
	}},
	{name: "StreamJoin", join: func(l, r physical.Node, kind logical.JoinKind, lk, rk []int, cond logical.Expr, out types.Schema) physical.Node {
		return &physical.StreamJoin{Left: l, Right: r, Kind: kind, LeftKeys: lk, RightKeys: rk, Extra: cond, Out: out}
	}},
	{name: "IntervalJoin", join: func(l, r physical.Node, kind logical.JoinKind, lk, rk []int, cond logical.Expr, out types.Schema) physical.Node {
		return &physical.IntervalJoin{Left: l, Right: r, Kind: kind, LeftKeys: lk, RightKeys: rk, Cond: cond, IsRowTime: true,
			LeftLowerBound: -1000, LeftUpperBound: 1000, LeftTimeIndex: 2, RightTimeIndex: 2, Out: out}
	}},
	{name: "WindowJoin", join: func(l, r physical.Node, kind logical.JoinKind, lk, rk []int, cond logical.Expr, out types.Schema) physical.Node {
		return &physical.WindowJoin{Left: l, Right: r, Kind: kind, LeftKeys: append(lk, 2), RightKeys: append(rk, 2), Extra: cond,
			LeftStart: 2, LeftEnd: 2, RightStart: 2, RightEnd: 2, Out: out}
	}},
	{name: "TemporalJoin", join: func(l, r physical.Node, kind logical.JoinKind, lk, rk []int, cond logical.Expr, out types.Schema) physical.Node {
		return &physical.TemporalJoin{Left: l, Right: r, Kind: kind, LeftKeys: lk, RightKeys: rk, Extra: cond,
			LeftTimeIndex: 2, RightTimeIndex: 2, PrimaryKey: []int{0}, Out: out}
	}},
	{name: "LookupJoin", lookup: true, join: func(l, r physical.Node, kind logical.JoinKind, lk, rk []int, cond logical.Expr, out types.Schema) physical.Node {
		return &physical.LookupJoin{Input: l, Temporal: r, Kind: kind, InputKeys: lk, TemporalKeys: rk, Extra: cond, Out: out}
	}},
}

// TestReadFieldsJoins: a join's output columns are its inputs' columns;
// keys and time columns are read whole, the condition reads what it uses.
func TestReadFieldsJoins(t *testing.T) {
	type want struct{ left, right [][]bool }
	cases := []struct {
		name string
		kind logical.JoinKind
		// lk, rk: the equality keys; cond and the root's projections over
		// left ++ right (left only for semi and anti joins).
		lk, rk []int
		cond   func(both types.Schema) logical.Expr
		proj   func(out types.Schema) []logical.Expr
		want   want
	}{
		{name: "inner", kind: logical.InnerJoin, lk: []int{0}, rk: []int{0},
			cond: func(b types.Schema) logical.Expr {
				return rfCall(">", types.BooleanT, rfField(b, 1, 2), rfField(b, 4, 3))
			},
			proj: func(o types.Schema) []logical.Expr { return []logical.Expr{rfField(o, 1, 0), rfField(o, 4, 1)} },
			want: want{wantBid(0, 2), wantAuction(1, 3)}},
		{name: "left outer", kind: logical.LeftJoin, lk: []int{0}, rk: []int{0},
			proj: func(o types.Schema) []logical.Expr { return []logical.Expr{rfField(o, 1, 0), rfField(o, 4, 1)} },
			want: want{wantBid(0), wantAuction(1)}},
		{name: "full outer", kind: logical.FullJoin, lk: []int{0}, rk: []int{0},
			proj: func(o types.Schema) []logical.Expr { return []logical.Expr{rfField(o, 4, 7), rfRef(o, 0)} },
			want: want{wantBid(), wantAuction(7)}},
		{name: "semi", kind: logical.SemiJoin, lk: []int{0}, rk: []int{0},
			cond: func(b types.Schema) logical.Expr {
				return rfCall("<", types.BooleanT, rfField(b, 1, 2), rfField(b, 4, 3))
			},
			proj: func(o types.Schema) []logical.Expr { return []logical.Expr{rfField(o, 1, 6)} },
			want: want{wantBid(2, 6), wantAuction(3)}},
		{name: "anti", kind: logical.AntiJoin, lk: []int{0}, rk: []int{0},
			proj: func(o types.Schema) []logical.Expr { return []logical.Expr{rfField(o, 1, 6)} },
			want: want{wantBid(6), wantAuction()}},
		// Negative cases.
		{name: "a row as key", kind: logical.InnerJoin, lk: []int{1}, rk: []int{0},
			proj: func(o types.Schema) []logical.Expr { return []logical.Expr{rfField(o, 1, 0), rfField(o, 4, 1)} },
			want: want{wholeBid, wantAuction(1)}},
		{name: "a row in the condition", kind: logical.InnerJoin, lk: []int{0}, rk: []int{0},
			cond: func(b types.Schema) logical.Expr { return rfCall("IS NOT NULL", types.BooleanT, rfRef(b, 4)) },
			proj: func(o types.Schema) []logical.Expr { return []logical.Expr{rfField(o, 1, 0), rfField(o, 4, 1)} },
			want: want{wantBid(0), wholeAuction}},
		{name: "a row in the output", kind: logical.InnerJoin, lk: []int{0}, rk: []int{0},
			proj: func(o types.Schema) []logical.Expr { return []logical.Expr{rfRef(o, 1), rfField(o, 4, 1)} },
			want: want{wholeBid, wantAuction(1)}},
		{name: "a semi join reading the right row", kind: logical.SemiJoin, lk: []int{0}, rk: []int{0},
			cond: func(b types.Schema) logical.Expr { return rfCall("IS NOT NULL", types.BooleanT, rfRef(b, 4)) },
			proj: func(o types.Schema) []logical.Expr { return []logical.Expr{rfField(o, 1, 6)} },
			want: want{wantBid(6), wholeAuction}},
		{name: "an unknown expression in the condition", kind: logical.InnerJoin, lk: []int{0}, rk: []int{0},
			cond: func(types.Schema) logical.Expr { return unknownExpr{} },
			proj: func(o types.Schema) []logical.Expr { return []logical.Expr{rfField(o, 1, 0), rfField(o, 4, 1)} },
			want: want{wholeBid, wholeAuction}},
	}
	for _, jc := range joinCases {
		for _, c := range cases {
			t.Run(jc.name+"/"+c.name, func(t *testing.T) {
				lscan, l := rfSource(0, 3)
				rscan, r := rfSource(0, 2)
				both := append(append(types.Schema{}, l.Schema()...), r.Schema()...)
				out := both
				if c.kind == logical.SemiJoin || c.kind == logical.AntiJoin {
					out = l.Schema()
				}
				var cond logical.Expr
				if c.cond != nil {
					cond = c.cond(both)
				}
				j := jc.join(l, r, c.kind, c.lk, c.rk, cond, out)
				rf := ReadFields(rfCalc(j, nil, c.proj(out)...))
				require.Equal(t, c.want.left, rf[lscan])
				if jc.lookup {
					// The temporal table is no child of the plan: its scan
					// is not in the map (read whole).
					_, ok := rf[rscan]
					require.False(t, ok)
					return
				}
				require.Equal(t, c.want.right, rf[rscan])
			})
		}
		t.Run(jc.name+"/unexpected output", func(t *testing.T) {
			lscan, l := rfSource(0, 3)
			rscan, r := rfSource(0, 2)
			out := append(append(types.Schema{}, l.Schema()...), r.Schema()[:2]...)
			j := jc.join(l, r, logical.InnerJoin, []int{0}, []int{0}, nil, out)
			rf := ReadFields(rfCalc(j, nil, rfField(out, 1, 0)))
			require.Equal(t, wholeBid, rf[lscan])
			if !jc.lookup {
				require.Equal(t, wholeAuction, rf[rscan])
			}
		})
	}
}

// TestReadFieldsAggregates: an aggregate reads its group keys, arguments,
// filters and window columns whole and no other input column.
func TestReadFieldsAggregates(t *testing.T) {
	count := logical.AggCall{Name: "COUNT", Filter: -1, T: types.BigIntT}
	sum := func(col, filter int) logical.AggCall {
		return logical.AggCall{Name: "SUM", Args: []int{col}, Filter: filter, T: types.BigIntT}
	}
	tumble := func(timeCol int, keys ...int) *logical.WindowSpec {
		return &logical.WindowSpec{Kind: logical.Tumble, TimeCol: timeCol, Size: 10000, PartitionKeys: keys}
	}
	aggs := []struct {
		name string
		node func(in physical.Node, keys []int, aggs []logical.AggCall, w *logical.WindowSpec) physical.Node
		// window: the node needs a window.
		window bool
	}{
		{"HashAggregate", func(in physical.Node, k []int, a []logical.AggCall, _ *logical.WindowSpec) physical.Node {
			return &physical.HashAggregate{Input: in, GroupKeys: k, Aggs: a, Out: aggOut(in, k, a, 0)}
		}, false},
		{"LocalHashAggregate", func(in physical.Node, k []int, a []logical.AggCall, _ *logical.WindowSpec) physical.Node {
			return &physical.LocalHashAggregate{Input: in, GroupKeys: k, Aggs: a, Out: aggOut(in, k, a, 0)}
		}, false},
		{"GroupAggregate", func(in physical.Node, k []int, a []logical.AggCall, _ *logical.WindowSpec) physical.Node {
			return &physical.GroupAggregate{Input: in, GroupKeys: k, Aggs: a, Out: aggOut(in, k, a, 0)}
		}, false},
		{"LocalGroupAggregate", func(in physical.Node, k []int, a []logical.AggCall, _ *logical.WindowSpec) physical.Node {
			return &physical.LocalGroupAggregate{Input: in, GroupKeys: k, Aggs: a, Out: aggOut(in, k, a, 0)}
		}, false},
		{"WindowAggregate", func(in physical.Node, k []int, a []logical.AggCall, w *logical.WindowSpec) physical.Node {
			return &physical.WindowAggregate{Input: in, GroupKeys: k, Aggs: a, Window: *w, Out: aggOut(in, k, a, 2)}
		}, true},
		{"LocalWindowAggregate", func(in physical.Node, k []int, a []logical.AggCall, w *logical.WindowSpec) physical.Node {
			return &physical.LocalWindowAggregate{Input: in, GroupKeys: k, Aggs: a, Window: *w, Out: aggOut(in, k, a, 1)}
		}, true},
	}
	cases := []struct {
		name string
		// fields: the aggregate is over a Calc of bid fields 0, 1, 2, 3,
		// 4 and dateTime (5); otherwise over event_type, bid, dateTime.
		fields bool
		keys   []int
		aggs   []logical.AggCall
		window *logical.WindowSpec
		want   [][]bool
	}{
		{name: "fields", fields: true, keys: []int{0}, aggs: []logical.AggCall{count, sum(2, -1)}, window: tumble(5), want: wantBid(0, 2)},
		{name: "filter", fields: true, keys: []int{1}, aggs: []logical.AggCall{sum(2, 4)}, window: tumble(5), want: wantBid(1, 2, 4)},
		{name: "no keys", fields: true, aggs: []logical.AggCall{count}, window: tumble(5), want: wantBid()},
		{name: "session keys", fields: true, keys: []int{3}, aggs: []logical.AggCall{count}, window: tumble(5, 3), want: wantBid(3)},
		// Negative cases: a ROW column as key or argument.
		{name: "row as key", keys: []int{1}, aggs: []logical.AggCall{count}, window: tumble(2), want: wholeBid},
		{name: "row as argument", keys: []int{0}, aggs: []logical.AggCall{{Name: "COUNT", Args: []int{1}, Filter: -1, T: types.BigIntT}},
			window: tumble(2), want: wholeBid},
		{name: "row as filter", keys: []int{0}, aggs: []logical.AggCall{{Name: "COUNT", Filter: 1, T: types.BigIntT}},
			window: tumble(2), want: wholeBid},
		{name: "key out of range", keys: []int{7}, aggs: []logical.AggCall{count}, window: tumble(2), want: wholeBid},
	}
	for _, a := range aggs {
		for _, c := range cases {
			t.Run(a.name+"/"+c.name, func(t *testing.T) {
				scan, wm := rfSource(0, 3)
				var in physical.Node = wm
				if c.fields {
					s := wm.Schema()
					in = rfCalc(wm, rfCall("=", types.BooleanT, rfRef(s, 0), rfLit(2)),
						rfField(s, 1, 0), rfField(s, 1, 1), rfField(s, 1, 2), rfField(s, 1, 3), rfField(s, 1, 4), rfRef(s, 2))
				}
				w := c.window
				if !a.window {
					w = nil
				}
				root := &physical.Sink{Input: a.node(in, c.keys, c.aggs, w)}
				require.Equal(t, c.want, ReadFields(root)[scan])
			})
		}
	}
}

// aggOut is an aggregate's output schema: keys, calls and window columns.
func aggOut(in physical.Node, keys []int, aggs []logical.AggCall, window int) types.Schema {
	var out types.Schema
	for _, k := range keys {
		if k < len(in.Schema()) {
			out = append(out, in.Schema()[k])
		} else {
			out = append(out, types.Field{Name: "k", Type: types.IntT})
		}
	}
	for _, a := range aggs {
		out = append(out, types.Field{Name: a.Name, Type: a.T})
	}
	for range window {
		out = append(out, types.Field{Name: "w", Type: types.TimestampOf(3)})
	}
	return out
}

// TestReadFieldsUnreadProjections: a projection nothing reads that is only
// a field access reads nothing; any other is evaluated and reads what it
// uses.
func TestReadFieldsUnreadProjections(t *testing.T) {
	cases := []struct {
		name string
		proj func(s types.Schema) logical.Expr
		want [][]bool
	}{
		{"field access", func(s types.Schema) logical.Expr { return rfField(s, 1, 3) }, wantBid(0)},
		{"literal", func(types.Schema) logical.Expr { return rfLit(1) }, wantBid(0)},
		{"function of a field", func(s types.Schema) logical.Expr {
			return rfCall("UPPER", types.StringT, rfField(s, 1, 3))
		}, wantBid(0, 3)},
		{"cast of a field", func(s types.Schema) logical.Expr {
			return &logical.Cast{Arg: rfField(s, 1, 3), T: types.IntT}
		}, wantBid(0, 3)},
		{"field with a computed index", func(s types.Schema) logical.Expr {
			return &logical.Call{Name: "$FIELD", Args: []logical.Expr{rfRef(s, 1), rfRef(s, 0)}, T: types.StringT}
		}, wholeBid},
		{"unknown expression", func(types.Schema) logical.Expr { return unknownExpr{} }, wholeBid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			scan, wm := rfSource(0, 3)
			s := wm.Schema()
			calc := rfCalc(wm, nil, rfField(s, 1, 0), c.proj(s))
			root := rfCalc(calc, nil, rfRef(calc.Out, 0)) // column 1 is not read
			require.Equal(t, c.want, ReadFields(root)[scan])
		})
	}
}
