package validate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/logical"
)

// cteDef is one WITH entry, planned at each reference.
type cteDef struct {
	q    ast.Query
	cols []string
	env  *env
}

// env is the naming environment of a query: visible CTEs and, for a
// subquery, the enclosing query's scope.
type env struct {
	ctes   map[string]*cteDef
	parent *env
	outer  *scope
	corr   *bool
}

func (e *env) lookupCTE(name string) *cteDef {
	for x := e; x != nil; x = x.parent {
		if d, ok := x.ctes[name]; ok {
			return d
		}
	}
	return nil
}

// plain returns an environment with the same CTEs but no outer scope.
func (e *env) plain() *env {
	if e.outer == nil {
		return e
	}
	return &env{parent: e}
}

func (e *env) sub(outer *scope, corr *bool) *env {
	return &env{parent: e, outer: outer, corr: corr}
}

func (v *Validator) planQuery(q ast.Query, e *env) (logical.Node, error) {
	switch x := q.(type) {
	case *ast.Select:
		return v.planSelect(x, nil, nil, e)
	case *ast.QueryExpr:
		return v.planQueryExpr(x, e)
	case *ast.SetOp:
		return v.planSetOp(x, e)
	case *ast.Values:
		return v.planValues(x)
	case *ast.With:
		ne := &env{parent: e, ctes: map[string]*cteDef{}, outer: e.outer, corr: e.corr}
		for _, c := range x.CTEs {
			// each CTE sees the earlier ones
			defEnv := &env{parent: e.plain(), ctes: copyCTEs(ne.ctes)}
			ne.ctes[c.Name] = &cteDef{q: c.Query, cols: c.Columns, env: defEnv}
		}
		return v.planQuery(x.Body, ne)
	}
	return nil, fmt.Errorf("unsupported query %T", q)
}

func copyCTEs(m map[string]*cteDef) map[string]*cteDef {
	out := make(map[string]*cteDef, len(m))
	for k, d := range m {
		out[k] = d
	}
	return out
}

func (v *Validator) planQueryExpr(qe *ast.QueryExpr, e *env) (logical.Node, error) {
	limit, err := limitFunc(qe)
	if err != nil {
		return nil, err
	}
	if sel, ok := qe.Body.(*ast.Select); ok {
		return v.planSelect(sel, qe.OrderBy, limit, e)
	}
	if w, ok := qe.Body.(*ast.With); ok && len(qe.OrderBy) == 0 {
		n, err := v.planQuery(w, e)
		if err != nil {
			return nil, err
		}
		return limit(n), nil
	}
	n, err := v.planQuery(qe.Body, e)
	if err != nil {
		return nil, err
	}
	if len(qe.OrderBy) == 0 {
		return limit(n), nil
	}
	s := n.Schema()
	refs := make([]logical.Expr, len(s))
	names := make([]string, len(s))
	for i, f := range s {
		refs[i] = &logical.ColumnRef{Index: i, Name: f.Name, T: f.Type}
		names[i] = f.Name
	}
	b := &binder{v: v, sc: newScope(schemaEntries(s, "")), env: e, clause: "ORDER BY"}
	keys, hidden, err := v.orderKeys(qe.OrderBy, names, refs, b.expr, false)
	if err != nil {
		return nil, err
	}
	return finishOrder(n, refs, s, hidden, keys, limit), nil
}

// finishOrder adds hidden sort columns (if any), the Sort, the limit and a
// Project dropping the hidden columns.
func finishOrder(n logical.Node, exprs []logical.Expr, out types.Schema, hidden []logical.Expr, keys []logical.SortKey, limit func(logical.Node) logical.Node) logical.Node {
	if len(hidden) > 0 {
		all := append(append([]logical.Expr(nil), exprs...), hidden...)
		s := append(types.Schema(nil), out...)
		for i, h := range hidden {
			s = append(s, types.Field{Name: fmt.Sprintf("EXPR$%d", len(out)+i), Type: h.Type()})
		}
		n = &logical.Project{Input: n, Exprs: all, Out: s}
	}
	if len(keys) > 0 {
		n = &logical.Sort{Input: n, Keys: keys}
	}
	if limit != nil {
		n = limit(n)
	}
	if len(hidden) > 0 {
		refs := make([]logical.Expr, len(out))
		for i, f := range out {
			refs[i] = &logical.ColumnRef{Index: i, Name: f.Name, T: f.Type}
		}
		n = &logical.Project{Input: n, Exprs: refs, Out: out}
	}
	return n
}

