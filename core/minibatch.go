package core

import (
	"strings"

	"github.com/tablerun/tablerun/planner"
	"github.com/tablerun/tablerun/planner/physical"
)

// withMiniBatch adds the mini-batch and aggregation-phase options
// (table.exec.mini-batch.*, table.optimizer.agg-phase-strategy) to the
// planner options of a streaming job. They are validated here, when a
// job is planned, as Flink does: mini-batch on with allow-latency 0 or
// size <= 0 is an error.
func (e *TableEnvironment) withMiniBatch(o planner.Options) (planner.Options, error) {
	if !o.Streaming {
		// batch: two-phase HashAggregate (physical.ApplyBatchAggPhase)
		o.Stream.MiniBatch.Phase = strings.ToUpper(string(e.cfg.AggPhaseStrategy()))
		return o, nil
	}
	mb, err := e.cfg.MiniBatch()
	if err != nil {
		return o, err
	}
	o.Stream.MiniBatch = physical.MiniBatchOptions{
		Enabled:    mb.Enabled,
		IntervalMs: mb.Latency.Milliseconds(),
		Size:       mb.Size,
		Phase:      strings.ToUpper(string(e.cfg.AggPhaseStrategy())),
	}
	o.Stream.DistinctSplit = physical.DistinctSplitOptions{
		Enabled:   e.cfg.DistinctAggSplit(),
		BucketNum: e.cfg.DistinctAggSplitBuckets(),
	}
	return o, nil
}
