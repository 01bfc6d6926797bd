package validate

import (
	"sync"

	"github.com/tablerun/tablerun/planner/ast"
)

// builtinShadower is implemented by function resolvers (function.Catalog)
// that can tell cheaply whether a built-in name is shadowed by a function
// earlier in Flink's resolution order (a temporary system function, or a
// module used before core).
type builtinShadower interface {
	ShadowsBuiltin(name string) bool
}

// shadowsBuiltin reports whether the built-in aggregate name is shadowed
// by a user function, so that resolution, not the name, decides what a
// call means.
func (v *Validator) shadowsBuiltin(name string) bool {
	s, ok := v.opts.Functions.(builtinShadower)
	return ok && s.ShadowsBuiltin(name)
}

// shadowedAggs holds the calls, named like a built-in aggregate, that
// resolve to a user-defined scalar or table function (see markUserAggs);
// isAggCall does not treat them as aggregate calls.
var shadowedAggs sync.Map

// isShadowedAgg reports a call marked in shadowedAggs.
func isShadowedAgg(fc *ast.FunctionCall) bool {
	_, ok := shadowedAggs.Load(fc)
	return ok
}
