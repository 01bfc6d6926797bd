package validate

import (
	"fmt"
	"strings"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/logical"
)

// outerRef is a reference to a column of an enclosing query, produced
// while checking whether a subquery is correlated. It never reaches a
// finished plan: correlated subqueries are re-planned without it.
type outerRef struct {
	depth int
	idx   int
	name  string
	t     types.Type
}

func (e *outerRef) Type() types.Type                         { return e.t }
func (e *outerRef) String() string                           { return fmt.Sprintf("$cor%d.%s", e.depth, e.name) }
func (e *outerRef) Children() []logical.Expr                 { return nil }
func (e *outerRef) WithChildren([]logical.Expr) logical.Expr { return e }

// relHolder is the relation an expression is evaluated against; scalar
// subqueries join their single value onto it (appending a column).
type relHolder struct {
	node logical.Node
}

// binder converts AST expressions into typed logical expressions over a
// scope.
type binder struct {
	v   *Validator
	sc  *scope
	env *env
	rel *relHolder
	agg *aggCtx
	// clause names the clause being bound, for errors on aggregates.
	clause string
	// inAggArg is set while binding the arguments of an aggregate call.
	inAggArg bool
	// over collects OVER calls (over.go); nil where they are not allowed.
	over *overCtx
	// match binds MEASURES and DEFINE of MATCH_RECOGNIZE (match.go).
	match *matchCtx
}

func identText(parts []string) string { return strings.Join(parts, ".") }

// coerce converts e to t (keeping e's nullability) with a Cast, or types a
// NULL literal.
func coerce(e logical.Expr, t types.Type) logical.Expr {
	if t.Kind == types.Null {
		return e
	}
	et := e.Type()
	target := t.WithNullable(et.Nullable())
	if et.Equal(target) {
		return e
	}
	if l, ok := e.(*logical.Literal); ok && l.Value == nil {
		return &logical.Literal{Value: nil, T: t.WithNullable(true)}
	}
	return &logical.Cast{Arg: e, T: target}
}

// family names a type as Calcite's "No match found" message does.
func family(t types.Type) string {
	switch {
	case t.IsNumeric():
		return "NUMERIC"
	case t.IsString():
		return "CHARACTER"
	case t.IsBinary():
		return "BINARY"
	}
	switch t.Kind {
	case types.Boolean:
		return "BOOLEAN"
	case types.Date:
		return "DATE"
	case types.Time:
		return "TIME"
	case types.Timestamp, types.TimestampLTZ:
		return "TIMESTAMP"
	case types.IntervalDayTime:
		return "INTERVAL_DAY_TIME"
	case types.IntervalYearMonth:
		return "INTERVAL_YEAR_MONTH"
	case types.Array:
		return "ARRAY"
	case types.Map:
		return "MAP"
	case types.Row:
		return "ROW"
	case types.Null:
		return "NULL"
	}
	return "ANY"
}

func noMatch(pos ast.Pos, written string, args []logical.Expr) error {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = "<" + family(a.Type()) + ">"
	}
	return rangeErr(pos, len(written), "No match found for function signature %s(%s)", written, strings.Join(parts, ", "))
}

// noMatchCall is noMatch for a written call: the error spans the call up
// to its closing parenthesis, as Calcite's does.
func noMatchCall(x *ast.FunctionCall, written string, args []logical.Expr) error {
	err := noMatch(x.Pos, written, args)
	if e, ok := err.(*Error); ok && x.End.Line > 0 {
		e.EndLine, e.EndCol = x.End.Line, x.End.Col
	}
	return err
}

// call resolves a function by name and applies its type inference,
// inserting the casts it asks for.
func (b *binder) call(pos ast.Pos, name string, args ...logical.Expr) (logical.Expr, error) {
	def, ok := b.v.fns.Lookup(name)
	if !ok || def.Kind != function.Scalar || def.Infer == nil {
		return nil, noMatch(pos, name, args)
	}
	return b.callDef(pos, def, args)
}

