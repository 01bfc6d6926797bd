package validate

import (
	"strconv"
	"strings"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/logical"
)

// matchCtx binds the expressions of MEASURES and DEFINE (Calcite's
// SqlValidatorImpl for MATCH_RECOGNIZE): pattern variable references
// (A.price, a plain column for the default variable `*`), FIRST / LAST,
// PREV / NEXT, aggregates over one variable and MATCH_ROWTIME /
// MATCH_PROCTIME become logical.MatchAccess values, and the expression
// around them reads those as columns.
type matchCtx struct {
	vars  map[string]bool
	in    *scope // the input's columns
	order int    // the ORDER BY time column of the input (-1: none)
	acc   []logical.MatchAccess
	// define is set while binding a DEFINE condition.
	define bool
	// arg mode: binding the argument of an access, against the input
	// row; argVars collects the variables it references.
	arg     bool
	argVars map[string]bool
}

func (m *matchCtx) add(a logical.MatchAccess) logical.Expr {
	for i, x := range m.acc {
		if x.Kind == a.Kind && x.Var == a.Var && x.Offset == a.Offset && x.Agg == a.Agg && x.Func == a.Func &&
			((x.Arg == nil && a.Arg == nil) || (x.Arg != nil && a.Arg != nil && x.Arg.String() == a.Arg.String())) {
			return &logical.ColumnRef{Index: i, Name: "$m" + strconv.Itoa(i), T: x.T}
		}
	}
	m.acc = append(m.acc, a)
	i := len(m.acc) - 1
	return &logical.ColumnRef{Index: i, Name: "$m" + strconv.Itoa(i), T: a.T}
}

// bind is the binder hook: ok is false for expressions bound as usual.
func (m *matchCtx) bind(b *binder, e ast.Expr) (logical.Expr, bool, error) {
	switch x := e.(type) {
	case *ast.Identifier:
		if m.arg {
			parts := x.Parts
			v := ""
			if len(parts) >= 2 && m.vars[parts[0]] {
				v, parts = parts[0], parts[1:]
			}
			m.argVars[v] = true
			c := *x
			c.Parts = parts
			inner := &binder{v: b.v, sc: m.in, env: b.env, clause: b.clause}
			out, err := inner.ident(&c)
			return out, true, err
		}
		arg, v, err := m.argOf(b, x)
		if err != nil {
			return nil, true, err
		}
		return m.add(logical.MatchAccess{Kind: logical.MatchLast, Var: v, Arg: arg, T: arg.Type().WithNullable(true)}), true, nil
	case *ast.FunctionCall:
		if len(x.Name.Parts) != 1 || x.Over != nil {
			return nil, false, nil
		}
		name := strings.ToUpper(x.Name.Parts[0])
		switch name {
		case "FIRST", "LAST", "PREV", "NEXT":
			if m.arg {
				return nil, true, posErr(x.Pos, "Navigation functions (%s) cannot be nested in the argument of a pattern function", name)
			}
			if len(x.Args) < 1 || len(x.Args) > 2 {
				return nil, true, posErr(x.Pos, "Invalid number of arguments to function '%s'. Was expecting 1 or 2 arguments", name)
			}
			off := 0
			if name == "PREV" || name == "NEXT" {
				off = 1
			}
			if len(x.Args) == 2 {
				lit, ok := x.Args[1].(*ast.Literal)
				n, err := strconv.Atoi(litText(lit))
				if !ok || err != nil || n < 0 {
					return nil, true, posErr(x.Args[1].Position(), "The offset of %s must be a non-negative integer literal", name)
				}
				off = n
			}
			if (name == "PREV" || name == "NEXT") && off != 0 {
				return nil, true, &MatchTableError{Msg: "Flink does not support physical offsets within partition."}
			}
			arg, v, err := m.argOf(b, x.Args[0])
			if err != nil {
				return nil, true, err
			}
			kind := logical.MatchLast
			if name == "FIRST" {
				kind = logical.MatchFirst
			}
			return m.add(logical.MatchAccess{Kind: kind, Var: v, Offset: off, Arg: arg, Func: name, T: arg.Type().WithNullable(true)}), true, nil
		case "MATCH_ROWTIME", "MATCH_PROCTIME":
			if m.arg || m.define {
				return nil, true, posErr(x.Pos, "%s() can only be used in MEASURES", name)
			}
			if name == "MATCH_PROCTIME" {
				if len(x.Args) != 0 {
					return nil, true, posErr(x.Pos, "Invalid number of arguments to function 'MATCH_PROCTIME'. Was expecting 0 arguments")
				}
				return m.add(logical.MatchAccess{Kind: logical.MatchProctime, T: types.TimestampLTZOf(3).WithNullable(false)}), true, nil
			}
			a := logical.MatchAccess{Kind: logical.MatchRowtime, T: types.TimestampOf(3).WithNullable(false)}
			if len(x.Args) > 1 {
				return nil, true, posErr(x.Pos, "Invalid number of arguments to function 'MATCH_ROWTIME'. Was expecting 0 or 1 arguments")
			}
			if len(x.Args) == 1 {
				arg, _, err := m.argOf(b, x.Args[0])
				if err != nil {
					return nil, true, err
				}
				cr, ok := arg.(*logical.ColumnRef)
				if !ok || cr.Index != m.order {
					return nil, true, posErr(x.Pos, "The function MATCH_ROWTIME requires argument to be a row time attribute type, but is '%s'.", arg.Type())
				}
				a.Arg, a.T = arg, arg.Type().WithNullable(false)
			}
			return m.add(a), true, nil
		case "CLASSIFIER", "MATCH_NUMBER":
			return nil, true, unsupported("%s in MATCH_RECOGNIZE", name)
		}
		if isAggCall(x) && !isUserAgg(x) {
			if m.arg {
				return nil, true, posErr(x.Pos, "Aggregate expressions cannot be nested")
			}
			if x.Distinct {
				return nil, true, unsupported("DISTINCT aggregations in MATCH_RECOGNIZE")
			}
			if x.Filter != nil {
				return nil, true, unsupported("FILTER in MATCH_RECOGNIZE aggregations")
			}
			switch name {
			case "COUNT", "SUM", "AVG", "MIN", "MAX":
			default:
				return nil, true, unsupported("aggregate function %s in MATCH_RECOGNIZE", name)
			}
			if x.Star {
				return m.add(logical.MatchAccess{Kind: logical.MatchAgg, Agg: "COUNT", T: types.BigIntT.WithNullable(false)}), true, nil
			}
			if len(x.Args) != 1 {
				return nil, true, posErr(x.Pos, "Invalid number of arguments to function '%s'. Was expecting 1 arguments", name)
			}
			arg, v, err := m.argOf(b, x.Args[0])
			if err != nil {
				return nil, true, err
			}
			t, err := function.AggregateResultType(name, []types.Type{arg.Type()}, false)
			if err != nil {
				return nil, true, noMatchCall(x, x.Name.Parts[0], []logical.Expr{arg})
			}
			return m.add(logical.MatchAccess{Kind: logical.MatchAgg, Var: v, Arg: arg, Agg: name, T: t}), true, nil
		}
	}
	return nil, false, nil
}

