package physical

import (
	"fmt"
	"strings"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// TemporalJoin is Flink's event-time temporal table join
// (StreamPhysicalTemporalJoin): JOIN t FOR SYSTEM_TIME AS OF <left
// rowtime> where t is a versioned table (a primary key and a rowtime
// attribute). Every row of the left input is joined, when the watermark
// passes its time, with the version of the right row of its key that was
// valid at that time: the latest right row (by its rowtime) at or before
// it. Right versions older than the latest one before the watermark are
// dropped. The output is append-only.
type TemporalJoin struct {
	Left, Right Node
	// Kind is InnerJoin or LeftJoin.
	Kind                logical.JoinKind
	LeftKeys, RightKeys []int
	// Extra is the rest of the condition over Left ++ Right, without the
	// __TEMPORAL_JOIN_CONDITION marker (nil: none).
	Extra                         logical.Expr
	LeftTimeIndex, RightTimeIndex int
	// PrimaryKey lists the right input's primary key columns.
	PrimaryKey []int
	Out        types.Schema
}

// Schema implements Node.
func (n *TemporalJoin) Schema() types.Schema { return n.Out }

// Children implements Node.
func (n *TemporalJoin) Children() []Node { return []Node{n.Left, n.Right} }

// WithChildren implements Node.
func (n *TemporalJoin) WithChildren(ch []Node) Node {
	c := *n
	c.Left, c.Right = ch[0], ch[1]
	return &c
}

// Name implements Node.
func (n *TemporalJoin) Name() string { return "TemporalJoin" }

// Mode implements Node.
func (n *TemporalJoin) Mode() changelog.Mode { return changelog.InsertOnly }

var _ Node = (*TemporalJoin)(nil)

// splitTemporalMarker removes the __TEMPORAL_JOIN_CONDITION conjunct from
// cond and returns its left and right time columns (over left ++ right);
// ok is false when cond has none.
func splitTemporalMarker(cond logical.Expr) (rest logical.Expr, lt, rt int, ok bool) {
	if cond == nil {
		return nil, 0, 0, false
	}
	var others []logical.Expr
	for _, c := range logical.Conjuncts(cond) {
		call, isCall := c.(*logical.Call)
		if isCall && call.Name == logical.TemporalJoinCondition && len(call.Args) == 2 && !ok {
			l, okL := call.Args[0].(*logical.ColumnRef)
			r, okR := call.Args[1].(*logical.ColumnRef)
			if okL && okR {
				lt, rt, ok = l.Index, r.Index, true
				continue
			}
		}
		others = append(others, c)
	}
	if len(others) > 0 {
		rest = logical.And(others...)
	}
	return rest, lt, rt, ok
}

// temporalJoin turns an event-time temporal HashJoin into a TemporalJoin
// after Flink's checks; ok is false for a processing-time one.
func temporalJoin(x *HashJoin, conv []Node) (Node, bool, error) {
	rest, lt, rt, ok := splitTemporalMarker(x.Extra)
	if !ok {
		return nil, false, nil
	}
	left, right := conv[0], conv[1]
	nLeft := len(left.Schema())
	if lt >= nLeft || rt < nLeft {
		return nil, true, fmt.Errorf("internal: temporal join time columns $%d and $%d", lt, rt)
	}
	rt -= nLeft
	if !left.Mode().IsInsertOnly() {
		return nil, true, fmt.Errorf("not supported yet: event-time temporal table joins of an updating input")
	}
	table := scannedTable(right)
	names := right.Schema().Names()
	var pk []int
	if table != nil && table.Table != nil && table.Table.PrimaryKey != nil {
		for _, col := range table.Table.PrimaryKey.Columns {
			found := -1
			for i := range names {
				if columnNameBelow(right, i) == col {
					found = i
				}
			}
			pk = append(pk, found)
		}
	}
	keyed := map[int]bool{}
	for _, k := range x.RightKeys {
		keyed[k] = true
	}
	for _, k := range pk {
		if k < 0 || !keyed[k] {
			all := joinNames(left.Schema(), right.Schema())
			return nil, true, &TableError{Msg: fmt.Sprintf("Temporal table's primary key [%s] must be included in the equivalence condition of temporal join, but current temporal join condition is [%s].",
				strings.Join(table.Table.PrimaryKey.Columns, ", "), ExprString(logical.And(append(keyConds(x.LeftKeys, x.RightKeys, nLeft), x.Extra)...), all))}
		}
	}
	return &TemporalJoin{
		Left: &Exchange{Input: left, Keys: x.LeftKeys}, Right: &Exchange{Input: right, Keys: x.RightKeys},
		Kind: x.Kind, LeftKeys: x.LeftKeys, RightKeys: x.RightKeys, Extra: rest,
		LeftTimeIndex: lt, RightTimeIndex: rt, PrimaryKey: pk, Out: x.Out,
	}, true, nil
}

// The markers a TemporalJoin's EXPLAIN prints inside Flink's
// __TEMPORAL_JOIN_CONDITION (never evaluated).
var (
	temporalPrimaryKeyDef = function.Internal("__TEMPORAL_JOIN_CONDITION_PRIMARY_KEY", function.Scalar)
	temporalLeftKeyDef    = function.Internal("__TEMPORAL_JOIN_LEFT_KEY", function.Scalar)
	temporalRightKeyDef   = function.Internal("__TEMPORAL_JOIN_RIGHT_KEY", function.Scalar)
)

// keyConds returns left = right for every key pair, over left ++ right.
func keyConds(lk, rk []int, nLeft int) []logical.Expr {
	var out []logical.Expr
	for i := range lk {
		out = append(out, logical.NewCall(function.OpEquals, types.BooleanT,
			&logical.ColumnRef{Index: lk[i]}, &logical.ColumnRef{Index: nLeft + rk[i]}))
	}
	return out
}

// columnNameBelow returns the name of the table column that column i of
// n reads (through Calcs, exchanges and watermark assigners), or "".
func columnNameBelow(n Node, i int) string {
	switch x := n.(type) {
	case *TableSourceScan:
		if i < len(x.Out) {
			return x.Out[i].Name
		}
	case *Calc:
		if i < len(x.Projection) {
			if c, ok := x.Projection[i].(*logical.ColumnRef); ok {
				return columnNameBelow(x.Input, c.Index)
			}
		}
	case *WatermarkAssigner, *Exchange, *WatermarkCalc:
		return columnNameBelow(n.Children()[0], i)
	}
	return ""
}

// Explain implements Node: it prints Flink's attributes of a TemporalJoin:
//
//	joinType=[InnerJoin], where=[AND(=(currency, currency0),
//	__TEMPORAL_JOIN_CONDITION(rowtime, rowtime0,
//	__TEMPORAL_JOIN_CONDITION_PRIMARY_KEY(currency0),
//	__TEMPORAL_JOIN_LEFT_KEY(currency), __TEMPORAL_JOIN_RIGHT_KEY(currency0)))],
//	select=[…]
func (x *TemporalJoin) Explain(execution bool) string {
	exprStr := ExprString
	if execution {
		exprStr = ExecExprString
	}
	nLeft := len(x.Left.Schema())
	names := joinNames(x.Left.Schema(), x.Right.Schema())
	ref := func(i int) logical.Expr { return &logical.ColumnRef{Index: i} }
	refs := func(cols []int, off int) []logical.Expr {
		var out []logical.Expr
		for _, c := range cols {
			out = append(out, ref(off+c))
		}
		return out
	}
	b := types.BooleanT
	marker := logical.NewCall(logical.TemporalJoinConditionDef, b,
		ref(x.LeftTimeIndex), ref(nLeft+x.RightTimeIndex),
		logical.NewCall(temporalPrimaryKeyDef, b, refs(x.PrimaryKey, nLeft)...),
		logical.NewCall(temporalLeftKeyDef, b, refs(x.LeftKeys, 0)...),
		logical.NewCall(temporalRightKeyDef, b, refs(x.RightKeys, nLeft)...))
	conds := keyConds(x.LeftKeys, x.RightKeys, nLeft)
	if x.Extra != nil {
		conds = append(conds, logical.Conjuncts(x.Extra)...)
	}
	conds = append(conds, marker)
	return "joinType=[" + x.Kind.String() + "], where=[" + exprStr(logical.NewCall(function.OpAnd, b, conds...), names) +
		"], select=[" + strings.Join(outNames(x.Left, x.Right, x.Kind, names), ", ") + "]"
}
