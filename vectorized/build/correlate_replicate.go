package build

import (
	"fmt"

	"github.com/tablerun/tablerun/core/function"
)

// replicateRows is Flink's ReplicateRows table function (INTERSECT ALL and
// EXCEPT ALL, planner/physical/stream_setop.go): called with (n, v1, …)
// it emits the row (v1, …) n times.
type replicateRows struct{}

// Rows implements udf.TableFunc.
func (replicateRows) Rows(_ *function.EvalContext, args []any, emit func(row []any) error) error {
	if len(args) == 0 {
		return fmt.Errorf("internal: ReplicateRows without a count")
	}
	n, ok := args[0].(int64)
	if !ok {
		return fmt.Errorf("internal: ReplicateRows count %T", args[0])
	}
	for i := int64(0); i < n; i++ {
		if err := emit(args[1:]); err != nil {
			return err
		}
	}
	return nil
}
