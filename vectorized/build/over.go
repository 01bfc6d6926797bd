package build

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/planner/physical"
	"github.com/tablerun/tablerun/vectorized/ops"
)

// buildOver builds OverAggregate, Rank and Deduplicate (both modes); ok is
// false for any other node.
func (b *builder) buildOver(n physical.Node, ch []runner, out *arrow.Schema) (r runner, ok bool, err error) {
	name := n.Name()
	switch n := n.(type) {
	case *physical.OverAggregate:
		op, err := ops.NewOverAggregate(ops.OverSpec{Partition: n.PartitionKeys, Order: n.OrderKeys, Rows: n.Rows, Bounded: n.Bounded, Preceding: n.Preceding, Calls: n.Calls,
			In: n.Input.Schema(), Out: n.Out, Arrow: out, Streaming: n.Streaming, Rowtime: n.Rowtime})
		if err != nil {
			return nil, true, fmt.Errorf("%s: %w", name, err)
		}
		return &unaryRunner{name: name, op: op, child: ch[0]}, true, nil
	case *physical.Rank:
		op := ops.NewRank(n.PartitionKeys, n.OrderKeys, n.RankEnd, n.OutputRank, n.Streaming, n.TieLast, n.Input.Schema(), n.Out, out)
		if n.Retract {
			op.SetRetract()
		}
		return &unaryRunner{name: name, op: op, child: ch[0]}, true, nil
	case *physical.Deduplicate:
		op := ops.NewDeduplicate(n.Keys, n.KeepLast, n.Rowtime, n.TimeCol, n.Input.Schema(), out)
		return &unaryRunner{name: name, op: op, child: ch[0]}, true, nil
	}
	return nil, false, nil
}
