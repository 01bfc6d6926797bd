package physical

import (
	"time"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/planner/logical"
)

// evalConst evaluates an expression without column references with the
// reference evaluator.
func evalConst(env *Env, e logical.Expr) (any, error) {
	ctx := env.Eval
	if ctx == nil {
		ctx = &function.EvalContext{Loc: time.UTC}
	}
	return logical.Eval(ctx, env.Functions, e, nil)
}
