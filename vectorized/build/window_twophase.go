package build

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/physical"
	"github.com/tablerun/tablerun/vectorized/ops"
)

// buildWindowTwoPhase builds the two-phase window aggregation
// (LocalWindowAggregate, GlobalWindowAggregate), the event-time
// MiniBatchAssigner and the two-phase batch aggregation
// (LocalHashAggregate, HashAggregate with isMerge); ok is false for any
// other node.
func (b *builder) buildWindowTwoPhase(n physical.Node, ch []runner, out *arrow.Schema) (r runner, ok bool, err error) {
	name := n.Name()
	switch n := n.(type) {
	case *physical.MiniBatchAssigner:
		if !n.RowTime {
			return nil, false, nil
		}
		return &unaryRunner{name: name, op: ops.NewRowTimeMiniBatchAssigner(n.IntervalMs, n.Size), child: ch[0]}, true, nil
	case *physical.LocalWindowAggregate:
		op := ops.NewLocalWindowAggregate(n.GroupKeys, n.Aggs, n.Window, n.Input.Schema(), out, n.Size)
		op.SetTimeZone(b.loc())
		op.SetFunctions(b.env.Functions, b.env.Eval) // user-defined aggregates with merge
		return &unaryRunner{name: name, op: op, child: ch[0]}, true, nil
	case *physical.GlobalWindowAggregate:
		in, err := types.ArrowSchema(n.Input.Schema())
		if err != nil {
			return nil, true, fmt.Errorf("%s: %w", name, err)
		}
		op, err := ops.NewGlobalWindowAggregate(n.GroupKeys, n.Aggs, n.StateCols, n.SliceEnd, n.Window, n.LocalIn, in, out)
		if err != nil {
			return nil, true, fmt.Errorf("%s: %w", name, err)
		}
		op.SetTimeZone(b.loc())
		op.SetFunctions(b.env.Functions, b.env.Eval)
		return &unaryRunner{name: name, op: op, child: ch[0]}, true, nil
	case *physical.LocalHashAggregate:
		// batch: the partial states of 64 Ki rows at a time
		op := ops.NewLocalGroupAggregate(n.GroupKeys, n.Aggs, n.Input.Schema(), out, 1<<16)
		op.SetFunctions(b.env.Functions, b.env.Eval) // user-defined aggregates with merge
		return &unaryRunner{name: name, op: op, child: ch[0]}, true, nil
	case *physical.MergeHashAggregate:
		in, err := types.ArrowSchema(n.Input.Schema())
		if err != nil {
			return nil, true, fmt.Errorf("%s: %w", name, err)
		}
		op := ops.NewGlobalGroupAggregate(n.GroupKeys, n.Aggs, n.StateCols, n.LocalIn, in, out, ops.GroupAggregateOptions{}, 0)
		op.SetFunctions(b.env.Functions, b.env.Eval)
		return &unaryRunner{name: name, op: op, child: ch[0]}, true, nil
	}
	return nil, false, nil
}
