package rules

import (
	"fmt"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/planner/logical"
)

// The rules of this file read what a table's connector can do from the
// abilities the facade resolved into the table (catalog.Abilities); none
// knows a connector by name.

// supportsProjectionPushDown reports whether a table's connector reads only
// the columns it is asked for, as Flink's SupportsProjectionPushDown
// sources do. A source without it produces every
// physical column and a Calc above drops the unused ones (so EXPLAIN shows
// "Calc(select=[…])" over "TableSourceScan(…, fields=[all])").
func supportsProjectionPushDown(t *catalog.ResolvedTable) bool {
	return catalog.AbilitiesOf(t).ProjectionPushDown
}

// PushFilterIntoTableSourceScan ("PushFilterIntoTableSourceScanRule")
// offers the conjuncts of a filter directly above a scan to a source with
// filter push-down (Flink's SupportsFilterPushDown): the accepted ones go
// into the scan (its digest prints filter=[…]), the remaining ones stay in
// the filter. Filters pushed before are offered again with the new ones,
// so conjuncts that reach the scan in a later pass are pushed too.
type PushFilterIntoTableSourceScan struct{}

// Name implements Rule.
func (r *PushFilterIntoTableSourceScan) Name() string { return "PushFilterIntoTableSourceScanRule" }

// Apply implements Rule.
func (r *PushFilterIntoTableSourceScan) Apply(n logical.Node) (logical.Node, bool, error) {
	return transformUp(n, func(n logical.Node) (logical.Node, bool, error) {
		f, ok := n.(*logical.Filter)
		if !ok {
			return n, false, nil
		}
		scan, ok := f.Input.(*logical.Scan)
		if !ok {
			return n, false, nil
		}
		apply := catalog.AbilitiesOf(scan.Table).ApplyFilters
		if apply == nil {
			return n, false, nil
		}
		// Offer the filters the scan holds and the filter's conjuncts,
		// each once.
		var offered []logical.Expr
		seen := map[string]bool{}
		for _, e := range append(append([]logical.Expr(nil), scan.Filters...), logical.Conjuncts(f.Cond)...) {
			if k := e.String(); !seen[k] {
				seen[k] = true
				offered = append(offered, e)
			}
		}
		exprs, err := logical.CatalogExprs(offered, scan.Table, scan.Projection)
		if err != nil {
			return nil, false, err
		}
		res := apply(exprs)
		accepted := make([]bool, len(offered))
		remaining := make([]bool, len(offered))
		for _, i := range res.Accepted {
			if i < 0 || i >= len(offered) {
				return nil, false, fmt.Errorf("the connector of %s accepted filter %d of %d", scan.Table.ID.Summary(), i, len(offered))
			}
			accepted[i] = true
		}
		for _, i := range res.Remaining {
			if i < 0 || i >= len(offered) {
				return nil, false, fmt.Errorf("the connector of %s left filter %d of %d remaining", scan.Table.ID.Summary(), i, len(offered))
			}
			remaining[i] = true
		}
		var pushed, rest []logical.Expr
		for i, e := range offered {
			if accepted[i] {
				pushed = append(pushed, e)
			}
			if remaining[i] || !accepted[i] {
				rest = append(rest, e)
			}
		}
		if sameExprs(pushed, scan.Filters) && sameExprs(rest, logical.Conjuncts(f.Cond)) {
			return n, false, nil
		}
		s := *scan
		s.Filters = pushed
		if len(rest) == 0 {
			return &s, true, nil
		}
		return &logical.Filter{Input: &s, Cond: logical.And(rest...)}, true, nil
	})
}

func sameExprs(a, b []logical.Expr) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].String() != b[i].String() {
			return false
		}
	}
	return true
}

// PushLimitIntoTableSourceScan ("PushLimitIntoTableSourceScanRule") tells a
// source with limit push-down (Flink's SupportsLimitPushDown) that at most
// OFFSET + FETCH rows are needed, for a LIMIT directly above its scan or
// above a projection of it. The Limit stays: a source may return more.
type PushLimitIntoTableSourceScan struct{}

// Name implements Rule.
func (r *PushLimitIntoTableSourceScan) Name() string { return "PushLimitIntoTableSourceScanRule" }

// Apply implements Rule.
func (r *PushLimitIntoTableSourceScan) Apply(n logical.Node) (logical.Node, bool, error) {
	return transformUp(n, func(n logical.Node) (logical.Node, bool, error) {
		l, ok := n.(*logical.Limit)
		if !ok || l.Fetch <= 0 {
			return n, false, nil
		}
		var proj *logical.Project
		in := l.Input
		if p, ok := in.(*logical.Project); ok {
			proj, in = p, p.Input
		}
		scan, ok := in.(*logical.Scan)
		if !ok || !catalog.AbilitiesOf(scan.Table).LimitPushDown {
			return n, false, nil
		}
		limit := l.Offset + l.Fetch
		if scan.Limit > 0 && scan.Limit <= limit {
			return n, false, nil
		}
		s := *scan
		s.Limit = limit
		var below logical.Node = &s
		if proj != nil {
			below = proj.WithChildren([]logical.Node{below})
		}
		return l.WithChildren([]logical.Node{below}), true, nil
	})
}