// callDef applies a resolved function's type inference to its arguments,
// inserting the casts it asks for.
func (b *binder) callDef(pos ast.Pos, def *function.Definition, args []logical.Expr) (logical.Expr, error) {
	ats := make([]types.Type, len(args))
	for i, a := range args {
		ats[i] = a.Type()
	}
	res, want, err := def.Infer(ats)
	if err != nil {
		return nil, posErr(pos, "%s", err.Error())
	}
	out := make([]logical.Expr, len(args))
	for i, a := range args {
		out[i] = a
		if i < len(want) {
			out[i] = coerce(a, want[i])
		}
	}
	return refineCallType(&logical.Call{Name: def.Name, Args: out, T: res, Def: def}, ats), nil
}

func (b *binder) boolean(e ast.Expr, what string) (logical.Expr, error) {
	x, err := b.expr(e)
	if err != nil {
		return nil, err
	}
	return asBoolean(x, e.Position(), what)
}

func asBoolean(x logical.Expr, pos ast.Pos, what string) (logical.Expr, error) {
	switch x.Type().Kind {
	case types.Boolean:
		return x, nil
	case types.Null:
		return nullOf(types.BooleanT), nil
	}
	return nil, posErr(pos, "%s must be a boolean expression, but is of type %s", what, x.Type())
}