func intLiteral(e ast.Expr, what string) (int64, error) {
	l, ok := e.(*ast.Literal)
	if !ok || l.Kind != ast.IntegerLit {
		return 0, unsupported("%s must be an integer literal, at line %d, column %d", what, e.Position().Line, e.Position().Col)
	}
	n, err := strconv.ParseInt(l.Text, 10, 64)
	if err != nil || n < 0 {
		return 0, posErr(l.Pos, "%s must be a non-negative integer: %s", what, l.Text)
	}
	return n, nil
}

func limitFunc(qe *ast.QueryExpr) (func(logical.Node) logical.Node, error) {
	if qe.Limit == nil && qe.Offset == nil {
		return func(n logical.Node) logical.Node { return n }, nil
	}
	fetch, offset := int64(-1), int64(0)
	var err error
	if qe.Limit != nil {
		if fetch, err = intLiteral(qe.Limit, "LIMIT/FETCH"); err != nil {
			return nil, err
		}
	}
	if qe.Offset != nil {
		if offset, err = intLiteral(qe.Offset, "OFFSET"); err != nil {
			return nil, err
		}
	}
	return func(n logical.Node) logical.Node {
		return &logical.Limit{Input: n, Offset: offset, Fetch: fetch}
	}, nil
}

// orderKeys resolves ORDER BY items against the output columns (names,
// exprs) of a query: ordinals, output aliases, expressions equal to an
// output expression, else new hidden expressions.
func (v *Validator) orderKeys(items []ast.OrderItem, names []string, exprs []logical.Expr, bind func(ast.Expr) (logical.Expr, error), distinct bool) ([]logical.SortKey, []logical.Expr, error) {
	var keys []logical.SortKey
	var hidden []logical.Expr
	for _, it := range items {
		idx := -1
		if l, ok := it.Expr.(*ast.Literal); ok && l.Kind == ast.IntegerLit {
			n, err := strconv.Atoi(l.Text)
			if err != nil || n < 1 || n > len(names) {
				return nil, nil, posErr(l.Pos, "Ordinal out of range")
			}
			idx = n - 1
		}
		if id, ok := it.Expr.(*ast.Identifier); ok && idx < 0 && len(id.Parts) == 1 {
			matches := 0
			for i, n := range names {
				if n == id.Parts[0] {
					if matches == 0 {
						idx = i
					}
					matches++
				}
			}
			if matches > 1 {
				// an ambiguous alias: resolve as an expression below
				idx = -1
			}
		}
		if idx < 0 {
			x, err := bind(it.Expr)
			if err != nil {
				return nil, nil, err
			}
			k := x.String()
			for i, e := range exprs {
				if e.String() == k {
					idx = i
					break
				}
			}
			if idx < 0 {
				for i, h := range hidden {
					if h.String() == k {
						idx = len(exprs) + i
					}
				}
			}
			if idx < 0 {
				if distinct {
					text := ast.Format(it.Expr)
					if id, ok := it.Expr.(*ast.Identifier); ok {
						text = identText(id.Parts)
					}
					return nil, nil, rangeErr(it.Expr.Position(), len(text), "Expression '%s' is not in the select clause", text)
				}
				hidden = append(hidden, x)
				idx = len(exprs) + len(hidden) - 1
			}
		}
		nf := !it.Desc
		if it.NullsFirst != nil {
			nf = *it.NullsFirst
		}
		keys = append(keys, logical.SortKey{Index: idx, Desc: it.Desc, NullsFirst: nf})
	}
	return keys, hidden, nil
}

// splitAnd splits an AST condition into its AND conjuncts.
func splitAnd(e ast.Expr) []ast.Expr {
	if e == nil {
		return nil
	}
	if b, ok := e.(*ast.Binary); ok && strings.EqualFold(b.Op, "AND") {
		return append(splitAnd(b.Left), splitAnd(b.Right)...)
	}
	return []ast.Expr{e}
}

// isSubqueryConjunct reports [NOT] IN (subquery) and [NOT] EXISTS.
func isSubqueryConjunct(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.InSubquery, *ast.Exists:
		return true
	case *ast.Unary:
		if x.Op == "NOT" {
			switch x.Expr.(type) {
			case *ast.InSubquery, *ast.Exists:
				return true
			}
		}
	}
	return false
}

// outputName derives the name of an unaliased select item.
func outputName(e ast.Expr, pos int) string {
	switch x := e.(type) {
	case *ast.Identifier:
		if len(x.Parts) > 0 {
			return x.Parts[len(x.Parts)-1]
		}
	case *ast.FieldAccess:
		return x.Field
	}
	return fmt.Sprintf("EXPR$%d", pos)
}

