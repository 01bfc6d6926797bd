package validate

import (
	"errors"
	"strings"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/logical"
)

// FunctionResolver resolves a function reference (1 to 3 name parts) with
// Flink's rules; function.Catalog implements it. It returns (nil, nil) when
// no function matches, and an error for a function that exists but cannot
// be called. The returned definition's Name is the call key under which the
// planner's registry finds it.
type FunctionResolver interface {
	Resolve(parts []string) (*function.Definition, error)
}

// resolvedCall binds a call by name through Options.Functions.
func (b *binder) resolvedCall(x *ast.FunctionCall, written string, args []logical.Expr) (logical.Expr, error) {
	def, err := b.v.opts.Functions.Resolve(x.Name.Parts)
	if err != nil {
		return nil, err
	}
	if def == nil && len(x.Name.Parts) == 1 && len(args) == 0 && strings.EqualFold(written, "PROCTIME") {
		// a processing-time attribute reads the wall clock in batch mode
		def, err = b.v.opts.Functions.Resolve([]string{"CURRENT_TIMESTAMP"})
		if err != nil {
			return nil, err
		}
	}
	if def == nil || def.Infer == nil {
		err := withHint(noMatchCall(x, written, args), b.functionHint(written))
		var ve *Error
		if errors.As(err, &ve) {
			return nil, &NoMatchError{Err: ve}
		}
		return nil, err
	}
	switch def.Kind {
	case function.Aggregate:
		return nil, unsupported("user-defined aggregate function '%s'", strings.Join(x.Name.Parts, "."))
	case function.Table:
		return nil, unsupported("table function '%s' (LATERAL TABLE)", strings.Join(x.Name.Parts, "."))
	}
	e, err := b.callDef(x.Pos, def, args)
	if err != nil || def.Name != "CONCAT" || def.Kind != function.Scalar {
		return e, err
	}
	return concatFunction(x.Pos, e, args)
}

// ClassSQLValidator is the exception class Flink's SQL client reports for
// errors of Calcite's validator (the root cause it prints).
const ClassSQLValidator = "org.apache.calcite.sql.validate.SqlValidatorException"

// NoMatchError is "No match found for function signature f(<TYPE>, …)":
// no function of that name exists. Like Flink's SQL client, its message is
// Calcite's bare message (the root cause, without the position prefix) and
// its Java class SqlValidatorException; Err keeps the position.
type NoMatchError struct{ Err *Error }

// Error returns the bare message.
func (e *NoMatchError) Error() string { return e.Err.Msg }

// Unwrap returns the positioned error.
func (e *NoMatchError) Unwrap() error { return e.Err }

// JavaClass returns SqlValidatorException.
func (e *NoMatchError) JavaClass() string { return ClassSQLValidator }

// concatFunction types the CONCAT function as Flink does. The `||`
// operator shares the CONCAT definition (its result is CHAR(n) or
// VARCHAR(n), Calcite's DYADIC_STRING_SUM; `||` also joins binary
// strings), but the function form CONCAT(s1, s2, …) returns STRING and
// takes character strings only: CONCAT(vc, 1) and CONCAT(X'01', X'02')
// are refused with Flink's message.
func concatFunction(pos ast.Pos, e logical.Expr, args []logical.Expr) (logical.Expr, error) {
	c, ok := e.(*logical.Call)
	if !ok || c.Name != "CONCAT" {
		return e, nil
	}
	ats := make([]types.Type, len(args))
	for i, a := range args {
		ats[i] = a.Type()
	}
	for _, t := range ats {
		if !t.IsString() && t.Kind != types.Null {
			return nil, posErr(pos, "%s Supported form(s): 'CONCAT(<CHARACTER>)'", function.CallError("CONCAT", ats).Error())
		}
	}
	out := *c
	out.T = types.StringT.WithNullable(c.T.Nullable())
	return &out, nil
}
