package rules

import "github.com/tablerun/tablerun/planner/logical"

// OuterJoinSimplify ("OuterJoinSimplifyRule") turns an outer join under a
// filter into a less outer one when the filter rejects the rows the outer
// join pads with NULLs: a conjunct that is NULL or FALSE whenever the
// columns of one input are all NULL (for example d.budget > 600) removes
// the rows where that input was NULL-padded. So
//
//	LEFT  + rejects right-padded rows → INNER
//	RIGHT + rejects left-padded rows  → INNER
//	FULL  + rejects right-padded rows → RIGHT (both sides: INNER)
//	FULL  + rejects left-padded rows  → LEFT
//
// The filter stays; FilterIntoJoinRule can then push it further.
type OuterJoinSimplify struct{ env *Env }

// Name implements Rule.
func (r *OuterJoinSimplify) Name() string { return "OuterJoinSimplifyRule" }

// Apply implements Rule.
func (r *OuterJoinSimplify) Apply(n logical.Node) (logical.Node, bool, error) {
	return transformUp(n, func(n logical.Node) (logical.Node, bool, error) {
		f, ok := n.(*logical.Filter)
		if !ok {
			return n, false, nil
		}
		j, ok := f.Input.(*logical.Join)
		if !ok || j.Kind == logical.InnerJoin || j.Kind == logical.SemiJoin || j.Kind == logical.AntiJoin {
			return n, false, nil
		}
		nLeft := len(j.Left.Schema())
		nAll := len(j.Out)
		isLeft := func(i int) bool { return i < nLeft }
		isRight := func(i int) bool { return i >= nLeft && i < nAll }
		rejectsLeftNull := r.strong(f.Cond, isLeft)
		rejectsRightNull := r.strong(f.Cond, isRight)
		kind := j.Kind
		switch j.Kind {
		case logical.LeftJoin:
			if rejectsRightNull {
				kind = logical.InnerJoin
			}
		case logical.RightJoin:
			if rejectsLeftNull {
				kind = logical.InnerJoin
			}
		case logical.FullJoin:
			switch {
			case rejectsLeftNull && rejectsRightNull:
				kind = logical.InnerJoin
			case rejectsRightNull:
				kind = logical.RightJoin
			case rejectsLeftNull:
				kind = logical.LeftJoin
			}
		}
		if kind == j.Kind {
			return n, false, nil
		}
		// The output keeps its (nullable) types: the plan's schema never
		// changes under a rule.
		nj := *j
		nj.Kind = kind
		return &logical.Filter{Input: &nj, Cond: f.Cond}, true, nil
	})
}

// strong reports whether e is NULL or FALSE whenever every column chosen
// by side is NULL (so a filter on e drops such rows).
func (r *OuterJoinSimplify) strong(e logical.Expr, side func(int) bool) bool {
	switch x := e.(type) {
	case *logical.Call:
		switch x.Name {
		case "AND":
			for _, a := range x.Args {
				if r.strong(a, side) {
					return true
				}
			}
			return false
		case "OR":
			for _, a := range x.Args {
				if !r.strong(a, side) {
					return false
				}
			}
			return len(x.Args) > 0
		}
		return r.nullOnNull(x) && r.anyNull(x.Args, side)
	}
	return false
}

// nullWhen reports whether e is NULL whenever every column chosen by side
// is NULL.
func (r *OuterJoinSimplify) nullWhen(e logical.Expr, side func(int) bool) bool {
	switch x := e.(type) {
	case *logical.ColumnRef:
		return side(x.Index)
	case *logical.Cast:
		return !x.Try && r.nullWhen(x.Arg, side)
	case *logical.Call:
		return r.nullOnNull(x) && r.anyNull(x.Args, side)
	}
	return false
}

func (r *OuterJoinSimplify) anyNull(args []logical.Expr, side func(int) bool) bool {
	for _, a := range args {
		if r.nullWhen(a, side) {
			return true
		}
	}
	return false
}

func (r *OuterJoinSimplify) nullOnNull(c *logical.Call) bool {
	if r.env == nil || r.env.Functions == nil {
		return false
	}
	d, err := c.Definition()
	return err == nil && d.NullOnNull
}
