package rules

import (
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// deterministic reports whether e always gives the same result for the
// same input. A function missing from the registry counts as
// nondeterministic (the safe answer); without a registry every call does.
func (env *Env) deterministic(e logical.Expr) bool {
	return logical.IsDeterministic(e, func(c *logical.Call) bool {
		if env == nil || env.Functions == nil {
			return true
		}
		d, err := c.Definition()
		return err != nil || d.Nondeterministic
	})
}

// side classifies which join input an expression over left ++ right reads.
type side uint8

const (
	sideNone  side = iota // reads no column
	sideLeft              // only left columns
	sideRight             // only right columns
	sideBoth              // columns of both inputs
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

// substitute replaces every column reference $i in e by exprs[i].
func substitute(e logical.Expr, exprs []logical.Expr) logical.Expr {
	return logical.Rewrite(e, func(x logical.Expr) logical.Expr {
		if c, ok := x.(*logical.ColumnRef); ok && c.Index < len(exprs) {
			return exprs[c.Index]
		}
		return x
	})
}

// shift returns e with every column index moved by delta.
func shift(e logical.Expr, delta int) logical.Expr {
	if delta == 0 {
		return e
	}
	return logical.ShiftRefs(e, func(i int) int { return i + delta })
}

// isSimple reports column references and literals: expressions that cost
// nothing to evaluate twice.
func isSimple(e logical.Expr) bool {
	switch e.(type) {
	case *logical.ColumnRef, *logical.Literal:
		return true
	}
	return false
}

// refCounts counts how often each column is referenced by es.
func refCounts(es ...logical.Expr) map[int]int {
	out := map[int]int{}
	for _, e := range es {
		if e == nil {
			continue
		}
		logical.Walk(e, func(x logical.Expr) bool {
			if c, ok := x.(*logical.ColumnRef); ok {
				out[c.Index]++
			}
			return true
		})
	}
	return out
}

// isIdentity reports whether exprs read the input columns in order and
// out matches the input schema exactly (names and types).
func isIdentity(exprs []logical.Expr, out, in types.Schema) bool {
	if len(exprs) != len(in) || len(out) != len(in) {
		return false
	}
	for i, e := range exprs {
		c, ok := e.(*logical.ColumnRef)
		if !ok || c.Index != i {
			return false
		}
		if out[i].Name != in[i].Name || !out[i].Type.Equal(in[i].Type) {
			return false
		}
	}
	return true
}

// emptyValues is an empty relation with the given schema.
func emptyValues(s types.Schema) *logical.Values {
	return &logical.Values{Rows: [][]logical.Expr{}, Out: s}
}

func isEmptyValues(n logical.Node) bool {
	v, ok := n.(*logical.Values)
	return ok && len(v.Rows) == 0
}

// boolLiteral reports whether e is a BOOLEAN literal and its value: v is
// nil for NULL.
func boolLiteral(e logical.Expr) (lit bool, v *bool) {
	l, ok := e.(*logical.Literal)
	if !ok {
		return false, nil
	}
	if l.Value == nil {
		return l.T.Kind == types.Boolean || l.T.Kind == types.Null, nil
	}
	b, ok := l.Value.(bool)
	if !ok {
		return false, nil
	}
	return true, &b
}

func isTrue(e logical.Expr) bool {
	lit, v := boolLiteral(e)
	return lit && v != nil && *v
}

func isFalse(e logical.Expr) bool {
	lit, v := boolLiteral(e)
	return lit && v != nil && !*v
}

func isNullLiteral(e logical.Expr) bool {
	l, ok := e.(*logical.Literal)
	return ok && l.Value == nil
}

func boolLit(b bool, t types.Type) *logical.Literal {
	return &logical.Literal{Value: b, T: t.WithNullable(false)}
}

// andAll joins conjuncts with AND, nil for none.
func andAll(es []logical.Expr) logical.Expr { return logical.And(es...) }
