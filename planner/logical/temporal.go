package logical

// TemporalJoinCondition is the marker conjunct an event-time temporal
// table join (JOIN t FOR SYSTEM_TIME AS OF <left rowtime>) adds to its
// condition, as Flink's __TEMPORAL_JOIN_CONDITION(leftTime, rightTime):
// it keeps both time attributes through the optimizer; the streaming
// translation turns the join into a TemporalJoin and removes it.
const TemporalJoinCondition = "__TEMPORAL_JOIN_CONDITION"

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
