package logical

import "github.com/tablerun/tablerun/core/function"

// TemporalJoinCondition is the marker conjunct an event-time temporal
// table join (JOIN t FOR SYSTEM_TIME AS OF <left rowtime>) adds to its
// condition, as Flink's __TEMPORAL_JOIN_CONDITION(leftTime, rightTime):
// it keeps both time attributes through the optimizer; the streaming
// translation turns the join into a TemporalJoin and removes it.
const TemporalJoinCondition = "__TEMPORAL_JOIN_CONDITION"

// TemporalJoinConditionDef is the marker's definition (internal: never
// evaluated, never folded).
var TemporalJoinConditionDef = function.Internal(TemporalJoinCondition, function.Scalar)

// CurrentWatermarkDef is CURRENT_WATERMARK(rowtime)'s definition: the
// validator binds it (planner/validate/window.go) and the streaming
// translation turns the Calc that calls it into a WatermarkCalc; it has no
// row-wise implementation and is never folded.
var CurrentWatermarkDef = function.Internal("CURRENT_WATERMARK", function.Scalar)

// EventTimeTemporal reports whether j is an event-time temporal table
// join (its condition holds the TemporalJoinCondition marker). A
// condition on its right side must stay in the join: it applies to the
// version valid at each left row's time, not to every version.
func EventTimeTemporal(j *Join) bool {
	if !j.Temporal || j.Cond == nil {
		return false
	}
	for _, c := range Conjuncts(j.Cond) {
		if call, ok := c.(*Call); ok && call.Name == TemporalJoinCondition {
			return true
		}
	}
	return false
}
