package build

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/planner/physical"
	"github.com/tablerun/tablerun/udf"
	"github.com/tablerun/tablerun/vectorized/ops"
)

func init() { register((*builder).correlate) }

// correlate builds the operator of a Correlate (LATERAL TABLE): the
// function's implementation is looked up by its registry key.
func (b *builder) correlate(n *physical.Correlate, ch []runner, out *arrow.Schema) (runner, error) {
	name := n.Name()
	if b.env.Functions == nil {
		return nil, fmt.Errorf("%s: internal: no function registry", name)
	}
	var tf udf.TableFunc
	switch n.Call.Name {
	case physical.ReplicateRowsFunc:
		tf = replicateRows{} // correlate_replicate.go
	case logical.UnnestRowsFunc, logical.UnnestRowsWithOrdinalityFunc:
		u, err := newUnnestRows(n.Call.Args[0].Type(), n.Call.Name == logical.UnnestRowsWithOrdinalityFunc) // correlate_unnest.go
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		tf = u
	default:
		def, err := n.Call.Definition()
		if err != nil {
			return nil, fmt.Errorf("%s: table function '%s': %w", name, n.Display, err)
		}
		ats := make([]types.Type, len(n.Call.Args))
		for i, a := range n.Call.Args {
			ats[i] = a.Type()
		}
		def, err = udf.Specialize(def, ats)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		var ok bool
		if tf, ok = udf.TableImpl(def); !ok {
			return nil, fmt.Errorf("not supported yet: table function '%s' without a script implementation", n.Display)
		}
	}
	in := n.Input.Schema()
	args := make([]ops.Evaluator, len(n.Call.Args))
	argTypes := make([]types.Type, len(n.Call.Args))
	for i, a := range n.Call.Args {
		ev, err := b.compile(a, in)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		args[i] = ev
		argTypes[i] = a.Type()
	}
	fnTypes := make([]types.Type, 0, len(n.Out)-len(in))
	for _, f := range n.Out[len(in):] {
		fnTypes = append(fnTypes, f.Type)
	}
	spec := ops.CorrelateSpec{Args: args, ArgTypes: argTypes, Func: tf, FuncTypes: fnTypes,
		Left: n.Kind == logical.LeftJoin, Eval: b.env.Eval, Out: out}
	if n.Cond != nil {
		cond, err := b.compile(n.Cond, n.Out)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		spec.Cond = cond
	}
	op := ops.NewCorrelate(spec)
	return &unaryRunner{name: name, op: op, child: ch[0]}, nil
}