// expr binds one expression.
func (b *binder) expr(e ast.Expr) (logical.Expr, error) {
	if b.match != nil {
		if x, ok, err := b.match.bind(b, e); ok { // match.go
			return x, err
		}
	}
	if b.agg != nil && !b.inAggArg {
		if fc, ok := e.(*ast.FunctionCall); ok && isGroupingFunc(fc) {
			return b.groupingCall(fc) // grouping_sets.go
		}
		if fc, ok := e.(*ast.FunctionCall); ok && isAggCall(fc) {
			return b.aggCall(fc)
		}
		if !containsAgg(e) && !containsSubquery(e) {
			if x, err := b.agg.src.expr(e); err == nil {
				if i, ok := b.agg.groupIndex(x); ok {
					return &logical.ColumnRef{Index: i, Name: b.agg.groupNames[i], T: b.agg.keyType(i, x.Type())}, nil
				}
				if isConstant(x) {
					return x, nil
				}
			}
		}
	}
	switch x := e.(type) {
	case *ast.Identifier:
		return b.ident(x)
	case *ast.Literal:
		return b.v.bindLiteral(x, false)
	case *ast.IntervalLit:
		return b.v.bindInterval(x)
	case *ast.Symbol:
		return &logical.Literal{Value: x.Name, T: notNull(types.CharOf(len(x.Name)))}, nil
	case *ast.Unary:
		return b.unary(x)
	case *ast.Binary:
		return b.binary(x)
	case *ast.Is:
		arg, err := b.expr(x.Expr)
		if err != nil {
			return nil, err
		}
		test := x.Test
		if test == "UNKNOWN" {
			if _, err := asBoolean(arg, x.Pos, "Operand of IS UNKNOWN"); err != nil {
				return nil, err
			}
			test = "NULL"
		}
		name := "IS "
		if x.Not {
			name += "NOT "
		}
		return b.call(x.Pos, name+test, arg)
	case *ast.IsDistinctFrom:
		l, err := b.expr(x.Left)
		if err != nil {
			return nil, err
		}
		r, err := b.expr(x.Right)
		if err != nil {
			return nil, err
		}
		name := "IS DISTINCT FROM"
		if x.Not {
			name = "IS NOT DISTINCT FROM"
		}
		return b.call(x.Pos, name, l, r)
	case *ast.Between:
		return b.between(x)
	case *ast.Like:
		args := []ast.Expr{x.Expr, x.Pattern}
		if x.Escape != nil {
			args = append(args, x.Escape)
		}
		bound, err := b.exprs(args)
		if err != nil {
			return nil, err
		}
		out, err := b.call(x.Pos, strings.ToUpper(x.Op), bound...)
		if err != nil {
			return nil, err
		}
		return b.not(x.Pos, out, x.Not)
	case *ast.In:
		return b.inList(x)
	case *ast.InSubquery:
		return b.inSubqueryValue(x)
	case *ast.Exists:
		return b.existsValue(x)
	case *ast.ScalarSubquery:
		return b.scalarSubquery(x)
	case *ast.Case:
		return b.caseExpr(x)
	case *ast.Cast:
		return b.cast(x)
	case *ast.FunctionCall:
		return b.funcCall(x)
	case *ast.Row:
		items, err := b.exprs(x.Items)
		if err != nil {
			return nil, err
		}
		c, err := b.call(x.Pos, "$ROW", items...)
		if err != nil {
			return nil, err
		}
		fields := make([]types.Field, len(items))
		for i, it := range c.(*logical.Call).Args {
			fields[i] = types.Field{Name: fmt.Sprintf("EXPR$%d", i), Type: it.Type()}
		}
		c.(*logical.Call).T = notNull(types.RowOf(fields...))
		return c, nil
	case *ast.Array:
		items, err := b.exprs(x.Items)
		if err != nil {
			return nil, err
		}
		if len(items) == 0 {
			return nil, posErr(x.Pos, "Require at least 1 argument")
		}
		ct, err := commonOf(x.Pos, items, "ARRAY")
		if err != nil {
			return nil, err
		}
		for i := range items {
			items[i] = coerce(items[i], ct)
		}
		c, err := b.call(x.Pos, "$ARRAY", items...)
		if err != nil {
			return nil, err
		}
		c.(*logical.Call).T = notNull(types.ArrayOf(ct))
		return c, nil
	case *ast.Map:
		items, err := b.exprs(x.Items)
		if err != nil {
			return nil, err
		}
		if len(items) == 0 || len(items)%2 != 0 {
			return nil, posErr(x.Pos, "Map requires an even number of arguments, at least 2")
		}
		var ks, vs []logical.Expr
		for i := 0; i < len(items); i += 2 {
			ks = append(ks, items[i])
			vs = append(vs, items[i+1])
		}
		kt, err := commonOf(x.Pos, ks, "MAP")
		if err != nil {
			return nil, err
		}
		vt, err := commonOf(x.Pos, vs, "MAP")
		if err != nil {
			return nil, err
		}
		for i := 0; i < len(items); i += 2 {
			items[i] = coerce(items[i], kt)
			items[i+1] = coerce(items[i+1], vt)
		}
		c, err := b.call(x.Pos, "$MAP", items...)
		if err != nil {
			return nil, err
		}
		c.(*logical.Call).T = notNull(types.MapOf(kt, vt))
		return c, nil
	case *ast.Index:
		base, err := b.expr(x.Expr)
		if err != nil {
			return nil, err
		}
		idx, err := b.expr(x.Index)
		if err != nil {
			return nil, err
		}
		return b.call(x.Pos, "$ITEM", base, idx)
	case *ast.FieldAccess:
		base, err := b.expr(x.Expr)
		if err != nil {
			return nil, err
		}
		return fieldAccess(x.Pos, base, x.Field)
	case *ast.JSONCall:
		return b.jsonCall(x) // json.go
	case *ast.GroupingSets:
		return nil, unsupported("GROUPING SETS, ROLLUP and CUBE")
	case *ast.TableArg, *ast.Descriptor, *ast.NamedArg:
		return nil, unsupported("table arguments, DESCRIPTOR and named arguments outside table functions")
	}
	return nil, posErr(e.Position(), "unsupported expression %T", e)
}