func (v *Validator) planSelect(sel *ast.Select, order []ast.OrderItem, limit func(logical.Node) logical.Node, e *env) (logical.Node, error) {
	if len(sel.Windows) > 0 {
		return nil, unsupported("WINDOW clause")
	}
	if s, ne, ok, err := v.rewriteGroupWindow(sel, e); ok { // window_legacy.go
		if err != nil {
			return nil, err
		}
		sel, e = s, ne
	}
	defer v.markUserAggs(sel, order)() // user-defined aggregate calls (lateral.go)
	var node logical.Node
	var sc *scope
	if sel.From == nil {
		// one row with a dummy column, as Calcite plans SELECT without FROM
		zero := &logical.Literal{Value: int32(0), T: notNull(types.IntT)}
		node = &logical.Values{Rows: [][]logical.Expr{{zero}}, Out: types.Schema{{Name: "ZERO", Type: zero.T}}}
		sc = newScope(nil)
	} else {
		var err error
		if node, sc, err = v.planFrom(sel.From, e.plain()); err != nil {
			return nil, err
		}
	}
	sc.parent, sc.corr = e.outer, e.corr
	rel := &relHolder{node: node}

	// WHERE
	if sel.Where != nil {
		var preds []logical.Expr
		var subs []ast.Expr
		wb := &binder{v: v, sc: sc, env: e, rel: rel, clause: "WHERE"}
		for _, c := range splitAnd(sel.Where) {
			if isSubqueryConjunct(c) {
				subs = append(subs, c)
				continue
			}
			p, err := wb.boolean(c, "WHERE clause")
			if err != nil {
				return nil, err
			}
			preds = append(preds, p)
		}
		if len(preds) > 0 {
			rel.node = &logical.Filter{Input: rel.node, Cond: logical.And(preds...)}
		}
		for _, c := range subs {
			if err := v.subqueryConjunct(rel, sc, e, c); err != nil {
				return nil, err
			}
		}
	}

	isAgg := len(sel.GroupBy) > 0 || sel.Having != nil
	for _, it := range sel.Items {
		if it.Expr != nil && containsAgg(it.Expr) {
			isAgg = true
		}
	}
	for _, o := range order {
		if containsAgg(o.Expr) {
			isAgg = true
		}
	}

	src := &binder{v: v, sc: sc, env: e, rel: rel}
	post := src
	var actx *aggCtx
	if isAgg {
		gb := &binder{v: v, sc: sc, env: e, rel: rel, clause: "GROUP BY"}
		groups, gnames, sets, err := gb.groupBy(sel.GroupBy) // grouping_sets.go
		if err != nil {
			return nil, err
		}
		actx = newAggCtx(src, groups, gnames, groupedRows(groups, sets)) // grouping_sets.go
		actx.setGroupSets(sets)
		post = &binder{v: v, sc: sc, env: e, agg: actx}
	} else {
		post = withOver(src) // OVER calls (over.go)
	}

	// select list
	var exprs []logical.Expr
	var out types.Schema
	directAgg := map[int]string{}
	for _, it := range sel.Items {
		if it.Star {
			n := 0
			for _, en := range sc.entries() {
				if len(it.Qualifier) == 0 && en.noStar {
					continue
				}
				if len(it.Qualifier) > 0 && en.qual != it.Qualifier[len(it.Qualifier)-1] {
					continue
				}
				n++
				var x logical.Expr = &logical.ColumnRef{Index: en.idx, Name: en.name, T: en.t}
				if actx != nil {
					i, ok := actx.groupIndex(x)
					if !ok {
						return nil, rangeErr(it.Pos, 1, "Expression '%s' is not being grouped", en.name)
					}
					x = &logical.ColumnRef{Index: i, Name: en.name, T: actx.keyType(i, en.t)}
				}
				exprs = append(exprs, x)
				out = append(out, types.Field{Name: en.name, Type: x.Type()})
			}
			if n == 0 {
				if len(it.Qualifier) > 0 {
					return nil, rangeErr(it.Pos, len(identText(it.Qualifier)), "Unknown identifier '%s'", identText(it.Qualifier))
				}
				return nil, posErr(it.Pos, "SELECT * requires a FROM clause")
			}
			continue
		}
		x, err := post.expr(it.Expr)
		if err != nil {
			return nil, err
		}
		name := it.Alias
		if name == "" {
			name = outputName(it.Expr, len(exprs))
		}
		if fc, ok := it.Expr.(*ast.FunctionCall); ok && actx != nil && (isAggCall(fc) || isGroupingFunc(fc)) {
			if c, ok := x.(*logical.ColumnRef); ok {
				directAgg[c.Index] = name
			}
		}
		exprs = append(exprs, x)
		out = append(out, types.Field{Name: name, Type: x.Type()})
	}
	out = uniquify(out)

	var having logical.Expr
	if sel.Having != nil {
		hb := *post
		hb.clause = "HAVING"
		h, err := hb.boolean(sel.Having, "HAVING clause")
		if err != nil {
			return nil, err
		}
		having = h
	}

	var keys []logical.SortKey
	var hidden []logical.Expr
	if len(order) > 0 {
		ob := *post
		ob.clause = "ORDER BY"
		var err error
		keys, hidden, err = v.orderKeys(order, out.Names(), exprs, ob.expr, sel.Distinct)
		if err != nil {
			return nil, err
		}
	}

	base := rel.node
	if actx == nil {
		var err error
		if base, err = post.finishOver(base, exprs, hidden); err != nil { // over.go
			return nil, err
		}
	}
	if actx != nil {
		for i := range actx.aggs {
			if n, ok := directAgg[len(actx.groupKeys)+i]; ok {
				actx.aggs[i].Alias = n
			}
		}
		ag := actx.build(rel.node)
		for i, c := range actx.aggs {
			ag.Out[len(actx.groupKeys)+i].Name = c.Alias
		}
		ag.Out = uniquify(ag.Out)
		base = ag
		if len(actx.deferred) > 0 {
			// scalar subqueries of the select list / HAVING / ORDER BY join
			// their single value onto the aggregate's output
			// (IN / EXISTS subqueries join on a condition: deferredConds)
			starts := make([]int, len(actx.deferred))
			width := len(ag.Out)
			for j, d := range actx.deferred {
				starts[j] = width
				width += len(d.Schema())
			}
			fix := func(x logical.Expr) logical.Expr {
				if x == nil {
					return nil
				}
				return logical.Rewrite(x, func(e logical.Expr) logical.Expr {
					if r, ok := e.(*subRef); ok {
						name := actx.deferred[r.j].Schema()[r.col].Name
						return &logical.ColumnRef{Index: starts[r.j] + r.col, Name: name, T: r.t}
					}
					return e
				})
			}
			for j, d := range actx.deferred {
				var cond logical.Expr
				if j < len(actx.deferredConds) {
					cond = fix(actx.deferredConds[j])
				}
				base = &logical.Join{Left: base, Right: d, Kind: logical.LeftJoin, Cond: cond, Out: joinOut(logical.LeftJoin, base.Schema(), d.Schema())}
			}
			if having != nil {
				having = fix(having)
			}
			for i := range exprs {
				exprs[i] = fix(exprs[i])
			}
			for i := range hidden {
				hidden[i] = fix(hidden[i])
			}
		}
		if having != nil {
			base = &logical.Filter{Input: base, Cond: having}
		}
	}
	// Calcite keeps the select list's Project over a plain FROM, and drops
	// it over an Aggregate when it is the identity.
	var n logical.Node = &logical.Project{Input: base, Exprs: exprs, Out: out}
	if actx != nil {
		n = project(base, exprs, out)
	}
	if sel.Distinct {
		n = distinctOf(n)
	}
	if len(keys) == 0 && len(hidden) == 0 {
		if limit != nil {
			n = limit(n)
		}
		return n, nil
	}
	if len(hidden) > 0 {
		// hidden columns are computed by the select Project itself
		return finishOrder(base, exprs, out, hidden, keys, limit), nil
	}
	refs := make([]logical.Expr, len(out))
	for i, f := range out {
		refs[i] = &logical.ColumnRef{Index: i, Name: f.Name, T: f.Type}
	}
	return finishOrder(n, refs, out, nil, keys, limit), nil
}

