package physical

import (
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// nullAwareStreamJoin plans a NOT IN (a null-aware anti join) in streaming
// mode as Flink does: a regular anti Join whose condition makes the NOT IN
// equality null-aware, OR(=(a, c), IS NULL(=(a, c))) — a left row is
// dropped while some right row may equal it — keyed by the correlation's
// equalities when there are any (else a single instance):
//
//	Join(joinType=[LeftAntiJoin], where=[((a = c) OR (a = c) IS NULL)], …)
//	:- Exchange(distribution=[single])
//	+- Exchange(distribution=[single])
//
// first is the NOT IN equality over left ++ right columns; keys are the
// other equality keys and extra the rest of the condition.
func nullAwareStreamJoin(l, r Node, first logical.Expr, lk, rk []int, extra logical.Expr, out types.Schema) Node {
	boolT := types.BooleanT.WithNullable(false)
	na := logical.NewCall(function.OpOr, boolT, first, logical.NewCall(function.OpIsNull, boolT, first))
	cond := logical.And(append([]logical.Expr{na}, conjunctsOf(extra)...)...)
	return &StreamJoin{Left: &Exchange{Input: l, Keys: lk}, Right: &Exchange{Input: r, Keys: rk}, Kind: logical.AntiJoin,
		LeftKeys: lk, RightKeys: rk, Extra: cond, Out: out}
}

func conjunctsOf(e logical.Expr) []logical.Expr {
	if e == nil {
		return nil
	}
	return logical.Conjuncts(e)
}

// nullAwareWindowJoin plans a NOT IN correlated on the window bounds of
// two windowed inputs as Flink does: a WindowJoin with joinType
// LeftAntiJoin whose condition is the null-aware NOT IN equality,
// OR(IS NULL(a), IS NULL(c), =(a, c)) — a right row of the window blocks
// a left row when they are equal or either is NULL — and whose keys are
// the window bounds and the other correlation equalities. ok is false
// when the correlation does not pair the window bounds.
func nullAwareWindowJoin(x *HashJoin, conv []Node) (Node, bool, error) {
	if len(x.LeftKeys) < 3 {
		return nil, false, nil
	}
	nLeft := len(x.Left.Schema())
	ls, rs := x.Left.Schema(), x.Right.Schema()
	l0, r0 := x.LeftKeys[0], x.RightKeys[0]
	boolT := types.BooleanT.WithNullable(false)
	a := &logical.ColumnRef{Index: l0, Name: ls[l0].Name, T: ls[l0].Type}
	c := &logical.ColumnRef{Index: nLeft + r0, Name: rs[r0].Name, T: rs[r0].Type}
	blocks := logical.NewCall(function.OpOr, boolT,
		logical.NewCall(function.OpIsNull, boolT, a),
		logical.NewCall(function.OpIsNull, boolT, c),
		logical.NewCall(function.OpEquals, types.BooleanT, a, c))
	anti := *x
	anti.NullAwareAnti = false
	anti.LeftKeys, anti.RightKeys = x.LeftKeys[1:], x.RightKeys[1:]
	anti.Extra = logical.And(append([]logical.Expr{blocks}, conjunctsOf(x.Extra)...)...)
	return windowJoin(&anti, conv) // window_join.go
}

// streamNotIn converts the null-aware anti HashJoin or NestedLoopJoin n
// over the streaming inputs conv; ok is false for other joins.
func streamNotIn(n Node, conv []Node) (Node, bool) {
	switch x := n.(type) {
	case *HashJoin:
		if !x.NullAwareAnti || len(x.LeftKeys) == 0 {
			return nil, false
		}
		nLeft := len(x.Left.Schema())
		ls, rs := x.Left.Schema(), x.Right.Schema()
		l0, r0 := x.LeftKeys[0], x.RightKeys[0]
		eq := logical.NewCall(function.OpEquals, types.BooleanT,
			&logical.ColumnRef{Index: l0, Name: ls[l0].Name, T: ls[l0].Type},
			&logical.ColumnRef{Index: nLeft + r0, Name: rs[r0].Name, T: rs[r0].Type})
		return nullAwareStreamJoin(conv[0], conv[1], eq, x.LeftKeys[1:], x.RightKeys[1:], x.Extra, x.Out), true
	case *NestedLoopJoin:
		if !x.NullAwareAnti || x.Cond == nil {
			return nil, false
		}
		cs := logical.Conjuncts(x.Cond)
		return nullAwareStreamJoin(conv[0], conv[1], cs[0], nil, nil, logical.And(cs[1:]...), x.Out), true
	}
	return nil, false
}
