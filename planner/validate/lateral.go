package validate

import (
	"fmt"
	"strings"
	"sync"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/logical"
)

// This file binds calls of user-defined table functions in FROM
// (LATERAL TABLE(f(x)), Flink's correlate) and recognises calls of
// user-defined aggregate functions.

// lookupFunction resolves a function name through Options.Functions (or the
// registry when there is no resolver). It returns nil when nothing
// matches.
func (v *Validator) lookupFunction(parts []string) (*function.Definition, error) {
	if v.opts.Functions != nil {
		return v.opts.Functions.Resolve(parts)
	}
	if len(parts) != 1 {
		return nil, nil
	}
	d, ok := v.fns.Lookup(parts[0])
	if !ok {
		return nil, nil
	}
	return d, nil
}

// tableFunctionCall binds the call of a table function whose arguments
// read the columns of sc. handled is false when the call does not name a
// user-defined table function (window TVFs and the like are left to the
// caller).
func (v *Validator) tableFunctionCall(x *ast.TableFunctionRef, sc *scope, e *env) (scan *logical.TableFunctionScan, handled bool, err error) {
	fc := x.Call
	if fc == nil || len(fc.Name.Parts) == 0 {
		return nil, false, nil
	}
	def, err := v.lookupFunction(fc.Name.Parts)
	if err != nil {
		return nil, true, err
	}
	written := fc.Name.Parts[len(fc.Name.Parts)-1]
	if def == nil || def.Kind != function.Table {
		switch strings.ToUpper(written) {
		case "TUMBLE", "HOP", "CUMULATE", "SESSION":
			return nil, false, nil // window TVFs
		}
	}
	for _, a := range fc.Args {
		switch a.(type) {
		case *ast.TableArg, *ast.Descriptor, *ast.NamedArg:
			return nil, false, nil // polymorphic table functions
		}
		if containsSubquery(a) {
			return nil, true, unsupported("subqueries in the arguments of a table function")
		}
	}
	b := &binder{v: v, sc: sc, env: e, clause: "FROM"}
	args, err := b.exprs(fc.Args)
	if err != nil {
		return nil, true, err
	}
	if def == nil || def.Infer == nil {
		return nil, true, noMatch(fc.Pos, written, args)
	}
	if def.Kind != function.Table {
		return nil, true, posErr(fc.Pos, "Function '%s' is not a table function; use it in an expression, not in LATERAL TABLE(…)", written)
	}
	if fc.Distinct || fc.Star || fc.Filter != nil || fc.Over != nil || fc.OverName != "" {
		return nil, true, posErr(fc.Pos, "DISTINCT/ALL/FILTER/*/OVER not allowed with table function %s", written)
	}
	call, err := b.callDef(fc.Pos, def, args)
	if err != nil {
		return nil, true, err
	}
	c, ok := call.(*logical.Call)
	if !ok || c.T.Kind != types.Row || len(c.T.Fields) == 0 {
		return nil, true, posErr(fc.Pos, "table function '%s' must return a ROW type of its columns", written)
	}
	out := make(types.Schema, len(c.T.Fields))
	for i, f := range c.T.Fields {
		out[i] = types.Field{Name: f.Name, Type: f.Type}
	}
	if len(x.ColumnAliases) > 0 {
		if len(x.ColumnAliases) != len(out) {
			cols := make([]string, len(out))
			for i, f := range out {
				cols[i] = "'" + f.Name + "'"
			}
			al := make([]string, len(x.ColumnAliases))
			for i, a := range x.ColumnAliases {
				al[i] = "'" + a + "'"
			}
			return nil, true, posErr(x.Pos, "List of column aliases must have same degree as table; table has %d columns (%s), whereas alias list has %d columns", len(out), strings.Join(cols, ", "), len(x.ColumnAliases))
		}
		for i, a := range x.ColumnAliases {
			out[i].Name = a
		}
	}
	return &logical.TableFunctionScan{Call: c, Display: strings.Join(fc.Name.Parts, "."), Out: out}, true, nil
}

// tableFunctionAlias is the table alias of a table function's columns.
func tableFunctionAlias(x *ast.TableFunctionRef) string {
	if x.Alias != "" {
		return x.Alias
	}
	if x.Call != nil && len(x.Call.Name.Parts) > 0 {
		return x.Call.Name.Parts[len(x.Call.Name.Parts)-1]
	}
	return ""
}

