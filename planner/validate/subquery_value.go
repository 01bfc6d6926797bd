package validate

import (
	"fmt"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/logical"
)

// This file binds IN (subquery) and EXISTS used as values — in the select
// list, under OR or NOT in WHERE, in ORDER BY — rather than as top-level
// WHERE conjuncts (which become semi/anti joins, see subqueryConjunct).
//
// As Calcite's SubQueryRemoveRule does, the subquery's rows R (correlation
// keys k…, then the IN value c) are joined onto the current relation with
// LEFT joins that never multiply its rows:
//
//	EXISTS:  D = DISTINCT(k…, TRUE AS m)   EXISTS ≡ m IS NOT NULL
//	IN:      C = (k…, COUNT(*) cnt, COUNT(c) ck) grouped by k… (only
//	         when x or c is nullable; else IN ≡ m IS NOT NULL)
//	         D = DISTINCT(k…, c, TRUE AS m), joined on k… and x = c
//	         x IN (…) ≡ CASE WHEN cnt IS NULL OR cnt = 0 THEN FALSE
//	                         WHEN m IS NOT NULL THEN TRUE
//	                         WHEN x IS NULL THEN NULL
//	                         WHEN ck < cnt THEN NULL ELSE FALSE END
//
// which is SQL's three-valued IN: TRUE on a match, FALSE for an empty
// subquery, else NULL when x or some subquery value is NULL. Without
// correlation there are no keys and C has exactly one row. Correlation must
// be by equalities between inner and outer expressions.

// existsValue binds EXISTS (q) as a BOOLEAN value.
func (b *binder) existsValue(x *ast.Exists) (logical.Expr, error) {
	if b.rel == nil && b.agg == nil {
		return nil, unsupported("EXISTS subquery in %s, at line %d, column %d", b.where(), x.Line, x.Col)
	}
	r, outerKeys, err := b.subRelation(x.Query, nil, x.Pos)
	if err != nil {
		return nil, err
	}
	okeys, err := b.bindKeys(outerKeys)
	if err != nil {
		return nil, err
	}
	k := len(outerKeys)
	exprs := make([]logical.Expr, 0, k+1)
	out := make(types.Schema, 0, k+1)
	rs := r.Schema()
	for i := 0; i < k; i++ {
		exprs = append(exprs, &logical.ColumnRef{Index: i, Name: rs[i].Name, T: rs[i].Type})
		out = append(out, rs[i])
	}
	exprs = append(exprs, &logical.Literal{Value: true, T: notNull(types.BooleanT)})
	out = append(out, types.Field{Name: "$m", Type: notNull(types.BooleanT)})
	d := distinctOf(&logical.Project{Input: r, Exprs: exprs, Out: uniquify(out)})
	a := b.attach(d)
	cond, err := a.keyConds(okeys)
	if err != nil {
		return nil, err
	}
	a.commit(cond)
	return b.call(x.Pos, "IS NOT NULL", a.ref(k))
}

