package udf

import (
	"fmt"
	"strings"

	"github.com/tablerun/tablerun/core/function"
)

// KindName names a function kind as error messages and doc records do:
// "scalar", "table" or "aggregate".
func KindName(k function.Kind) string {
	switch k {
	case function.Table:
		return "table"
	case function.Aggregate:
		return "aggregate"
	}
	return "scalar"
}

// ParamList prints the declared parameters of spec as "a INT, b STRING",
// the Args line of a script function's doc record.
func (s Spec) ParamList() string {
	parts := make([]string, len(s.Params))
	for i, p := range s.Params {
		parts[i] = p.Name + " " + p.Type.String()
	}
	return strings.Join(parts, ", ")
}

// NotScalar is the Eval of a table or aggregate script function: calling
// one where a scalar value is expected is an error naming its kind.
func NotScalar(spec Spec) function.EvalFunc {
	return func(*function.EvalContext, function.CallTypes, []any) (any, error) {
		return nil, fmt.Errorf("%s function '%s' cannot be called as a scalar function", KindName(spec.Kind), spec.Name)
	}
}
