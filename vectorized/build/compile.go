package build

import (
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized/expr"
	"github.com/tablerun/tablerun/vectorized/ops"
)

// compile compiles a scalar expression over the input schema in.
func (b *builder) compile(e logical.Expr, in types.Schema) (ops.Evaluator, error) {
	if err := logical.CheckResolved(e); err != nil {
		return nil, err
	}
	return expr.Compile(e, in, b.env.Functions, b.env.Eval)
}

// compileFilter compiles a condition over the input schema in.
func (b *builder) compileFilter(e logical.Expr, in types.Schema) (ops.Selector, error) {
	if err := logical.CheckResolved(e); err != nil {
		return nil, err
	}
	return expr.CompileFilter(e, in, b.env.Functions, b.env.Eval)
}