// distinctOf groups by every column.
func distinctOf(n logical.Node) logical.Node {
	s := n.Schema()
	keys := make([]int, len(s))
	for i := range keys {
		keys[i] = i
	}
	return &logical.Aggregate{Input: n, GroupKeys: keys, Out: s}
}

func (v *Validator) planValues(x *ast.Values) (logical.Node, error) {
	b := &binder{v: v, sc: newScope(nil), env: &env{}, clause: "VALUES"}
	if len(x.Rows) == 0 {
		return nil, posErr(x.Pos, "VALUES needs at least one row")
	}
	width := len(x.Rows[0])
	rows := make([][]logical.Expr, len(x.Rows))
	for i, r := range x.Rows {
		if len(r) != width {
			return nil, posErr(x.Pos, "Values passed to VALUES must have the same number of columns: row %d has %d, row 1 has %d", i+1, len(r), width)
		}
		row, err := b.exprs(r)
		if err != nil {
			return nil, err
		}
		rows[i] = row
	}
	out := make(types.Schema, width)
	for c := 0; c < width; c++ {
		col := make([]logical.Expr, len(rows))
		allNull := true
		for i := range rows {
			col[i] = rows[i][c]
			if col[i].Type().Kind != types.Null {
				allNull = false
			}
		}
		if allNull {
			// typed later by the context (INSERT target) or left as NULL
			out[c] = types.Field{Name: fmt.Sprintf("EXPR$%d", c), Type: types.NullType}
			continue
		}
		t, err := commonOf(x.Pos, col, "VALUES")
		if err != nil {
			return nil, err
		}
		nullable := false
		for i := range rows {
			rows[i][c] = coerce(rows[i][c], t)
			nullable = nullable || rows[i][c].Type().Nullable()
		}
		out[c] = types.Field{Name: fmt.Sprintf("EXPR$%d", c), Type: t.WithNullable(nullable)}
	}
	return &logical.Values{Rows: rows, Out: out}, nil
}