func (b *binder) exprs(es []ast.Expr) ([]logical.Expr, error) {
	out := make([]logical.Expr, len(es))
	for i, e := range es {
		x, err := b.expr(e)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return out, nil
}

func isConstant(x logical.Expr) bool {
	ok := true
	logical.Walk(x, func(e logical.Expr) bool {
		switch e.(type) {
		case *logical.ColumnRef, *outerRef:
			ok = false
		}
		return ok
	})
	return ok
}

func commonOf(pos ast.Pos, es []logical.Expr, what string) (types.Type, error) {
	ts := make([]types.Type, len(es))
	for i, e := range es {
		ts[i] = e.Type()
	}
	t, ok := function.CommonType(ts...)
	if !ok {
		parts := make([]string, len(ts))
		for i, t := range ts {
			parts[i] = t.String()
		}
		return types.Type{}, posErr(pos, "Parameters must be of the same type in %s: %s", what, strings.Join(parts, ", "))
	}
	return t, nil
}

func fieldAccess(pos ast.Pos, base logical.Expr, field string) (logical.Expr, error) {
	bt := base.Type()
	if bt.Kind != types.Row {
		return nil, posErr(pos, "Column '%s' not found in any table", field)
	}
	for i, f := range bt.Fields {
		if f.Name == field {
			t := f.Type
			if bt.Nullable() {
				t = t.WithNullable(true)
			}
			return logical.NewCall(function.OpField, t, base, &logical.Literal{Value: int32(i), T: notNull(types.IntT)}), nil
		}
	}
	return nil, rangeErr(pos, len(field), "Unknown field '%s'", field)
}

func (b *binder) ident(x *ast.Identifier) (logical.Expr, error) {
	text := identText(x.Parts)
	if len(x.Parts) == 0 {
		return nil, posErr(x.Pos, "empty identifier")
	}
	if b.agg != nil && !b.inAggArg {
		return nil, rangeErr(x.Pos, len(text), "Expression '%s' is not being grouped", text)
	}
	if b.sc == nil {
		return nil, rangeErr(x.Pos, len(text), "Column '%s' not found in any table", text)
	}
	r, st := b.sc.lookup(x.Parts)
	switch st {
	case lookupAmbiguous:
		return nil, rangeErr(x.Pos, len(text), "Column '%s' is ambiguous", x.Parts[len(x.Parts)-1])
	case lookupNoTable:
		return nil, withHint(rangeErr(x.Pos, len(x.Parts[0]), "Table '%s' not found", x.Parts[0]),
			DidYouMean(x.Parts[0], b.sc.tableNames()))
	case lookupNotFound:
		if len(x.Parts) >= 2 && b.sc.hasTable(x.Parts[0]) {
			return nil, withHint(rangeErr(x.Pos, len(text), "Column '%s' not found in table '%s'", x.Parts[1], x.Parts[0]),
				DidYouMean(x.Parts[1], b.sc.columnNames(x.Parts[0])))
		}
		return nil, withHint(rangeErr(x.Pos, len(text), "Column '%s' not found in any table", text),
			DidYouMean(x.Parts[len(x.Parts)-1], b.sc.columnNames("")))
	}
	var out logical.Expr
	if r.depth == 0 {
		out = &logical.ColumnRef{Index: r.e.idx, Name: r.e.name, T: r.e.t}
	} else {
		out = &outerRef{depth: r.depth, idx: r.e.idx, name: r.e.name, t: r.e.t}
	}
	for _, f := range r.rest {
		var err error
		out, err = fieldAccess(x.Pos, out, f)
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (b *binder) not(pos ast.Pos, x logical.Expr, neg bool) (logical.Expr, error) {
	if !neg {
		return x, nil
	}
	return b.call(pos, "NOT", x)
}

func isNumLit(e ast.Expr) bool {
	l, ok := e.(*ast.Literal)
	return ok && (l.Kind == ast.IntegerLit || l.Kind == ast.DecimalLit || l.Kind == ast.ApproxLit)
}

func (b *binder) unary(x *ast.Unary) (logical.Expr, error) {
	switch x.Op {
	case "-":
		if isNumLit(x.Expr) {
			return b.v.bindLiteral(x.Expr.(*ast.Literal), true)
		}
		if il, ok := x.Expr.(*ast.IntervalLit); ok {
			c := *il
			c.Negative = !c.Negative
			return b.v.bindInterval(&c)
		}
		a, err := b.expr(x.Expr)
		if err != nil {
			return nil, err
		}
		return b.call(x.Pos, "NEGATE", a)
	case "+":
		return b.expr(x.Expr)
	case "NOT":
		a, err := b.expr(x.Expr)
		if err != nil {
			return nil, err
		}
		return b.call(x.Pos, "NOT", a)
	}
	return nil, posErr(x.Pos, "unknown operator %s", x.Op)
}

var binaryNames = map[string]string{"%": "MOD", "||": "CONCAT", "!=": "<>"}

func (b *binder) binary(x *ast.Binary) (logical.Expr, error) {
	if x.Op == "OVERLAPS" {
		return b.overlaps(x) // overlaps.go
	}
	l, err := b.expr(x.Left)
	if err != nil {
		return nil, err
	}
	r, err := b.expr(x.Right)
	if err != nil {
		return nil, err
	}
	name := strings.ToUpper(x.Op)
	if n, ok := binaryNames[name]; ok {
		name = n
	}
	return b.call(x.Pos, name, l, r)
}

func (b *binder) between(x *ast.Between) (logical.Expr, error) {
	v, err := b.expr(x.Expr)
	if err != nil {
		return nil, err
	}
	lo, err := b.expr(x.Low)
	if err != nil {
		return nil, err
	}
	hi, err := b.expr(x.High)
	if err != nil {
		return nil, err
	}
	// The three operands are coerced together, as Calcite's
	// betweenCoercion does: 'a' BETWEEN TIME '…' AND '' compares TIMEs on
	// both sides, not a TIME on one and strings on the other (which made
	// the result depend on which side constant folding reached first).
	if ct, ok := function.ComparisonType(v.Type(), lo.Type(), hi.Type()); ok && ct.Kind != types.Null {
		v, lo, hi = coerce(v, ct), coerce(lo, ct), coerce(hi, ct)
	}
	rng := func(lo, hi logical.Expr) (logical.Expr, error) {
		ge, err := b.call(x.Pos, ">=", v, lo)
		if err != nil {
			return nil, err
		}
		le, err := b.call(x.Pos, "<=", v, hi)
		if err != nil {
			return nil, err
		}
		return b.call(x.Pos, "AND", ge, le)
	}
	out, err := rng(lo, hi)
	if err != nil {
		return nil, err
	}
	if x.Symmetric {
		rev, err := rng(hi, lo)
		if err != nil {
			return nil, err
		}
		if out, err = b.call(x.Pos, "OR", out, rev); err != nil {
			return nil, err
		}
	}
	return b.not(x.Pos, out, x.Not)
}

func (b *binder) inList(x *ast.In) (logical.Expr, error) {
	v, err := b.expr(x.Expr)
	if err != nil {
		return nil, err
	}
	items, err := b.exprs(x.List)
	if err != nil {
		return nil, err
	}
	all := append([]logical.Expr{v}, items...)
	ts := make([]types.Type, len(all))
	for i, a := range all {
		ts[i] = a.Type()
	}
	ct, ok := function.CommonType(ts...)
	if !ok {
		return nil, posErr(x.Pos, "Values passed to IN operator must have compatible types")
	}
	for i := range all {
		all[i] = coerce(all[i], ct)
	}
	out, err := b.call(x.Pos, "IN", all...)
	if err != nil {
		return nil, err
	}
	return b.not(x.Pos, out, x.Not)
}

func (b *binder) caseExpr(x *ast.Case) (logical.Expr, error) {
	var operand logical.Expr
	if x.Operand != nil {
		var err error
		if operand, err = b.expr(x.Operand); err != nil {
			return nil, err
		}
	}
	whens := make([]logical.When, len(x.Whens))
	var results []logical.Expr
	for i, w := range x.Whens {
		c, err := b.expr(w.Cond)
		if err != nil {
			return nil, err
		}
		if operand != nil {
			if c, err = b.call(w.Cond.Position(), "=", operand, c); err != nil {
				return nil, err
			}
		}
		if c, err = asBoolean(c, w.Cond.Position(), "WHEN condition"); err != nil {
			return nil, err
		}
		r, err := b.expr(w.Result)
		if err != nil {
			return nil, err
		}
		whens[i] = logical.When{Cond: c, Then: r}
		results = append(results, r)
	}
	var els logical.Expr
	if x.Else != nil {
		var err error
		if els, err = b.expr(x.Else); err != nil {
			return nil, err
		}
		results = append(results, els)
	}
	ts := make([]types.Type, len(results))
	allNull := true
	for i, r := range results {
		ts[i] = r.Type()
		if ts[i].Kind != types.Null {
			allNull = false
		}
	}
	if allNull {
		return nil, posErr(x.Pos, "ELSE clause or at least one THEN clause must be non-NULL")
	}
	ct, ok := function.CommonType(ts...)
	if !ok {
		return nil, posErr(x.Pos, "Illegal mixing of types in CASE or COALESCE statement")
	}
	nullable := els == nil
	for i := range whens {
		whens[i].Then = coerce(whens[i].Then, ct)
		nullable = nullable || whens[i].Then.Type().Nullable()
	}
	if els != nil {
		els = coerce(els, ct)
		nullable = nullable || els.Type().Nullable()
	}
	return &logical.Case{Whens: whens, Else: els, T: ct.WithNullable(nullable)}, nil
}

func (b *binder) cast(x *ast.Cast) (logical.Expr, error) {
	arg, err := b.expr(x.Expr)
	if err != nil {
		return nil, err
	}
	t, err := ResolveType(x.Type)
	if err != nil {
		return nil, posErr(x.Type.Pos, "%s", err.Error())
	}
	at := arg.Type()
	if at.Kind == types.Null {
		return &logical.Literal{Value: nil, T: t.WithNullable(true)}, nil
	}
	if !function.CanCast(at, t) {
		return nil, posErr(x.Pos, "Cast function cannot convert value of type %s to type %s", at, t)
	}
	t = t.WithNullable(at.Nullable() || x.Try)
	return &logical.Cast{Arg: arg, T: t, Try: x.Try}, nil
}

func isAggCall(fc *ast.FunctionCall) bool {
	return fc.Over == nil && fc.OverName == "" && (len(fc.Name.Parts) == 1 && function.IsAggregate(fc.Name.Parts[0]) && !isShadowedAgg(fc) || isUserAgg(fc))
}

func (b *binder) funcCall(x *ast.FunctionCall) (logical.Expr, error) {
	if x.Over != nil || x.OverName != "" {
		return b.overCall(x) // over.go
	}
	if e, ok, err := b.currentWatermark(x); ok { // window.go
		return e, err
	}
	if len(x.Name.Parts) != 1 && b.v.opts.Functions == nil {
		return nil, unsupported("catalog functions (%s)", x.Name.String())
	}
	written := x.Name.Parts[len(x.Name.Parts)-1]
	if isGroupingFunc(x) {
		return b.groupingCall(x) // grouping_sets.go
	}
	if isAggCall(x) {
		switch {
		case b.inAggArg:
			return nil, posErr(x.Pos, "Aggregate expressions cannot be nested")
		case b.clause != "":
			return nil, posErr(x.Pos, "Aggregate expression is illegal in %s clause", b.clause)
		}
		return nil, posErr(x.Pos, "Aggregate expression is illegal here")
	}
	if x.Star || x.Distinct || x.Filter != nil {
		return nil, posErr(x.Pos, "DISTINCT/ALL/FILTER/* not allowed with %s function", strings.ToUpper(written))
	}
	if b.agg != nil && !b.inAggArg && !b.functionExists(x, written) {
		// Calcite derives every type before it checks grouping, so an
		// unknown function is reported as such even when its arguments
		// are not grouped: bind it where the columns are (the input) and
		// fail there with "No match found for function signature".
		return b.agg.src.funcCall(x)
	}
	args, err := b.exprs(x.Args)
	if err != nil {
		return nil, err
	}
	if b.v.opts.Functions != nil {
		return b.resolvedCall(x, written, args)
	}
	upper := strings.ToUpper(written)
	if _, ok := b.v.fns.Lookup(upper); !ok && upper == "PROCTIME" && len(args) == 0 {
		// a processing-time attribute reads the wall clock in batch mode
		if _, ok := b.v.fns.Lookup("CURRENT_TIMESTAMP"); ok {
			upper = "CURRENT_TIMESTAMP"
		}
	}
	if def, ok := b.v.fns.Lookup(upper); !ok || def.Kind != function.Scalar {
		return nil, withHint(noMatchCall(x, written, args), b.functionHint(written))
	}
	e, err := b.call(x.Pos, upper, args...)
	if err != nil || upper != "CONCAT" {
		return e, err
	}
	return concatFunction(x.Pos, e, args) // functions.go
}

// functionExists reports whether a function call's name resolves to any
// function, whatever its arguments.
func (b *binder) functionExists(x *ast.FunctionCall, written string) bool {
	if strings.EqualFold(written, "PROCTIME") && len(x.Name.Parts) == 1 {
		return true // the processing-time attribute (see funcCall)
	}
	if b.v.opts.Functions != nil {
		def, err := b.v.opts.Functions.Resolve(x.Name.Parts)
		return err != nil || def != nil // a resolution error is reported later
	}
	_, ok := b.v.fns.Lookup(strings.ToUpper(written))
	return ok
}

// functionHint suggests known function names close to an unknown one.
func (b *binder) functionHint(written string) string {
	names := b.v.fns.Names()
	if l, ok := b.v.opts.Functions.(interface {
		Functions(catalog, database string) ([]string, error)
	}); ok {
		cat, db := b.v.cat.Current()
		if more, err := l.Functions(cat, db); err == nil {
			names = append(names, more...)
		}
	}
	var out []string
	for _, n := range names {
		if !strings.HasPrefix(n, "$") {
			out = append(out, n)
		}
	}
	return DidYouMean(written, out)
}

// walkAST visits e and its sub-expressions (not descending into
// subqueries); fn returns false to skip children.
func walkAST(e ast.Expr, fn func(ast.Expr) bool) {
	if e == nil || !fn(e) {
		return
	}
	var ch []ast.Expr
	switch x := e.(type) {
	case *ast.Unary:
		ch = []ast.Expr{x.Expr}
	case *ast.Binary:
		ch = []ast.Expr{x.Left, x.Right}
	case *ast.Is:
		ch = []ast.Expr{x.Expr}
	case *ast.IsDistinctFrom:
		ch = []ast.Expr{x.Left, x.Right}
	case *ast.Between:
		ch = []ast.Expr{x.Expr, x.Low, x.High}
	case *ast.Like:
		ch = []ast.Expr{x.Expr, x.Pattern, x.Escape}
	case *ast.In:
		ch = append([]ast.Expr{x.Expr}, x.List...)
	case *ast.InSubquery:
		ch = []ast.Expr{x.Expr}
	case *ast.Case:
		ch = []ast.Expr{x.Operand, x.Else}
		for _, w := range x.Whens {
			ch = append(ch, w.Cond, w.Result)
		}
	case *ast.Cast:
		ch = []ast.Expr{x.Expr}
	case *ast.FunctionCall:
		ch = append(append(ch, x.Args...), x.Filter)
	case *ast.Row:
		ch = x.Items
	case *ast.Array:
		ch = x.Items
	case *ast.Map:
		ch = x.Items
	case *ast.Index:
		ch = []ast.Expr{x.Expr, x.Index}
	case *ast.FieldAccess:
		ch = []ast.Expr{x.Expr}
	case *ast.NamedArg:
		ch = []ast.Expr{x.Value}
	}
	for _, c := range ch {
		walkAST(c, fn)
	}
}

func containsAgg(e ast.Expr) bool {
	found := false
	walkAST(e, func(x ast.Expr) bool {
		if fc, ok := x.(*ast.FunctionCall); ok && (isAggCall(fc) || isGroupingFunc(fc)) {
			found = true
		}
		return !found
	})
	return found
}

func containsSubquery(e ast.Expr) bool {
	found := false
	walkAST(e, func(x ast.Expr) bool {
		switch x.(type) {
		case *ast.InSubquery, *ast.Exists, *ast.ScalarSubquery:
			found = true
		}
		return !found
	})
	return found
}