// inSubqueryValue binds x [NOT] IN (q) as a BOOLEAN value.
func (b *binder) inSubqueryValue(x *ast.InSubquery) (logical.Expr, error) {
	if b.rel == nil && b.agg == nil {
		return nil, unsupported("IN subquery in %s, at line %d, column %d", b.where(), x.Line, x.Col)
	}
	val, err := b.expr(x.Expr)
	if err != nil {
		return nil, err
	}
	r, outerKeys, err := b.subRelation(x.Query, x.Expr, x.Pos)
	if err != nil {
		return nil, err
	}
	okeys, err := b.bindKeys(outerKeys)
	if err != nil {
		return nil, err
	}
	k := len(outerKeys)
	rs := r.Schema()
	if len(rs) != k+1 {
		return nil, posErr(x.Pos, "Subquery of IN must return exactly one column, but returns %d", len(rs)-k)
	}
	ct := rs[k].Type
	// C: per key, the number of rows and of non-NULL values; only a
	// nullable IN needs them (see threeValuedIn)
	nullable := val.Type().Nullable() || ct.Nullable()
	var cntRef, ckRef logical.Expr
	if nullable {
		keys := make([]int, k)
		cOut := make(types.Schema, 0, k+2)
		for i := range keys {
			keys[i] = i
			cOut = append(cOut, rs[i])
		}
		cnt := types.Field{Name: "$cnt", Type: notNull(types.BigIntT)}
		ck := types.Field{Name: "$ck", Type: notNull(types.BigIntT)}
		cOut = append(cOut, cnt, ck)
		c := &logical.Aggregate{Input: r, GroupKeys: keys, Aggs: []logical.AggCall{
			{Name: "COUNT", Filter: -1, T: cnt.Type, Alias: cnt.Name, Def: function.AggCount},
			{Name: "COUNT", Args: []int{k}, Filter: -1, T: ck.Type, Alias: ck.Name, Def: function.AggCount},
		}, Out: uniquify(cOut)}
		ca := b.attach(c)
		cond, err := ca.keyConds(okeys)
		if err != nil {
			return nil, err
		}
		ca.commit(cond)
		cntRef, ckRef = ca.ref(k), ca.ref(k+1)
	}

	// D: the distinct (keys…, value) pairs, marked
	exprs := make([]logical.Expr, 0, k+2)
	dOut := make(types.Schema, 0, k+2)
	for i := 0; i <= k; i++ {
		exprs = append(exprs, &logical.ColumnRef{Index: i, Name: rs[i].Name, T: rs[i].Type})
		dOut = append(dOut, rs[i])
	}
	dist := distinctOf(&logical.Project{Input: r, Exprs: exprs, Out: uniquify(dOut)})
	ds := dist.Schema()
	dExprs := make([]logical.Expr, 0, k+2)
	for i, f := range ds {
		dExprs = append(dExprs, &logical.ColumnRef{Index: i, Name: f.Name, T: f.Type})
	}
	dExprs = append(dExprs, &logical.Literal{Value: true, T: notNull(types.BooleanT)})
	d := &logical.Project{Input: dist, Exprs: dExprs, Out: uniquify(append(append(types.Schema{}, ds...), types.Field{Name: "$m", Type: notNull(types.BooleanT)}))}
	da := b.attach(d)
	conds, err := da.keyConds(okeys)
	if err != nil {
		return nil, err
	}
	eq, err := b.call(x.Pos, "=", val, da.ref(k))
	if err != nil {
		return nil, err
	}
	da.commit(logical.And(append(logical.Conjuncts(conds), eq)...))

	matched, err := b.call(x.Pos, "IS NOT NULL", da.ref(k+1))
	if err != nil {
		return nil, err
	}
	var res logical.Expr = matched
	if nullable {
		res, err = b.threeValuedIn(x.Pos, val, cntRef, ckRef, matched)
		if err != nil {
			return nil, err
		}
	}
	return b.not(x.Pos, res, x.Not)
}

// attachment LEFT-joins a relation onto what the binder binds over: the
// current relation (b.rel), or after aggregation the Aggregate's output,
// where the join waits in aggCtx.deferred until the Aggregate is built and
// its columns are subRef placeholders until then.
type attachment struct {
	b     *binder
	right logical.Node
	base  int // with b.rel: the join column of right's first column
	j     int // after aggregation: the index in aggCtx.deferred
}

// attach starts joining right; build its condition with ref, then commit.
// Nothing else may be joined onto b.rel in between.
func (b *binder) attach(right logical.Node) *attachment {
	a := &attachment{b: b, right: right}
	if b.rel != nil {
		a.base = len(b.rel.node.Schema())
		return a
	}
	a.j = len(b.agg.deferred)
	b.agg.deferred = append(b.agg.deferred, right)
	return a
}

// ref references column col of the attached relation (nullable: LEFT join).
func (a *attachment) ref(col int) logical.Expr {
	f := a.right.Schema()[col]
	t := f.Type.WithNullable(true)
	if a.b.rel != nil {
		return &logical.ColumnRef{Index: a.base + col, Name: f.Name, T: t}
	}
	return &subRef{j: a.j, t: t, col: col}
}

// commit joins the relation with the condition (nil: none).
func (a *attachment) commit(cond logical.Expr) {
	b := a.b
	if b.rel != nil {
		b.rel.node = &logical.Join{Left: b.rel.node, Right: a.right, Kind: logical.LeftJoin, Cond: cond,
			Out: joinOut(logical.LeftJoin, b.rel.node.Schema(), a.right.Schema())}
		return
	}
	for len(b.agg.deferredConds) <= a.j {
		b.agg.deferredConds = append(b.agg.deferredConds, nil)
	}
	b.agg.deferredConds[a.j] = cond
}

// keyConds binds outer key = attached key conjuncts (the attached
// relation's first len(okeys) columns); nil without keys.
func (a *attachment) keyConds(okeys []logical.Expr) (logical.Expr, error) {
	var conds []logical.Expr
	for i, k := range okeys {
		c, err := a.b.call(ast.Pos{}, "=", k, a.ref(i))
		if err != nil {
			return nil, err
		}
		conds = append(conds, c)
	}
	return logical.And(conds...), nil
}

