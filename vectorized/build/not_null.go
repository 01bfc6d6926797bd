package build

import (
	"github.com/tablerun/tablerun/planner/physical"
	"github.com/tablerun/tablerun/vectorized/ops"
)

// notNullEnforcer returns the check of the NOT NULL physical columns of a
// sink's table (Flink's table.exec.sink.not-null-enforcer), or nil when the
// table has none or the input cannot produce NULLs in them.
func (b *builder) notNullEnforcer(n *physical.Sink) *ops.NotNullEnforcer {
	if n.Table == nil || n.Table.Table == nil {
		return nil
	}
	phys := n.Table.Table.PhysicalSchema()
	in := n.Input.Schema()
	var cols []int
	var names []string
	for i, f := range phys {
		if i >= len(in) {
			break
		}
		if f.Type.NotNull && !in[i].Type.NotNull {
			cols = append(cols, i)
			names = append(names, f.Name)
		}
	}
	if len(cols) == 0 {
		return nil
	}
	return ops.NewNotNullEnforcer(cols, names, b.env.SinkNotNullDrop)
}
