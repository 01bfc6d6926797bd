package rules

import "github.com/tablerun/tablerun/planner/logical"

// PruneEmpty ("PruneEmptyRule") propagates empty relations (a Values with
// no rows) upwards: a filter, projection, sort or limit of nothing is
// nothing, a LIMIT 0 is nothing, a grouped aggregate of nothing is nothing
// (a global aggregate is not: it yields one row), an inner join with an
// empty side is nothing, and empty UNION inputs are dropped.
type PruneEmpty struct{}

// Name implements Rule.
func (r *PruneEmpty) Name() string { return "PruneEmptyRule" }

// Apply implements Rule.
func (r *PruneEmpty) Apply(n logical.Node) (logical.Node, bool, error) {
	return transformUp(n, r.node)
}

func (r *PruneEmpty) node(n logical.Node) (logical.Node, bool, error) {
	empty := func() (logical.Node, bool, error) { return emptyValues(n.Schema()), true, nil }
	switch x := n.(type) {
	case *logical.Filter, *logical.Project, *logical.Sort:
		if isEmptyValues(n.Children()[0]) {
			return empty()
		}
	case *logical.Limit:
		if x.Fetch == 0 || isEmptyValues(x.Input) {
			return empty()
		}
	case *logical.Aggregate:
		if len(x.GroupKeys) > 0 && isEmptyValues(x.Input) {
			return empty()
		}
	case *logical.Join:
		l, r := isEmptyValues(x.Left), isEmptyValues(x.Right)
		switch x.Kind {
		case logical.InnerJoin, logical.SemiJoin:
			if l || r {
				return empty()
			}
		case logical.LeftJoin, logical.AntiJoin:
			if l {
				return empty()
			}
		case logical.RightJoin:
			if r {
				return empty()
			}
		case logical.FullJoin:
			if l && r {
				return empty()
			}
		}
	case *logical.Union:
		var kept []logical.Node
		for _, in := range x.Inputs {
			if !isEmptyValues(in) {
				kept = append(kept, in)
			}
		}
		switch {
		case len(kept) == 0:
			return empty()
		case len(kept) < len(x.Inputs):
			return &logical.Union{Inputs: kept, Out: x.Out}, true, nil
		}
	case *logical.SetOp:
		l, r := isEmptyValues(x.Left), isEmptyValues(x.Right)
		if l || (r && x.Kind == logical.Intersect) {
			return empty()
		}
	}
	return n, false, nil
}