// bindKeys binds the outer correlation keys in the binder's own context
// (after aggregation they must be grouped expressions).
func (b *binder) bindKeys(keys []ast.Expr) ([]logical.Expr, error) {
	out := make([]logical.Expr, len(keys))
	for i, k := range keys {
		x, err := b.expr(k)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return out, nil
}

// where names the clause being bound for "not supported" messages about
// subqueries the binder cannot join (no current relation).
func (b *binder) where() string {
	switch {
	case b.clause != "":
		return "the " + b.clause + " clause"
	case b.agg != nil:
		return "the select list of an aggregate query"
	}
	return "this context"
}

// threeValuedIn builds the CASE of a nullable IN (see the file comment).
func (b *binder) threeValuedIn(pos ast.Pos, val, cnt, ck, matched logical.Expr) (logical.Expr, error) {
	f := &logical.Literal{Value: false, T: notNull(types.BooleanT)}
	t := &logical.Literal{Value: true, T: notNull(types.BooleanT)}
	null := &logical.Literal{Value: nil, T: types.BooleanT}
	zero := &logical.Literal{Value: int64(0), T: notNull(types.BigIntT)}
	noCnt, err := b.call(pos, "IS NULL", cnt)
	if err != nil {
		return nil, err
	}
	isZero, err := b.call(pos, "=", cnt, zero)
	if err != nil {
		return nil, err
	}
	empty, err := b.call(pos, "OR", noCnt, isZero)
	if err != nil {
		return nil, err
	}
	valNull, err := b.call(pos, "IS NULL", val)
	if err != nil {
		return nil, err
	}
	someNull, err := b.call(pos, "<", ck, cnt)
	if err != nil {
		return nil, err
	}
	return &logical.Case{Whens: []logical.When{
		{Cond: empty, Then: f},
		{Cond: matched, Then: t},
		{Cond: valNull, Then: null},
		{Cond: someNull, Then: null},
	}, Else: f, T: types.BooleanT}, nil
}

// subRelation plans the rows of an IN / EXISTS subquery: its inner
// correlation keys first (one per outer key returned), then, for IN (value
// non-nil), the subquery's single column.
func (b *binder) subRelation(q ast.Query, value ast.Expr, pos ast.Pos) (logical.Node, []ast.Expr, error) {
	v := b.v
	sub, corr, err := v.planSub(q, b.sc, b.env)
	if !corr {
		if err != nil {
			return nil, nil, err
		}
		if value != nil && len(sub.Schema()) != 1 {
			return nil, nil, posErr(pos, "Subquery of IN must return exactly one column, but returns %d", len(sub.Schema()))
		}
		return sub, nil, nil
	}
	no := unsupported("correlated IN/EXISTS subquery used as a value (only SELECT … FROM … WHERE <inner = outer equalities> AND <inner conditions> is supported), at line %d, column %d", pos.Line, pos.Col)
	sel, ok := unwrapSelect(q)
	if !ok || sel.From == nil || len(sel.GroupBy) > 0 || sel.Having != nil {
		return nil, nil, no
	}
	for _, it := range sel.Items {
		if it.Expr != nil && (containsAgg(it.Expr) || containsSubquery(it.Expr)) {
			return nil, nil, no
		}
	}
	if value != nil && (len(sel.Items) != 1 || sel.Items[0].Star) {
		return nil, nil, posErr(pos, "Subquery of IN must return exactly one column")
	}
	_, isc, err := v.planFrom(sel.From, b.env.plain())
	if err != nil {
		return nil, nil, err
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
			return nil, nil, no
		}
		if innerOnly(cj) {
			local = append(local, cj)
			continue
		}
		bin, ok := cj.(*ast.Binary)
		if !ok || bin.Op != "=" {
			return nil, nil, no
		}
		switch {
		case innerOnly(bin.Left) && outerOnly(bin.Right):
			innerKeys, outerKeys = append(innerKeys, bin.Left), append(outerKeys, bin.Right)
		case innerOnly(bin.Right) && outerOnly(bin.Left):
			innerKeys, outerKeys = append(innerKeys, bin.Right), append(outerKeys, bin.Left)
		default:
			return nil, nil, no
		}
	}
	if len(innerKeys) == 0 {
		// correlated only in the select list: not a plain key lookup
		return nil, nil, no
	}
	if value != nil && !innerOnly(sel.Items[0].Expr) {
		return nil, nil, no
	}
	syn := &ast.Select{Pos: sel.Pos, From: sel.From}
	for i, k := range innerKeys {
		syn.Items = append(syn.Items, ast.SelectItem{Pos: k.Position(), Expr: k, Alias: fmt.Sprintf("$k%d", i)})
	}
	if value != nil {
		item := sel.Items[0].Expr
		syn.Items = append(syn.Items, ast.SelectItem{Pos: item.Position(), Expr: item, Alias: "$v"})
	}
	for _, l := range local {
		if syn.Where == nil {
			syn.Where = l
		} else {
			syn.Where = &ast.Binary{Pos: l.Position(), Op: "AND", Left: syn.Where, Right: l}
		}
	}
	r, err := v.planSelect(syn, nil, nil, b.env.plain())
	if err != nil {
		return nil, nil, err
	}
	return r, outerKeys, nil
}
