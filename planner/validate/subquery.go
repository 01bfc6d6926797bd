package validate

import (
	"fmt"
	"strings"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/logical"
)

// unwrapSelect returns the SELECT of a subquery without ORDER BY / LIMIT.
func unwrapSelect(q ast.Query) (*ast.Select, bool) {
	switch x := q.(type) {
	case *ast.Select:
		return x, true
	case *ast.QueryExpr:
		if len(x.OrderBy) == 0 && x.Limit == nil && x.Offset == nil {
			return unwrapSelect(x.Body)
		}
	}
	return nil, false
}

// planSub plans a subquery with sc as its outer scope and reports whether
// it referenced the outer scope.
func (v *Validator) planSub(q ast.Query, sc *scope, e *env) (logical.Node, bool, error) {
	corr := false
	n, err := v.planQuery(q, e.sub(sc, &corr))
	return n, corr, err
}

// subqueryConjunct applies a WHERE conjunct [NOT] EXISTS (q) or x [NOT] IN
// (q) to rel as a semi or anti join.
func (v *Validator) subqueryConjunct(rel *relHolder, sc *scope, e *env, c ast.Expr) error {
	neg := false
	if u, ok := c.(*ast.Unary); ok && u.Op == "NOT" {
		neg = true
		c = u.Expr
	}
	var q ast.Query
	var value ast.Expr
	switch x := c.(type) {
	case *ast.Exists:
		q = x.Query
	case *ast.InSubquery:
		q = x.Query
		value = x.Expr
		if x.Not {
			neg = !neg
		}
	}
	kind := logical.SemiJoin
	if neg {
		kind = logical.AntiJoin
	}
	left := rel.node
	nl := len(left.Schema())
	outerB := &binder{v: v, sc: sc, env: e, clause: "WHERE"}
	sub, corr, err := v.planSub(q, sc, e)
	if err != nil && !corr {
		return err
	}
	if !corr {
		var cond logical.Expr
		if value != nil {
			rs := sub.Schema()
			if len(rs) != 1 {
				return posErr(c.Position(), "Subquery of IN must return exactly one column, but returns %d", len(rs))
			}
			val, err := outerB.expr(value)
			if err != nil {
				return err
			}
			if cond, err = outerB.call(c.Position(), "=", val, &logical.ColumnRef{Index: nl, Name: rs[0].Name, T: rs[0].Type}); err != nil {
				return err
			}
		}
		rel.node = &logical.Join{Left: left, Right: sub, Kind: kind, Cond: cond, NullAwareAnti: neg && value != nil,
			Out: joinOut(kind, left.Schema(), sub.Schema())}
		return nil
	}
	// correlated: decorrelate equality-style predicates into the join condition
	sel, ok := unwrapSelect(q)
	if !ok || sel.From == nil {
		return unsupported("correlated subquery that is not a simple SELECT … FROM … WHERE")
	}
	if len(sel.GroupBy) > 0 || sel.Having != nil || sel.Distinct {
		return unsupported("correlated subquery with GROUP BY, HAVING or DISTINCT")
	}
	for _, it := range sel.Items {
		if it.Expr != nil && (containsAgg(it.Expr) || containsSubquery(it.Expr)) {
			return unsupported("correlated subquery with aggregates or subqueries in its select list")
		}
	}
	inner, isc, err := v.planFrom(sel.From, e.plain())
	if err != nil {
		return err
	}
	var local []logical.Expr
	var corrConds []ast.Expr
	for _, cj := range splitAnd(sel.Where) {
		if containsSubquery(cj) {
			return unsupported("nested subqueries in a correlated subquery")
		}
		f := false
		trial := &scope{levels: isc.levels, tables: isc.tables, parent: sc, corr: &f}
		x, err := (&binder{v: v, sc: trial, env: e, clause: "WHERE"}).boolean(cj, "WHERE clause")
		if err != nil {
			return err
		}
		if f {
			corrConds = append(corrConds, cj)
		} else {
			local = append(local, x)
		}
	}
	if len(local) > 0 {
		inner = &logical.Filter{Input: inner, Cond: logical.And(local...)}
	}
	combined := &scope{levels: append([][]entry{shifted(isc.entries(), nl)}, sc.levels...)}
	cb := &binder{v: v, sc: combined, env: e, clause: "WHERE"}
	var conds []logical.Expr
	for _, cj := range corrConds {
		x, err := cb.boolean(cj, "WHERE clause")
		if err != nil {
			return err
		}
		conds = append(conds, x)
	}
	if value != nil {
		if len(sel.Items) != 1 || sel.Items[0].Star {
			return posErr(c.Position(), "Subquery of IN must return exactly one column")
		}
		item, err := cb.expr(sel.Items[0].Expr)
		if err != nil {
			return err
		}
		val, err := outerB.expr(value)
		if err != nil {
			return err
		}
		eq, err := cb.call(c.Position(), "=", val, item)
		if err != nil {
			return err
		}
		conds = append([]logical.Expr{eq}, conds...)
	}
	rel.node = &logical.Join{Left: left, Right: inner, Kind: kind, Cond: logical.And(conds...), NullAwareAnti: neg && value != nil,
		Out: joinOut(kind, left.Schema(), inner.Schema())}
	return nil
}

