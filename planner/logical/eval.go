package logical

import (
	"fmt"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
)

// Eval evaluates e against one input row of canonical values (see
// core/types) and returns the canonical result (nil for NULL). It is the
// row-at-a-time reference evaluator: the oracle for the vectorized one and
// the engine of constant folding.
//
// AND and OR short-circuit with SQL three-valued logic (FALSE AND x is
// FALSE without evaluating x; TRUE OR x is TRUE); CASE evaluates a THEN
// only when its WHEN is TRUE; COALESCE stops at the first non-NULL
// argument; functions marked NullOnNull return NULL
// without being called when an argument is NULL; CAST goes through
// function.CastValue and TRY_CAST turns its error into NULL.
//
// A value of an unexpected Go type (a broken invariant, never user input)
// is reported as an "internal:" error rather than a panic.
func Eval(ctx *function.EvalContext, reg *function.Registry, e Expr, row []any) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("internal: evaluating %s: %v", e, r)
		}
	}()
	return eval(ctx, reg, e, row)
}

func eval(ctx *function.EvalContext, reg *function.Registry, e Expr, row []any) (any, error) {
	switch x := e.(type) {
	case *ColumnRef:
		if x.Index < 0 || x.Index >= len(row) {
			return nil, fmt.Errorf("internal: column $%d out of range (row has %d columns)", x.Index, len(row))
		}
		return row[x.Index], nil
	case *Literal:
		return x.Value, nil
	case *Cast:
		v, err := eval(ctx, reg, x.Arg, row)
		if err != nil {
			return nil, err
		}
		out, err := function.CastValue(ctx, v, x.Arg.Type(), x.T)
		if err != nil {
			if x.Try {
				return nil, nil
			}
			return nil, err
		}
		return out, nil
	case *Case:
		for _, w := range x.Whens {
			c, err := eval(ctx, reg, w.Cond, row)
			if err != nil {
				return nil, err
			}
			if c == true {
				return evalBranch(ctx, reg, w.Then, x.T, row)
			}
		}
		if x.Else == nil {
			return nil, nil
		}
		return evalBranch(ctx, reg, x.Else, x.T, row)
	case *Call:
		return evalCall(ctx, reg, x, row)
	}
	return nil, fmt.Errorf("internal: cannot evaluate %T", e)
}

func evalCall(ctx *function.EvalContext, reg *function.Registry, c *Call, row []any) (any, error) {
	switch c.Name {
	case "AND", "OR":
		isAnd := c.Name == "AND"
		sawNull := false
		for _, a := range c.Args {
			v, err := eval(ctx, reg, a, row)
			if err != nil {
				return nil, err
			}
			if v == nil {
				sawNull = true
				continue
			}
			b, ok := v.(bool)
			if !ok {
				return nil, fmt.Errorf("internal: %s operand is %T", c.Name, v)
			}
			if b != isAnd {
				return b, nil
			}
		}
		if sawNull {
			return nil, nil
		}
		return isAnd, nil
	case "COALESCE":
		// Lazy, as Flink rewrites COALESCE into CASE: later arguments are
		// not evaluated once a non-NULL value is found.
		for _, a := range c.Args {
			v, err := eval(ctx, reg, a, row)
			if err != nil {
				return nil, err
			}
			if v != nil {
				return v, nil
			}
		}
		return nil, nil
	}
	def, err := c.Definition()
	if err != nil {
		return nil, err
	}
	if def.Eval == nil {
		return nil, fmt.Errorf("No match found for function signature %s", c.Name)
	}
	args := make([]any, len(c.Args))
	sawNull := false
	for i, a := range c.Args {
		// Every argument is evaluated (as Flink's generated code and the
		// vectorized evaluator do), so an error in any argument surfaces
		// even when another one is NULL.
		v, err := eval(ctx, reg, a, row)
		if err != nil {
			return nil, err
		}
		if v == nil {
			sawNull = true
		}
		args[i] = v
	}
	if sawNull && def.NullOnNull {
		return nil, nil
	}
	return def.Eval(ctx, CallTypesOf(c), args)
}

// CallTypesOf returns the argument and result types of a call site.
func CallTypesOf(c *Call) function.CallTypes {
	ts := make([]types.Type, len(c.Args))
	for i, a := range c.Args {
		ts[i] = a.Type()
	}
	return function.CallTypes{Args: ts, Result: c.T}
}

// evalBranch evaluates a CASE branch and converts it to the CASE type when
// the validator left the branch in a different type.
func evalBranch(ctx *function.EvalContext, reg *function.Registry, e Expr, t types.Type, row []any) (any, error) {
	v, err := eval(ctx, reg, e, row)
	if err != nil || v == nil {
		return v, err
	}
	if bt := e.Type(); !bt.EqualIgnoringNull(t) && bt.Kind != types.Null {
		return function.CastValue(ctx, v, bt, t)
	}
	return v, nil
}
