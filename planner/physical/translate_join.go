package physical

import (
	"fmt"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// join translates a logical join. Conjuncts a = b where a reads only the
// left input and b only the right one (or the other way round) become hash
// keys; the rest is the HashJoin's extra condition. A key that is an
// expression rather than a column is computed by a Calc below the join
// that appends it as an extra column, and a Calc above the join removes
// those columns again. Without any key the join is a NestedLoopJoin.
func (t *translator) join(x *logical.Join) (Node, error) {
	left, err := t.node(x.Left)
	if err != nil {
		return nil, err
	}
	right, err := t.node(x.Right)
	if err != nil {
		return nil, err
	}
	nLeft, nRight := len(x.Left.Schema()), len(x.Right.Schema())
	var lkeys, rkeys, rest []logical.Expr
	if x.Cond != nil {
		for _, c := range logical.Conjuncts(x.Cond) {
			l, r, ok := equiKey(c, nLeft)
			if ok {
				lkeys = append(lkeys, l)
				rkeys = append(rkeys, r)
				continue
			}
			rest = append(rest, c)
		}
	}
	if len(lkeys) == 0 {
		return &NestedLoopJoin{Left: left, Right: right, Kind: x.Kind, Cond: x.Cond, NullAwareAnti: x.NullAwareAnti, Temporal: x.Temporal, Out: x.Out}, nil
	}
	semi := x.Kind == logical.SemiJoin || x.Kind == logical.AntiJoin
	if len(x.Out) != nLeft && semi || !semi && len(x.Out) != nLeft+nRight {
		return nil, fmt.Errorf("join output has %d columns, inputs %d and %d", len(x.Out), nLeft, nRight)
	}
	leftIdx, left := keyColumns(lkeys, left)
	rightIdx, right := keyColumns(rkeys, right)
	kL := len(left.Schema()) - nLeft
	kR := len(right.Schema()) - nRight

	var extra logical.Expr
	if len(rest) > 0 {
		extra = logical.ShiftRefs(logical.And(rest...), func(i int) int {
			if i >= nLeft {
				return i + kL
			}
			return i
		})
	}
	out := append(types.Schema{}, x.Out[:nLeft]...)
	for _, f := range left.Schema()[nLeft:] {
		out = append(out, nullableIf(f, x.Kind == logical.RightJoin || x.Kind == logical.FullJoin))
	}
	if !semi {
		out = append(out, x.Out[nLeft:]...)
		for _, f := range right.Schema()[nRight:] {
			out = append(out, nullableIf(f, x.Kind == logical.LeftJoin || x.Kind == logical.FullJoin))
		}
	}
	hj := &HashJoin{Left: left, Right: right, Kind: x.Kind, LeftKeys: leftIdx, RightKeys: rightIdx,
		Extra: extra, NullAwareAnti: x.NullAwareAnti, Temporal: x.Temporal, Out: out}
	if kL == 0 && kR == 0 {
		return hj, nil
	}
	var proj []logical.Expr
	for i := 0; i < nLeft; i++ {
		proj = append(proj, &logical.ColumnRef{Index: i, Name: out[i].Name, T: out[i].Type})
	}
	if !semi {
		for j := 0; j < nRight; j++ {
			i := nLeft + kL + j
			proj = append(proj, &logical.ColumnRef{Index: i, Name: out[i].Name, T: out[i].Type})
		}
	}
	return &Calc{Input: hj, Projection: proj, Out: x.Out}, nil
}

func nullableIf(f types.Field, nullable bool) types.Field {
	if nullable {
		f.Type = f.Type.WithNullable(true)
	}
	return f
}

// equiKey splits a conjunct l = r with one side over each input; the right
// expression is returned over the right input's own columns. Operands of
// different types (other than nullability) are not keys.
func equiKey(c logical.Expr, nLeft int) (l, r logical.Expr, ok bool) {
	call, isCall := c.(*logical.Call)
	if !isCall || call.Name != "=" || len(call.Args) != 2 {
		return nil, nil, false
	}
	a, b := call.Args[0], call.Args[1]
	if !a.Type().EqualIgnoringNull(b.Type()) {
		return nil, nil, false
	}
	sa, sb := sideOf(a, nLeft), sideOf(b, nLeft)
	switch {
	case sa == sideLeft && sb == sideRight:
		return a, shiftBy(b, -nLeft), true
	case sa == sideRight && sb == sideLeft:
		return b, shiftBy(a, -nLeft), true
	}
	return nil, nil, false
}

// keyColumns returns the column index of each key over in, adding a Calc
// that appends the keys that are not plain columns.
func keyColumns(keys []logical.Expr, in Node) ([]int, Node) {
	s := in.Schema()
	idx := make([]int, len(keys))
	var extra []logical.Expr
	for i, k := range keys {
		if c, ok := k.(*logical.ColumnRef); ok {
			idx[i] = c.Index
			continue
		}
		idx[i] = len(s) + len(extra)
		extra = append(extra, k)
	}
	if len(extra) == 0 {
		return idx, in
	}
	proj := identityProj(s)
	out := append(types.Schema{}, s...)
	for _, e := range extra {
		out = append(out, types.Field{Name: fmt.Sprintf("$f%d", len(proj)), Type: e.Type()})
		proj = append(proj, e)
	}
	return idx, &Calc{Input: in, Projection: proj, Out: out}
}

type side uint8

const (
	sideNone side = iota
	sideLeft
	sideRight
	sideBoth
)

func sideOf(e logical.Expr, nLeft int) side {
	s := sideNone
	for i := range logical.InputRefs(e) {
		cur := sideLeft
		if i >= nLeft {
			cur = sideRight
		}
		switch {
		case s == sideNone:
			s = cur
		case s != cur:
			return sideBoth
		}
	}
	return s
}

func shiftBy(e logical.Expr, delta int) logical.Expr {
	return logical.ShiftRefs(e, func(i int) int { return i + delta })
}