// planLateral plans left JOIN LATERAL TABLE(f(…)): a Correlate. handled is
// false when the right side is not a user-defined table function.
func (v *Validator) planLateral(j *ast.Join, left logical.Node, ls *scope, x *ast.TableFunctionRef, e *env) (logical.Node, *scope, bool, error) {
	if j.Natural || len(j.Using) > 0 {
		return nil, nil, true, posErr(j.Pos, "NATURAL and USING are not allowed with a table function")
	}
	var kind logical.JoinKind
	switch j.Kind {
	case ast.InnerJoin, ast.CrossJoin:
		kind = logical.InnerJoin
	case ast.LeftJoin:
		kind = logical.LeftJoin
	default:
		return nil, nil, true, unsupported("%s JOIN with a table function (only inner and LEFT joins)", j.Kind)
	}
	scan, handled, err := v.tableFunctionCall(x, ls, e)
	if !handled || err != nil {
		return nil, nil, handled, err
	}
	n, sc, err := v.correlate(j, kind, left, ls, scan, tableFunctionAlias(x), e)
	return n, sc, true, err
}

// correlate plans left JOIN scan, a Correlate whose table function reads
// the columns of left (LATERAL TABLE and UNNEST).
func (v *Validator) correlate(j *ast.Join, kind logical.JoinKind, left logical.Node, ls *scope, scan *logical.TableFunctionScan, alias string, e *env) (logical.Node, *scope, error) {
	lo := left.Schema()
	scan.Correlated = lo.Names()
	out := make(types.Schema, 0, len(lo)+len(scan.Out))
	out = append(out, lo...)
	for _, f := range scan.Out {
		if kind == logical.LeftJoin {
			f.Type = f.Type.WithNullable(true)
		}
		out = append(out, f)
	}
	fnScope := schemaEntries(out[len(lo):], alias)
	ents := append(retype(ls.entries(), out), shifted(fnScope, len(lo))...)
	sc := newScope(ents)
	var n logical.Node = &logical.Correlate{Left: left, Right: scan, Kind: kind, Out: out}
	if j.On != nil {
		if containsSubquery(j.On) {
			return nil, nil, unsupported("subqueries in ON conditions")
		}
		b := &binder{v: v, sc: sc, env: e, clause: "ON"}
		cond, err := b.boolean(j.On, "ON clause")
		if err != nil {
			return nil, nil, err
		}
		if !isTrueLiteral(cond) {
			if kind == logical.LeftJoin {
				n.(*logical.Correlate).Cond = cond
			} else {
				n = &logical.Filter{Input: n, Cond: cond}
			}
		}
	} else if j.Kind != ast.CrossJoin {
		return nil, nil, posErr(j.Pos, "INNER, LEFT, RIGHT or FULL join requires a condition (NATURAL keyword or ON or USING clause)")
	}
	return n, sc, nil
}

func isTrueLiteral(e logical.Expr) bool {
	l, ok := e.(*logical.Literal)
	if !ok {
		return false
	}
	b, ok := l.Value.(bool)
	return ok && b
}

// planTableFunction plans TABLE(f(…)) alone in FROM: the correlate of a
// single empty row. handled is false when the call does not name a
// user-defined table function.
func (v *Validator) planTableFunction(x *ast.TableFunctionRef, e *env) (logical.Node, *scope, bool, error) {
	scan, handled, err := v.tableFunctionCall(x, newScope(nil), e)
	if !handled || err != nil {
		return nil, nil, handled, err
	}
	n, sc := standaloneScan(scan, tableFunctionAlias(x))
	return n, sc, true, nil
}

// standaloneScan plans a table function alone in FROM: the correlate of
// a single empty row.
func standaloneScan(scan *logical.TableFunctionScan, alias string) (logical.Node, *scope) {
	zero := types.Schema{{Name: "ZERO", Type: types.IntT.WithNullable(false)}}
	one := &logical.Values{Rows: [][]logical.Expr{{&logical.Literal{Value: int32(0), T: zero[0].Type}}}, Out: zero}
	// the call reads no column: shift nothing, the dummy column is dropped
	out := append(append(types.Schema(nil), zero...), scan.Out...)
	corr := &logical.Correlate{Left: one, Right: scan, Kind: logical.InnerJoin, Out: out}
	exprs := make([]logical.Expr, len(scan.Out))
	for i, f := range scan.Out {
		exprs[i] = &logical.ColumnRef{Index: i + 1, Name: f.Name, T: f.Type}
	}
	n := &logical.Project{Input: corr, Exprs: exprs, Out: scan.Out}
	return n, newScope(schemaEntries(scan.Out, alias))
}

// userAggs holds the calls of user-defined aggregate functions of the
// SELECTs being planned (see markUserAggs), so that isAggCall, which sees
// only the syntax tree, recognises them. Keys are *ast.FunctionCall; they
// are removed when the SELECT's planning ends.
var userAggs sync.Map

// isUserAgg reports a call marked as a user-defined aggregate call.
func isUserAgg(fc *ast.FunctionCall) bool {
	_, ok := userAggs.Load(fc)
	return ok
}

