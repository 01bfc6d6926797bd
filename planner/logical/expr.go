// Package logical holds the planner's intermediate representation: typed
// expressions over input columns (Expr) and immutable relational plan nodes
// (Node). The validator produces it from the AST, rules rewrite it, and the
// physical planner translates it into Flink-named physical nodes.
package logical

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
)

// Expr is a typed scalar expression evaluated against one input row.
// Expressions are immutable.
type Expr interface {
	// Type is the result type, nullability included.
	Type() types.Type
	// String prints the expression in Flink's plan style, e.g. "+($0, 1)".
	String() string
	// Children returns the direct sub-expressions.
	Children() []Expr
	// WithChildren returns a copy with the sub-expressions replaced (same
	// count as Children).
	WithChildren(ch []Expr) Expr
}

// ColumnRef reads column Index of the input row ($Index in plans).
type ColumnRef struct {
	Index int
	Name  string // for EXPLAIN only
	T     types.Type
}

// Literal is a constant in its canonical Go representation (see
// core/types). A nil Value is NULL of type T.
type Literal struct {
	Value any
	T     types.Type
}

// Call applies a built-in scalar function or operator. Name is the
// canonical upper-case name registered in core/function (operators use
// their SQL symbol: "+", "-", "*", "/", "=", "<>", "<", "<=", ">", ">=",
// "AND", "OR", "NOT", "IS NULL", …). Arguments are already coerced to the
// types the function's inference asked for.
//
// Def is the resolved definition: the validator sets the one it resolved
// the name to, and a call the planner synthesises carries one of the
// handles of core/function (function.OpEquals, function.OpAnd, …) or an
// internal definition (function.Internal). Later stages (rules, the
// reference evaluator, vectorized/expr, the Correlate builder) read it
// through Definition and never look the name up again.
type Call struct {
	Name string
	Args []Expr
	T    types.Type
	Def  *function.Definition
}

// NewCall returns a call of def (named as def) with result type t.
func NewCall(def *function.Definition, t types.Type, args ...Expr) *Call {
	return &Call{Name: def.Name, Args: args, T: t, Def: def}
}

// Definition returns the call's resolved definition. A call without one
// is a planner bug (a synthesised call built without its definition): an
// internal error naming the function, worded after the validator's
// "No match found for function signature" so that it reads the same
// wherever it surfaces.
func (c *Call) Definition() (*function.Definition, error) {
	if c.Def == nil {
		return nil, unresolved(c)
	}
	return c.Def, nil
}

func unresolved(c *Call) error {
	return fmt.Errorf("No match found for function signature %s (internal error: the call carries no resolved function definition)", c.Name)
}

// CheckResolved returns the internal error of the first call in e that
// carries no definition, or nil. vectorized/build checks every expression
// of a plan with it before compiling, so a planner path that synthesises
// a call without its definition fails at build time.
func CheckResolved(e Expr) error {
	var err error
	Walk(e, func(x Expr) bool {
		if c, ok := x.(*Call); ok && c.Def == nil && err == nil {
			err = unresolved(c)
		}
		return err == nil
	})
	return err
}

// Cast converts Arg to T. Try is TRY_CAST: a failing conversion yields NULL
// instead of an error.
type Cast struct {
	Arg Expr
	T   types.Type
	Try bool
}

// When is one WHEN … THEN … branch of a Case.
type When struct {
	Cond Expr // BOOLEAN
	Then Expr
}

// Case is a searched CASE (simple CASE is rewritten to searched form).
// Branches are evaluated lazily: a THEN whose WHEN is not true is not
// evaluated for that row (so CASE WHEN x <> 0 THEN 1/x END never divides by
// zero).
type Case struct {
	Whens []When
	Else  Expr // nil means ELSE NULL
	T     types.Type
}

// Type implements Expr.
func (e *ColumnRef) Type() types.Type { return e.T }

// Type implements Expr.
func (e *Literal) Type() types.Type { return e.T }

// Type implements Expr.
func (e *Call) Type() types.Type { return e.T }

// Type implements Expr.
func (e *Cast) Type() types.Type { return e.T }

// Type implements Expr.
func (e *Case) Type() types.Type { return e.T }

// Children implements Expr.
func (e *ColumnRef) Children() []Expr { return nil }

// Children implements Expr.
func (e *Literal) Children() []Expr { return nil }

// Children implements Expr.
func (e *Call) Children() []Expr { return e.Args }

// Children implements Expr.
func (e *Cast) Children() []Expr { return []Expr{e.Arg} }

// Children implements Expr.
func (e *Case) Children() []Expr {
	out := make([]Expr, 0, 2*len(e.Whens)+1)
	for _, w := range e.Whens {
		out = append(out, w.Cond, w.Then)
	}
	if e.Else != nil {
		out = append(out, e.Else)
	}
	return out
}

// WithChildren implements Expr.
func (e *ColumnRef) WithChildren([]Expr) Expr { return e }

// WithChildren implements Expr.
func (e *Literal) WithChildren([]Expr) Expr { return e }