// castTo projects n onto the given column types, adding casts where needed.
func castTo(n logical.Node, ts []types.Type, names []string) logical.Node {
	s := n.Schema()
	need := false
	exprs := make([]logical.Expr, len(s))
	out := make(types.Schema, len(s))
	for i, f := range s {
		var x logical.Expr = &logical.ColumnRef{Index: i, Name: f.Name, T: f.Type}
		x = coerce(x, ts[i])
		if _, ok := x.(*logical.ColumnRef); !ok {
			need = true
		}
		name := f.Name
		if names != nil {
			name = names[i]
			if name != f.Name {
				need = true
			}
		}
		exprs[i] = x
		out[i] = types.Field{Name: name, Type: x.Type()}
	}
	if !need {
		return n
	}
	return project(n, exprs, out)
}

// project returns Project(n, exprs) or n itself when the projection is
// the identity (same columns, names and types), as Calcite's RelBuilder.
func project(n logical.Node, exprs []logical.Expr, out types.Schema) logical.Node {
	in := n.Schema()
	if len(in) == len(exprs) {
		identity := true
		for i, e := range exprs {
			c, ok := e.(*logical.ColumnRef)
			if !ok || c.Index != i || in[i].Name != out[i].Name || !in[i].Type.Equal(out[i].Type) {
				identity = false
				break
			}
		}
		if identity {
			return n
		}
	}
	return &logical.Project{Input: n, Exprs: exprs, Out: out}
}

func (v *Validator) planSetOp(x *ast.SetOp, e *env) (logical.Node, error) {
	l, err := v.planQuery(x.Left, e)
	if err != nil {
		return nil, err
	}
	r, err := v.planQuery(x.Right, e)
	if err != nil {
		return nil, err
	}
	ls, rs := l.Schema(), r.Schema()
	op := string(x.Op)
	if len(ls) != len(rs) {
		return nil, posErr(x.Pos, "Column count mismatch in %s", op)
	}
	ts := make([]types.Type, len(ls))
	out := make(types.Schema, len(ls))
	for i := range ls {
		t, ok := function.CommonType(ls[i].Type, rs[i].Type)
		if !ok {
			return nil, posErr(x.Pos, "Type mismatch in column %d of %s", i+1, op)
		}
		ts[i] = t
		out[i] = types.Field{Name: ls[i].Name, Type: t}
	}
	l = castTo(l, ts, nil)
	r = castTo(r, ts, ls.Names())
	switch x.Op {
	case ast.Union:
		var inputs []logical.Node
		for _, in := range []logical.Node{l, r} {
			if u, ok := in.(*logical.Union); ok && u.Out.Types() != nil && sameTypes(u.Out, out) {
				inputs = append(inputs, u.Inputs...)
				continue
			}
			inputs = append(inputs, in)
		}
		var n logical.Node = &logical.Union{Inputs: inputs, Out: out}
		if !x.All {
			n = distinctOf(n)
		}
		return n, nil
	case ast.Intersect:
		return &logical.SetOp{Left: l, Right: r, Kind: logical.Intersect, All: x.All}, nil
	case ast.Except:
		return &logical.SetOp{Left: l, Right: r, Kind: logical.Except, All: x.All}, nil
	}
	return nil, posErr(x.Pos, "unknown set operator %s", op)
}

func sameTypes(a, b types.Schema) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Type.Equal(b[i].Type) {
			return false
		}
	}
	return true
}