// scalarSubquery joins the single value of a scalar subquery onto the
// current relation and returns a reference to it.
func (b *binder) scalarSubquery(x *ast.ScalarSubquery) (logical.Expr, error) {
	if b.rel == nil && b.agg == nil {
		return nil, unsupported("scalar subquery in this clause, at line %d, column %d", x.Line, x.Col)
	}
	v := b.v
	sub, corr, err := v.planSub(x.Query, b.sc, b.env)
	if err != nil && !corr {
		return nil, err
	}
	if !corr {
		rs := sub.Schema()
		if len(rs) != 1 {
			return nil, posErr(x.Pos, "Scalar subquery must return exactly one column, but returns %d", len(rs))
		}
		t := rs[0].Type.WithNullable(true)
		agg := &logical.Aggregate{Input: sub, Aggs: []logical.AggCall{{Name: "SINGLE_VALUE", Args: []int{0}, Filter: -1, T: t, Alias: "$f0", Def: logical.SingleValueDef}},
			Out: types.Schema{{Name: "$f0", Type: t}}}
		if b.agg != nil {
			b.agg.deferred = append(b.agg.deferred, agg)
			return &subRef{j: len(b.agg.deferred) - 1, t: t}, nil
		}
		left := b.rel.node
		nl := len(left.Schema())
		b.rel.node = &logical.Join{Left: left, Right: agg, Kind: logical.LeftJoin, Out: joinOut(logical.LeftJoin, left.Schema(), agg.Out)}
		return &logical.ColumnRef{Index: nl, Name: "$f0", T: t}, nil
	}
	return b.correlatedScalar(x)
}

// correlatedScalar decorrelates SELECT agg(…) FROM … WHERE inner = outer
// AND … into a LEFT join with the aggregate grouped by the inner keys.
func (b *binder) correlatedScalar(x *ast.ScalarSubquery) (logical.Expr, error) {
	v := b.v
	no := unsupported("correlated scalar subquery (only SELECT <expression> FROM … WHERE <equality correlation> is supported)")
	sel, ok := unwrapSelect(x.Query)
	if !ok || sel.From == nil || len(sel.GroupBy) > 0 || sel.Having != nil || sel.Distinct || len(sel.Items) != 1 || sel.Items[0].Star {
		return nil, no
	}
	item := sel.Items[0].Expr
	if containsSubquery(item) {
		return nil, no
	}
	isAgg := containsAgg(item)
	_, isc, err := v.planFrom(sel.From, b.env.plain())
	if err != nil {
		return nil, err
	}
	innerOnly := func(e ast.Expr) bool {
		_, err := (&binder{v: v, sc: &scope{levels: isc.levels, tables: isc.tables}, env: b.env}).expr(e)
		return err == nil
	}
	outerOnly := func(e ast.Expr) bool {
		if innerOnly(e) {
			return false
		}
		_, err := (&binder{v: v, sc: b.sc, env: b.env}).expr(e)
		return err == nil
	}
	var local, innerKeys, outerKeys []ast.Expr
	for _, cj := range splitAnd(sel.Where) {
		if containsSubquery(cj) {
			return nil, no
		}
		if innerOnly(cj) {
			local = append(local, cj)
			continue
		}
		bin, ok := cj.(*ast.Binary)
		if !ok || bin.Op != "=" {
			return nil, no
		}
		switch {
		case innerOnly(bin.Left) && outerOnly(bin.Right):
			innerKeys, outerKeys = append(innerKeys, bin.Left), append(outerKeys, bin.Right)
		case innerOnly(bin.Right) && outerOnly(bin.Left):
			innerKeys, outerKeys = append(innerKeys, bin.Right), append(outerKeys, bin.Left)
		default:
			return nil, no
		}
	}
	if len(innerKeys) == 0 {
		return nil, no
	}
	syn := &ast.Select{Pos: sel.Pos, From: sel.From}
	if isAgg {
		syn.GroupBy = innerKeys
	}
	for i, k := range innerKeys {
		syn.Items = append(syn.Items, ast.SelectItem{Pos: k.Position(), Expr: k, Alias: fmt.Sprintf("$k%d", i)})
	}
	syn.Items = append(syn.Items, ast.SelectItem{Pos: item.Position(), Expr: item, Alias: "$v"})
	for _, l := range local {
		if syn.Where == nil {
			syn.Where = l
		} else {
			syn.Where = &ast.Binary{Pos: l.Position(), Op: "AND", Left: syn.Where, Right: l}
		}
	}
	right, err := v.planSelect(syn, nil, nil, b.env.plain())
	if err != nil {
		return nil, err
	}
	if !isAgg {
		// one value per key: SINGLE_VALUE fails at run time on a second row
		k := len(innerKeys)
		rs := right.Schema()
		keys := make([]int, k)
		out := make(types.Schema, 0, k+1)
		for i := range keys {
			keys[i] = i
			out = append(out, rs[i])
		}
		t := rs[k].Type.WithNullable(true)
		out = append(out, types.Field{Name: "$v", Type: t})
		right = &logical.Aggregate{Input: right, GroupKeys: keys,
			Aggs: []logical.AggCall{{Name: "SINGLE_VALUE", Args: []int{k}, Filter: -1, T: t, Alias: "$v", Def: logical.SingleValueDef}}, Out: out}
	}
	// joined onto the current relation, or after aggregation onto the
	// Aggregate's output (see attachment in subquery_value.go)
	okeys, err := b.bindKeys(outerKeys)
	if err != nil {
		return nil, err
	}
	ob := &binder{v: v, sc: b.sc, env: b.env}
	a := b.attach(right)
	cond, err := a.keyConds(okeys)
	if err != nil {
		return nil, err
	}
	a.commit(cond)
	k := len(innerKeys)
	ref := a.ref(k)
	if fc, ok := item.(*ast.FunctionCall); ok && strings.EqualFold(fc.Name.Last(), "COUNT") {
		zero := &logical.Literal{Value: int64(0), T: notNull(types.BigIntT)}
		c, err := ob.call(x.Pos, "COALESCE", ref, zero)
		if err != nil {
			return nil, err
		}
		ref = c
	}
	return ref, nil
}
