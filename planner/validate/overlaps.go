package validate

import (
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/logical"
)

// overlaps binds (p1, t1) OVERLAPS (p2, t2) as Calcite's convertlet (and
// Flink's TemporalOverlapsConverter) rewrite it: a temporal t that is an
// interval ends at p + t; each period's ends are sorted,
// s = CASE(p <= e, p, e) and e' = CASE(p <= e, e, p); and the periods
// overlap when (e0 >= s1) AND (e1 >= s0) — touching periods overlap.
func (b *binder) overlaps(x *ast.Binary) (logical.Expr, error) {
	bad := func() error {
		return posErr(x.Pos, "Illegal overlaps expression. Expecting expression like (DATETIME, DATETIME) OVERLAPS (DATETIME, DATETIME)")
	}
	period := func(e ast.Expr) (s, t logical.Expr, err error) {
		row, ok := e.(*ast.Row)
		if !ok || len(row.Items) != 2 {
			return nil, nil, bad()
		}
		p, err := b.expr(row.Items[0])
		if err != nil {
			return nil, nil, err
		}
		t, err = b.expr(row.Items[1])
		if err != nil {
			return nil, nil, err
		}
		if !isTimePoint(p.Type()) || !isTimePoint(t.Type()) && !t.Type().IsInterval() {
			return nil, nil, posErr(x.Pos, "Cannot apply 'OVERLAPS' to arguments of type '<%s, %s> OVERLAPS <…>'. Supported form(s): '(<DATETIME>, <DATETIME>) OVERLAPS (<DATETIME>, <DATETIME>)', '(<DATETIME>, <DATETIME>) OVERLAPS (<DATETIME>, <INTERVAL>)', '(<DATETIME>, <INTERVAL>) OVERLAPS (<DATETIME>, <DATETIME>)', '(<DATETIME>, <INTERVAL>) OVERLAPS (<DATETIME>, <INTERVAL>)'", p.Type(), t.Type())
		}
		if t.Type().IsInterval() {
			if t, err = b.call(x.Pos, "+", p, t); err != nil {
				return nil, nil, err
			}
		}
		return p, t, nil
	}
	p0, t0, err := period(x.Left)
	if err != nil {
		return nil, err
	}
	p1, t1, err := period(x.Right)
	if err != nil {
		return nil, err
	}
	sorted := func(p, t logical.Expr) (logical.Expr, logical.Expr, error) {
		le, err := b.call(x.Pos, "<=", p, t)
		if err != nil {
			return nil, nil, err
		}
		ty := p.Type()
		if t.Type().Nullable() {
			ty = ty.WithNullable(true)
		}
		s := &logical.Case{Whens: []logical.When{{Cond: le, Then: p}}, Else: t, T: ty}
		e := &logical.Case{Whens: []logical.When{{Cond: le, Then: t}}, Else: p, T: ty}
		return s, e, nil
	}
	s0, e0, err := sorted(p0, t0)
	if err != nil {
		return nil, err
	}
	s1, e1, err := sorted(p1, t1)
	if err != nil {
		return nil, err
	}
	l, err := b.call(x.Pos, ">=", e0, s1)
	if err != nil {
		return nil, err
	}
	r, err := b.call(x.Pos, ">=", e1, s0)
	if err != nil {
		return nil, err
	}
	return b.call(x.Pos, "AND", l, r)
}

func isTimePoint(t types.Type) bool {
	switch t.Kind {
	case types.Date, types.Time, types.Timestamp, types.TimestampLTZ:
		return true
	}
	return false
}