// argOf binds the argument of an access against the input row and returns
// the single pattern variable it references ("" for the default one).
func (m *matchCtx) argOf(b *binder, e ast.Expr) (logical.Expr, string, error) {
	m.arg, m.argVars = true, map[string]bool{}
	defer func() { m.arg = false }()
	x, err := b.expr(e)
	if err != nil {
		return nil, "", err
	}
	if len(m.argVars) > 1 {
		vs := make([]string, 0, len(m.argVars))
		for v := range m.argVars {
			if v == "" {
				v = "*"
			}
			vs = append(vs, v)
		}
		return nil, "", posErr(e.Position(), "Columns of more than one pattern variable referenced in one expression: %s", strings.Join(vs, ", "))
	}
	v := ""
	for k := range m.argVars {
		v = k
	}
	return x, v, nil
}

func litText(l *ast.Literal) string {
	if l == nil {
		return ""
	}
	return l.Text
}

// MatchTableError is a TableException of Flink's MATCH_RECOGNIZE
// translation raised while validating.
type MatchTableError struct{ Msg string }

func (e *MatchTableError) Error() string { return e.Msg }

// planMatchRecognize plans `input MATCH_RECOGNIZE (...) [AS] alias`.
func (v *Validator) planMatchRecognize(x *ast.MatchRecognize, e *env) (logical.Node, *scope, error) {
	in, sc, err := v.planFrom(x.Input, e)
	if err != nil {
		return nil, nil, err
	}
	inS := in.Schema()
	plain := &binder{v: v, sc: sc, env: e, clause: "MATCH_RECOGNIZE"}
	column := func(ex ast.Expr, what string) (int, error) {
		c, err := plain.expr(ex)
		if err != nil {
			return 0, err
		}
		cr, ok := c.(*logical.ColumnRef)
		if !ok {
			return 0, unsupported("expressions in the %s of MATCH_RECOGNIZE (use a column)", what)
		}
		return cr.Index, nil
	}
	m := &logical.Match{Input: in, AllRows: x.AllRows, StartAnchor: x.StartAnchor, EndAnchor: x.EndAnchor, Subsets: len(x.Subsets) > 0}
	for _, p := range x.PartitionBy {
		i, err := column(p, "PARTITION BY")
		if err != nil {
			return nil, nil, err
		}
		m.PartitionKeys = append(m.PartitionKeys, i)
	}
	for _, o := range x.OrderBy {
		i, err := column(o.Expr, "ORDER BY")
		if err != nil {
			return nil, nil, err
		}
		k := logical.SortKey{Index: i, Desc: o.Desc, NullsFirst: !o.Desc}
		if o.NullsFirst != nil {
			k.NullsFirst = *o.NullsFirst
		}
		m.OrderKeys = append(m.OrderKeys, k)
	}
	vars := map[string]bool{}
	pat, err := matchPattern(x.Pattern, vars)
	if err != nil {
		return nil, nil, err
	}
	m.Pattern = pat
	switch x.AfterMatch {
	case "", "TO NEXT ROW":
		m.After = "SKIP TO NEXT ROW"
	case "PAST LAST ROW":
		m.After = "SKIP PAST LAST ROW"
	case "TO FIRST":
		m.After, m.AfterVar = "SKIP TO FIRST", x.AfterMatchVar
	case "TO LAST", "TO":
		m.After, m.AfterVar = "SKIP TO LAST", x.AfterMatchVar
	}
	if m.AfterVar != "" && !vars[m.AfterVar] {
		return nil, nil, posErr(x.Pos, "Unknown pattern '%s'", m.AfterVar)
	}
	if x.Within != nil {
		w, err := plain.expr(x.Within)
		if err != nil {
			return nil, nil, err
		}
		lit, ok := w.(*logical.Literal)
		if !ok || !lit.T.IsInterval() {
			return nil, nil, posErr(x.Within.Position(), "The WITHIN clause of MATCH_RECOGNIZE needs an interval literal")
		}
		m.HasWithin = true
		switch val := lit.Value.(type) {
		case int64:
			m.Within = val
		case int32:
			m.Within, m.WithinMonths = int64(val), true
		}
	}
	order := -1
	if len(m.OrderKeys) > 0 {
		order = m.OrderKeys[0].Index
	}
	mc := &matchCtx{vars: vars, in: sc, order: order}
	mb := &binder{v: v, sc: sc, env: e, clause: "MATCH_RECOGNIZE", match: mc}
	seen := map[string]bool{}
	for _, d := range x.Defines {
		if !vars[d.Var] {
			return nil, nil, posErr(d.Pos, "Unknown pattern '%s'", d.Var)
		}
		if seen[d.Var] {
			return nil, nil, posErr(d.Pos, "Pattern variable '%s' has already been defined", d.Var)
		}
		seen[d.Var] = true
		mc.define = true
		c, err := mb.expr(d.Cond)
		if err != nil {
			return nil, nil, err
		}
		if c, err = asBoolean(c, d.Cond.Position(), "DEFINE condition"); err != nil {
			return nil, nil, err
		}
		m.Defines = append(m.Defines, logical.MatchDefine{Var: d.Var, Cond: c})
	}
	mc.define = false
	out := types.Schema{}
	names := map[string]bool{}
	for _, k := range m.PartitionKeys {
		out = append(out, inS[k])
		names[strings.ToUpper(inS[k].Name)] = true
	}
	for _, it := range x.Measures {
		ex, err := mb.expr(it.Expr)
		if err != nil {
			return nil, nil, err
		}
		if names[strings.ToUpper(it.Alias)] {
			return nil, nil, posErr(it.Pos, "Duplicate column name '%s' in the output of MATCH_RECOGNIZE", it.Alias)
		}
		names[strings.ToUpper(it.Alias)] = true
		m.Measures = append(m.Measures, ex)
		m.MeasureNames = append(m.MeasureNames, it.Alias)
		out = append(out, types.Field{Name: it.Alias, Type: ex.Type()})
	}
	m.Accesses = mc.acc
	m.Out = out
	return v.aliased(m, x.Alias, x.ColumnAliases, x.Pos)
}

