package connectors

import (
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/vectorized"
)

// WatermarkPushDownSource is a source that generates its watermarks per
// split, as Flink's sources that support watermark push-down do (the
// kafka source: one generator per partition). When a WatermarkAssigner
// reads such a scan (directly, or through a Calc without a condition,
// whose projections the expression is rewritten over), the executor
// hands the expression to the source and the assigner only keeps the
// watermarks it receives monotonic (vectorized/build/watermark_pushdown.go).
type WatermarkPushDownSource interface {
	vectorized.Source
	// PushWatermark makes the source emit Watermark markers: eval computes
	// the watermark of each output row (a TIMESTAMP or TIMESTAMP_LTZ
	// array; NULL: none), each split keeps the maximum of its rows' (Flink's
	// generator), and the source's watermark is the minimum over the
	// splits that are not idle, emitted after the batch (or the idleness)
	// that advanced it. A split without records for idleTimeout (0: never;
	// the table's scan.watermark.idle-timeout overrides it) is idle; when
	// every split is, the source emits vectorized.Idle, and Active before
	// its next rows. It is called before Open.
	PushWatermark(eval func(rec arrow.RecordBatch) (arrow.Array, error), idleTimeout time.Duration) error
}
