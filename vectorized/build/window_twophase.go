package build

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/physical"
	"github.com/tablerun/tablerun/vectorized/ops"
)

func init() {
	register(buildLocalWindowAggregate)
	register(buildGlobalWindowAggregate)
	register(buildLocalHashAggregate)
	register(buildMergeHashAggregate)
}

// buildLocalWindowAggregate builds a LocalWindowAggregate.
func buildLocalWindowAggregate(b *builder, n *physical.LocalWindowAggregate, ch []runner, out *arrow.Schema) (runner, error) {
	name := n.Name()
	op := ops.NewLocalWindowAggregate(n.GroupKeys, n.Aggs, n.Window, n.Input.Schema(), out, n.Size)
	op.SetTimeZone(b.loc())
	op.SetFunctions(b.env.Eval) // user-defined aggregates with merge
	return &unaryRunner{name: name, op: op, child: ch[0]}, nil
}

// buildGlobalWindowAggregate builds a GlobalWindowAggregate.
func buildGlobalWindowAggregate(b *builder, n *physical.GlobalWindowAggregate, ch []runner, out *arrow.Schema) (runner, error) {
	name := n.Name()
	in, err := types.ArrowSchema(n.Input.Schema())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	op, err := ops.NewGlobalWindowAggregate(n.GroupKeys, n.Aggs, n.StateCols, n.SliceEnd, n.Window, n.LocalIn, in, out)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	op.SetTimeZone(b.loc())
	op.SetFunctions(b.env.Eval)
	return &unaryRunner{name: name, op: op, child: ch[0]}, nil
}

// buildLocalHashAggregate builds a LocalHashAggregate.
func buildLocalHashAggregate(b *builder, n *physical.LocalHashAggregate, ch []runner, out *arrow.Schema) (runner, error) {
	name := n.Name()
	// batch: the partial states of 64 Ki rows at a time
	op := ops.NewLocalGroupAggregate(n.GroupKeys, n.Aggs, n.Input.Schema(), out, 1<<16)
	op.SetFunctions(b.env.Eval) // user-defined aggregates with merge
	return &unaryRunner{name: name, op: op, child: ch[0]}, nil
}

// buildMergeHashAggregate builds a MergeHashAggregate.
func buildMergeHashAggregate(b *builder, n *physical.MergeHashAggregate, ch []runner, out *arrow.Schema) (runner, error) {
	name := n.Name()
	in, err := types.ArrowSchema(n.Input.Schema())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	op := ops.NewGlobalGroupAggregate(n.GroupKeys, n.Aggs, n.StateCols, n.LocalIn, in, out, ops.GroupAggregateOptions{}, 0)
	op.SetFunctions(b.env.Eval)
	return &unaryRunner{name: name, op: op, child: ch[0]}, nil
}
