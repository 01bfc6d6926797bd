package build

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/connectors/nexmark"
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
	return &logical.Call{Name: "$FIELD", Args: []logical.Expr{rfRef(s, col),
		&logical.Literal{Value: int32(f), T: types.IntT.WithNullable(false)}}, T: s[col].Type.Fields[f].Type}
}

func rfCall(name string, t types.Type, args ...logical.Expr) logical.Expr {
	return &logical.Call{Name: name, Args: args, T: t}
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
	local := &physical.LocalGroupAggregate{Input: calc, GroupKeys: []int{0}, Out: calc.Out[:1]}
	ex := &physical.Exchange{Input: local, Keys: []int{0}}
	global := &physical.GlobalGroupAggregate{Input: ex, GroupKeys: []int{0}, Out: calc.Out[:1]}
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
		lim := &physical.Limit{Input: wm, Fetch: 10}
		root := rfCalc(lim, nil, rfField(wm.Schema(), 0, 1))
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

// unknownExpr is an expression kind the analysis does not know.
type unknownExpr struct{}

func (unknownExpr) Type() types.Type                         { return types.IntT }
func (unknownExpr) String() string                           { return "?" }
func (unknownExpr) Children() []logical.Expr                 { return nil }
func (unknownExpr) WithChildren([]logical.Expr) logical.Expr { return unknownExpr{} }