// matchPattern converts the AST pattern and collects its variables.
func matchPattern(p *ast.Pattern, vars map[string]bool) (*logical.MatchPattern, error) {
	if p == nil {
		return nil, posErr(ast.Pos{}, "empty PATTERN")
	}
	out := &logical.MatchPattern{Quantified: p.Quantified, Min: p.Min, Max: p.Max, Reluctant: p.Reluctant}
	switch p.Kind {
	case ast.PatternVar:
		out.Kind, out.Var = logical.PatternVariable, p.Var
		vars[p.Var] = true
		return out, nil
	case ast.PatternConcat:
		out.Kind = logical.PatternConcatenation
	case ast.PatternAlt:
		out.Kind = logical.PatternAlternation
	case ast.PatternGroup:
		out.Kind = logical.PatternGroup
	case ast.PatternPermute:
		out.Kind = logical.PatternPermute
	case ast.PatternExclude:
		out.Kind = logical.PatternExclusion
	}
	for _, it := range p.Items {
		c, err := matchPattern(it, vars)
		if err != nil {
			return nil, err
		}
		out.Items = append(out.Items, c)
	}
	if out.Kind == logical.PatternGroup && len(out.Items) == 1 && !out.Quantified {
		return out.Items[0], nil
	}
	return out, nil
}
