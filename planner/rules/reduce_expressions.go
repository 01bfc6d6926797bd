package rules

import (
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// ReduceExpressions is constant folding ("ReduceExpressionsRule"): every
// deterministic sub-expression whose inputs are all literals is evaluated
// once at planning time and replaced by its value. AND/OR with TRUE/FALSE
// operands and CASE branches with literal conditions are simplified. If
// evaluating raises an error (1/0, a bad CAST), the expression stays as it
// is so that the error happens at run time, as in Flink.
//
// On plan nodes: Filter(TRUE) becomes its input, Filter(FALSE) and
// Filter(NULL) become an empty Values, and a join condition TRUE becomes a
// cross join (nil condition).
type ReduceExpressions struct{ env *Env }

// Name implements Rule.
func (r *ReduceExpressions) Name() string { return "ReduceExpressionsRule" }

// Apply implements Rule.
func (r *ReduceExpressions) Apply(n logical.Node) (logical.Node, bool, error) {
	return transformUp(n, r.node)
}

func (r *ReduceExpressions) node(n logical.Node) (logical.Node, bool, error) {
	switch x := n.(type) {
	case *logical.Filter:
		c, changed := r.reduce(x.Cond)
		switch {
		case isTrue(c):
			return x.Input, true, nil
		case isFalse(c) || isNullLiteral(c):
			return emptyValues(x.Schema()), true, nil
		case changed:
			return &logical.Filter{Input: x.Input, Cond: c}, true, nil
		}
	case *logical.Project:
		exprs, changed := r.reduceAll(x.Exprs)
		if changed {
			p := *x
			p.Exprs = exprs
			return &p, true, nil
		}
	case *logical.Join:
		if x.Cond == nil {
			return n, false, nil
		}
		c, changed := r.reduce(x.Cond)
		if isTrue(c) {
			c, changed = nil, true
		}
		if changed {
			j := *x
			j.Cond = c
			return &j, true, nil
		}
	case *logical.Values:
		changedAny := false
		rows := make([][]logical.Expr, len(x.Rows))
		for i, row := range x.Rows {
			nr, changed := r.reduceAll(row)
			rows[i] = nr
			changedAny = changedAny || changed
		}
		if changedAny {
			return &logical.Values{Rows: rows, Out: x.Out}, true, nil
		}
	case *logical.Scan:
		if len(x.Filters) == 0 {
			return n, false, nil
		}
		fs, changed := r.reduceAll(x.Filters)
		if changed {
			s := *x
			s.Filters = fs
			return &s, true, nil
		}
	}
	return n, false, nil
}

func (r *ReduceExpressions) reduceAll(es []logical.Expr) ([]logical.Expr, bool) {
	out := make([]logical.Expr, len(es))
	changedAny := false
	for i, e := range es {
		var changed bool
		out[i], changed = r.reduce(e)
		changedAny = changedAny || changed
	}
	return out, changedAny
}

// reduce folds e bottom-up and reports whether it changed.
func (r *ReduceExpressions) reduce(e logical.Expr) (logical.Expr, bool) {
	out := logical.Rewrite(e, r.fold)
	if out != e {
		out = logical.Rewrite(out, fitLiteral)
	}
	return out, out != e
}

// fitLiteral cuts a folded string literal to its type's length. Folding
// keeps a constant's whole value while it folds its parents
// (CHAR_LENGTH(UPPER('ß')) is 2: 'SS' at run time), and only the literal
// that replaces a whole constant expression holds no more characters than
// its type, as in Flink, whose ReduceExpressionsRule evaluates a constant
// tree at once and makes a literal of its type (SELECT UPPER('ß') is
// 'S', UPPER('ß') || 'x' is CHAR(2) 'SS').
func fitLiteral(x logical.Expr) logical.Expr {
	l, ok := x.(*logical.Literal)
	if !ok {
		return x
	}
	s, ok := l.Value.(string)
	if !ok {
		return x
	}
	if c := function.FitLength(s, l.T); len(c) != len(s) {
		return &logical.Literal{Value: c, T: l.T}
	}
	return x
}

// fold simplifies one expression whose children are already folded. It
// returns x itself when nothing applies.
func (r *ReduceExpressions) fold(x logical.Expr) logical.Expr {
	switch e := x.(type) {
	case *logical.Call:
		switch e.Name {
		case "AND", "OR":
			out := simplifyAndOr(e, e.Name == "OR", r.fails)
			if c, ok := out.(*logical.Call); ok && allLiterals(c.Args) {
				return r.evaluate(c)
			}
			return out
		}
		if !allLiterals(e.Args) || !r.foldable(e) {
			return x
		}
		return r.evaluate(x)
	case *logical.Cast:
		if _, ok := e.Arg.(*logical.Literal); !ok {
			return x
		}
		return r.evaluate(x)
	case *logical.Case:
		return simplifyCase(e)
	}
	return x
}

// foldable reports a call the registry knows as deterministic.
func (r *ReduceExpressions) foldable(c *logical.Call) bool {
	if r.env == nil || r.env.Functions == nil {
		return false
	}
	d, err := c.Definition()
	return err == nil && !d.Nondeterministic && d.Eval != nil
}

// evaluate replaces a constant expression by its value, or returns it
// unchanged when evaluation fails.
func (r *ReduceExpressions) evaluate(x logical.Expr) logical.Expr {
	if r.env == nil || r.env.Functions == nil {
		return x
	}
	v, err := evalConst(r.env, x)
	if err != nil {
		return x
	}
	return &logical.Literal{Value: v, T: x.Type()}
}

// fails reports whether e holds a constant sub-expression that folding
// left in place: a deterministic call or a cast of literals only, which is
// left unfolded only when evaluating it failed.
func (r *ReduceExpressions) fails(e logical.Expr) bool {
	found := false
	logical.Walk(e, func(x logical.Expr) bool {
		switch c := x.(type) {
		case *logical.Cast:
			if _, ok := c.Arg.(*logical.Literal); ok {
				found = true
			}
		case *logical.Call:
			if c.Name != "AND" && c.Name != "OR" && allLiterals(c.Args) && r.foldable(c) {
				found = true
			}
		}
		return !found
	})
	return found
}

func allLiterals(es []logical.Expr) bool {
	for _, a := range es {
		if _, ok := a.(*logical.Literal); !ok {
			return false
		}
	}
	return true
}

// simplifyAndOr drops neutral operands (TRUE for AND, FALSE for OR) and
// collapses the call to its absorbing value (FALSE for AND, TRUE for OR)
// when an operand is that literal. isOr selects OR.
//
// An operand before the absorbing one that fails when evaluated (it holds
// a constant that folding could not evaluate: CAST('x' AS TIME)) is kept
// with everything up to the absorbing operand: evaluation meets it first
// and fails, so folding must not turn the failure into a value (the
// results would depend on the optimizer). fails may be nil.
func simplifyAndOr(e *logical.Call, isOr bool, fails func(logical.Expr) bool) logical.Expr {
	neutral, absorbing := isTrue, isFalse
	if isOr {
		neutral, absorbing = isFalse, isTrue
	}
	var kept []logical.Expr
	for i, a := range e.Args {
		if absorbing(a) {
			if fails != nil {
				for _, b := range e.Args[:i] {
					if fails(b) {
						if i+1 == len(e.Args) {
							return e
						}
						c := *e
						c.Args = e.Args[:i+1]
						return &c
					}
				}
			}
			return boolLit(isOr, e.T)
		}
		if !neutral(a) {
			kept = append(kept, a)
		}
	}
	switch {
	case len(kept) == len(e.Args):
		return e
	case len(kept) == 0:
		return boolLit(!isOr, e.T)
	case len(kept) == 1 && narrows(kept[0].Type(), e.T):
		return kept[0]
	case len(kept) == 1:
		return e
	}
	c := *e
	c.Args = kept
	return &c
}

// narrows reports whether a value of type got can stand where type want
// was: the same type, or the NOT NULL version of it.
func narrows(got, want types.Type) bool {
	return got.Equal(want) || got.Equal(want.WithNullable(false))
}

// simplifyCase drops WHEN branches whose condition is the literal FALSE or
// NULL and cuts the CASE at the first branch whose condition is TRUE.
func simplifyCase(e *logical.Case) logical.Expr {
	var whens []logical.When
	changed := false
	var elseExpr = e.Else
	for _, w := range e.Whens {
		if isFalse(w.Cond) || isNullLiteral(w.Cond) {
			changed = true
			continue
		}
		if isTrue(w.Cond) {
			elseExpr = w.Then
			changed = true
			break
		}
		whens = append(whens, w)
	}
	if !changed {
		return e
	}
	if len(whens) == 0 {
		if elseExpr == nil {
			return &logical.Literal{Value: nil, T: e.T}
		}
		if narrows(elseExpr.Type(), e.T) {
			return elseExpr
		}
		// The CASE also changes the type: keep it as it was.
		return e
	}
	return &logical.Case{Whens: whens, Else: elseExpr, T: e.T}
}

// FoldExpr is ReduceExpressions applied to one expression: what constant
// folding makes of e (tests compare it with evaluating e at run time).
func FoldExpr(reg *function.Registry, ctx *function.EvalContext, e logical.Expr) logical.Expr {
	out, _ := (&ReduceExpressions{env: &Env{Functions: reg, Eval: ctx}}).reduce(e)
	return out
}