// userAggDef returns the definition of a marked user-defined aggregate
// call.
func userAggDef(fc *ast.FunctionCall) (*function.Definition, bool) {
	d, ok := userAggs.Load(fc)
	if !ok {
		return nil, false
	}
	return d.(*function.Definition), true
}

// markUserAggs finds the calls of user-defined aggregate functions in the
// expressions of a SELECT (and of the subqueries inside them) and marks
// them for isAggCall. The returned function removes the marks.
func (v *Validator) markUserAggs(sel *ast.Select, orderBy []ast.OrderItem) func() {
	if v.opts.Functions == nil {
		return func() {}
	}
	var marked []*ast.FunctionCall
	var visit func(e ast.Expr)
	var visitQuery func(q ast.Query)
	visit = func(e ast.Expr) {
		walkAST(e, func(x ast.Expr) bool {
			switch c := x.(type) {
			case *ast.FunctionCall:
				if c.Over == nil && c.OverName == "" && len(c.Name.Parts) > 0 {
					builtinAgg := len(c.Name.Parts) == 1 && function.IsAggregate(c.Name.Parts[0])
					if builtinAgg && !v.shadowsBuiltin(c.Name.Parts[0]) {
						break // the built-in aggregate (fast path)
					}
					d, err := v.opts.Functions.Resolve(c.Name.Parts)
					switch {
					case err == nil && d != nil && d.Kind == function.Aggregate:
						userAggs.Store(c, d)
						marked = append(marked, c)
					case builtinAgg:
						// a user scalar or table function shadows the
						// built-in aggregate (builtins_shadow.go)
						shadowedAggs.Store(c, true)
						marked = append(marked, c)
					}
				}
			case *ast.ScalarSubquery:
				visitQuery(c.Query)
			case *ast.InSubquery:
				visitQuery(c.Query)
			case *ast.Exists:
				visitQuery(c.Query)
			}
			return true
		})
	}
	visitQuery = func(q ast.Query) {
		switch s := q.(type) {
		case *ast.Select:
			visitSelect(s, visit)
		case *ast.QueryExpr:
			visitQuery(s.Body)
		}
	}
	visitSelect(sel, visit)
	for _, o := range orderBy {
		visit(o.Expr)
	}
	return func() {
		for _, c := range marked {
			userAggs.Delete(c)
			shadowedAggs.Delete(c)
		}
	}
}

func visitSelect(s *ast.Select, visit func(ast.Expr)) {
	for _, it := range s.Items {
		if it.Expr != nil {
			visit(it.Expr)
		}
	}
	if s.Having != nil {
		visit(s.Having)
	}
	if s.Where != nil {
		visit(s.Where)
	}
	for _, g := range s.GroupBy {
		visit(g)
	}
}

// userAggCall binds a call of a user-defined aggregate function (def) and
// returns a reference to its output column of the Aggregate. The AggCall's
// Name is the function's registry key.
func (b *binder) userAggCall(fc *ast.FunctionCall, def *function.Definition) (logical.Expr, error) {
	a := b.agg
	written := strings.Join(fc.Name.Parts, ".")
	if fc.Star {
		return nil, posErr(fc.Pos, "Only COUNT accepts * as argument")
	}
	src := *a.src
	src.inAggArg = true
	args, err := src.exprs(fc.Args)
	if err != nil {
		return nil, err
	}
	ats := make([]types.Type, len(args))
	for i, x := range args {
		ats[i] = x.Type()
	}
	if def.Infer == nil {
		return nil, noMatch(fc.Pos, written, args)
	}
	t, want, err := def.Infer(ats)
	if err != nil {
		return nil, posErr(fc.Pos, "%s", err.Error())
	}
	// a user aggregate's result is NULL for an empty group (get_value of a
	// fresh accumulator may return None)
	t = t.WithNullable(true)
	idx := make([]int, len(args))
	for i, x := range args {
		if i < len(want) {
			x = coerce(x, want[i])
		}
		idx[i] = a.addPre(x)
	}
	filter := -1
	if fc.Filter != nil {
		f, err := src.expr(fc.Filter)
		if err != nil {
			return nil, err
		}
		if f, err = asBoolean(f, fc.Filter.Position(), "FILTER condition"); err != nil {
			return nil, err
		}
		filter = a.addPre(f)
	}
	call := logical.AggCall{Name: def.Name, Args: idx, Distinct: fc.Distinct, Filter: filter, T: t, User: true, Mergeable: def.Mergeable, Def: def}
	key := call.String() + ":" + t.String()
	i, ok := a.aggKeys[key]
	if !ok {
		call.Alias = fmt.Sprintf("EXPR$%d", len(a.groupKeys)+len(a.aggs))
		a.aggs = append(a.aggs, call)
		i = len(a.aggs) - 1
		a.aggKeys[key] = i
	}
	return &logical.ColumnRef{Index: len(a.groupKeys) + i, Name: a.aggs[i].Alias, T: t}, nil
}
