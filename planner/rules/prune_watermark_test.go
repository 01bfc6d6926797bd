package rules

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

func TestPruneThroughWatermarkAssigner(t *testing.T) {
	tsT := types.TimestampOf(3)
	tests := []struct {
		name      string
		connector string
		abilities catalog.Abilities // what the connector declares
		pick      []int             // columns the top projection reads, in order
		want      string
	}{
		{"datagen keeps its scan, a Calc reorders below the assigner", "datagen", catalog.Abilities{}, []int{2, 0},
			"LogicalProject(c=[$0], a=[$1])\n" +
				"+- LogicalWatermarkAssigner(rowtime=[ts], watermark=[$2])\n" +
				"   +- LogicalProject(c=[$2], a=[$0], ts=[$3])\n" +
				"      +- LogicalTableScan(table=[[default_catalog, default_database, ev]])\n"},
		{"a projecting source reads what is used", "values", catalog.Abilities{ProjectionPushDown: true}, []int{0, 1},
			"LogicalProject(a=[$0], b=[$1])\n" +
				"+- LogicalWatermarkAssigner(rowtime=[ts], watermark=[$2])\n" +
				"   +- LogicalTableScan(table=[[default_catalog, default_database, ev, project=[a, b, ts]]])\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tbl := table("ev", field("a", intT), field("b", intT), field("c", strT), field("ts", tsT))
			tbl.Table.Options["connector"] = tt.connector
			tbl.Abilities = &tt.abilities
			scan := scanOf(tbl)
			wa := &logical.WatermarkAssigner{Input: scan, Rowtime: 3, Expr: ref(scan, 3)}
			var exprs []logical.Expr
			var names []string
			for _, i := range tt.pick {
				exprs = append(exprs, ref(wa, i))
				names = append(names, scan.Out[i].Name)
			}
			out, err := Optimize(project(wa, names, exprs...), testRegistry(), &function.EvalContext{}, nil)
			require.NoError(t, err)
			require.Equal(t, tt.want, show(out))
		})
	}
}