// WithChildren implements Expr.
func (e *Call) WithChildren(ch []Expr) Expr {
	c := *e
	c.Args = append([]Expr(nil), ch...)
	return &c
}

// WithChildren implements Expr.
func (e *Cast) WithChildren(ch []Expr) Expr {
	c := *e
	c.Arg = ch[0]
	return &c
}

// WithChildren implements Expr.
func (e *Case) WithChildren(ch []Expr) Expr {
	c := *e
	c.Whens = make([]When, len(e.Whens))
	for i := range e.Whens {
		c.Whens[i] = When{Cond: ch[2*i], Then: ch[2*i+1]}
	}
	if e.Else != nil {
		c.Else = ch[len(ch)-1]
	}
	return &c
}

// String implements Expr.
func (e *ColumnRef) String() string { return fmt.Sprintf("$%d", e.Index) }

// String implements Expr.
func (e *Literal) String() string { return FormatLiteral(e.Value, e.T) }

// String implements Expr.
func (e *Call) String() string {
	args := make([]string, len(e.Args))
	for i, a := range e.Args {
		args[i] = a.String()
	}
	return e.Name + "(" + strings.Join(args, ", ") + ")"
}

// String implements Expr.
func (e *Cast) String() string {
	name := "CAST"
	if e.Try {
		name = "TRY_CAST"
	}
	return fmt.Sprintf("%s(%s AS %s)", name, e.Arg, e.T)
}

// String implements Expr.
func (e *Case) String() string {
	parts := make([]string, 0, len(e.Whens)*2+1)
	for _, w := range e.Whens {
		parts = append(parts, w.Cond.String(), w.Then.String())
	}
	if e.Else != nil {
		parts = append(parts, e.Else.String())
	} else {
		parts = append(parts, "null:"+e.T.String())
	}
	return "CASE(" + strings.Join(parts, ", ") + ")"
}

// FormatLiteral prints a literal the way Flink's plans do: numbers plain,
// strings quoted with _UTF-16LE prefix omitted, NULL as null:TYPE.
func FormatLiteral(v any, t types.Type) string {
	if v == nil {
		return "null:" + t.String()
	}
	switch x := v.(type) {
	case string:
		return "'" + strings.ReplaceAll(x, "'", "''") + "'"
	case bool:
		if x {
			return "true"
		}
		return "false"
	case []byte:
		return fmt.Sprintf("X'%x'", x)
	case decimal128.Num:
		return x.ToString(int32(t.Scale))
	}
	return fmt.Sprint(v)
}

// Walk calls fn for e and every sub-expression, parents first; fn returns
// false to skip the children of a node.
func Walk(e Expr, fn func(Expr) bool) {
	if !fn(e) {
		return
	}
	for _, c := range e.Children() {
		Walk(c, fn)
	}
}

// Rewrite rebuilds e bottom-up, replacing every node by fn(node) after its
// children were rewritten.
func Rewrite(e Expr, fn func(Expr) Expr) Expr {
	ch := e.Children()
	if len(ch) > 0 {
		nc := make([]Expr, len(ch))
		changed := false
		for i, c := range ch {
			nc[i] = Rewrite(c, fn)
			if nc[i] != c {
				changed = true
			}
		}
		if changed {
			e = e.WithChildren(nc)
		}
	}
	return fn(e)
}

// InputRefs returns the set of input column indexes e reads.
func InputRefs(e Expr) map[int]bool {
	out := map[int]bool{}
	Walk(e, func(x Expr) bool {
		if c, ok := x.(*ColumnRef); ok {
			out[c.Index] = true
		}
		return true
	})
	return out
}

// ShiftRefs returns e with every column index i replaced by mapping(i).
func ShiftRefs(e Expr, mapping func(int) int) Expr {
	return Rewrite(e, func(x Expr) Expr {
		if c, ok := x.(*ColumnRef); ok {
			n := *c
			n.Index = mapping(c.Index)
			return &n
		}
		return x
	})
}

// IsDeterministic reports whether e always gives the same result for the
// same input (no RAND, NOW, UUID, …). nondeterministic names the functions
// to treat as such.
func IsDeterministic(e Expr, nondeterministic func(c *Call) bool) bool {
	ok := true
	Walk(e, func(x Expr) bool {
		if c, isCall := x.(*Call); isCall && nondeterministic(c) {
			ok = false
		}
		return ok
	})
	return ok
}

// Conjuncts splits an AND tree into its conjuncts.
func Conjuncts(e Expr) []Expr {
	if c, ok := e.(*Call); ok && c.Name == "AND" {
		var out []Expr
		for _, a := range c.Args {
			out = append(out, Conjuncts(a)...)
		}
		return out
	}
	return []Expr{e}
}

// And joins conjuncts with AND; nil for none.
func And(es ...Expr) Expr {
	var out Expr
	for _, e := range es {
		if e == nil {
			continue
		}
		if out == nil {
			out = e
			continue
		}
		t := types.BooleanT.WithNullable(out.Type().Nullable() || e.Type().Nullable())
		out = NewCall(function.OpAnd, t, out, e)
	}
	return out
}
