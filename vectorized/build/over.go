package build

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/planner/physical"
	"github.com/tablerun/tablerun/vectorized/ops"
)

func init() {
	register(buildOverAggregate)
	register(buildRank)
	register(buildDeduplicate)
	register(buildChangelogNormalize)
}

// buildOverAggregate builds a OverAggregate.
func buildOverAggregate(b *builder, n *physical.OverAggregate, ch []runner, out *arrow.Schema) (runner, error) {
	name := n.Name()
	op, err := ops.NewOverAggregate(ops.OverSpec{Partition: n.PartitionKeys, Order: n.OrderKeys, Rows: n.Rows, Bounded: n.Bounded, Preceding: n.Preceding, Calls: n.Calls,
		In: n.Input.Schema(), Out: n.Out, Arrow: out, Streaming: n.Streaming, Rowtime: n.Rowtime})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &unaryRunner{name: name, op: op, child: ch[0]}, nil
}

// buildRank builds a Rank.
func buildRank(b *builder, n *physical.Rank, ch []runner, out *arrow.Schema) (runner, error) {
	name := n.Name()
	op := ops.NewRank(n.PartitionKeys, n.OrderKeys, n.RankEnd, n.OutputRank, n.Streaming, n.TieLast, n.Input.Schema(), n.Out, out)
	if n.Retract {
		op.SetRetract()
	}
	return &unaryRunner{name: name, op: op, child: ch[0]}, nil
}

// buildDeduplicate builds a Deduplicate.
func buildDeduplicate(b *builder, n *physical.Deduplicate, ch []runner, out *arrow.Schema) (runner, error) {
	name := n.Name()
	op := ops.NewDeduplicate(n.Keys, n.KeepLast, n.Rowtime, n.TimeCol, n.Input.Schema(), out)
	return &unaryRunner{name: name, op: op, child: ch[0]}, nil
}

// buildChangelogNormalize builds a ChangelogNormalize.
func buildChangelogNormalize(b *builder, n *physical.ChangelogNormalize, ch []runner, out *arrow.Schema) (runner, error) {
	name := n.Name()
	op := ops.NewChangelogNormalize(n.Keys, n.Input.Schema(), out)
	return &unaryRunner{name: name, op: op, child: ch[0]}, nil
}
