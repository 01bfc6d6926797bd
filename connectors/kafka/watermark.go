package kafka

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// Watermarks per partition (connectors.WatermarkPushDownSource).
//
// As Flink's KafkaSource with a pushed-down watermark strategy, every
// partition has a watermark of its own, the maximum of its rows'
// watermarks (the DDL's expression); the source's watermark is the
// minimum over the partitions that are neither idle nor finished (a
// bounded partition at its stopping offset). So rows of a partition that
// lags behind the others are not late because the others went ahead. A
// partition without records for the idle timeout (scan.watermark.idle-
// timeout, or table.exec.source.idle-timeout) is idle and does not hold
// the watermark back until its next record; when every partition is idle
// the source emits Idle (and Active before its next rows), its watermark
// staying where it was, as Flink's combined watermark of idle splits. The
// watermarks are not checkpointed (neither are Flink's per-split
// generators): a restored source starts them anew, and the assigner after
// it keeps what it forwards monotonic.

type splitWatermarks struct {
	eval    func(rec arrow.RecordBatch) (arrow.Array, error)
	timeout time.Duration // 0: partitions are never idle

	index   map[TopicPartition]int32
	parts   []TopicPartition
	wm      []int64 // by partition index: the maximum row watermark so far
	last    []time.Time
	idle    []bool
	rowPart []int32   // the partition of every decoded row not emitted yet
	emitted int64     // the last watermark emitted
	start   time.Time // when the watermark was pushed (an instance without partitions is idle after the timeout)
	idleOut bool      // Idle was emitted (every partition idle)
}

var _ interface {
	PushWatermark(func(arrow.RecordBatch) (arrow.Array, error), time.Duration) error
} = (*Source)(nil)

// PushWatermark implements connectors.WatermarkPushDownSource.
func (s *Source) PushWatermark(eval func(rec arrow.RecordBatch) (arrow.Array, error), idleTimeout time.Duration) error {
	if eval == nil {
		return fmt.Errorf("kafka: no watermark expression")
	}
	if s.cfg.WatermarkIdleSet {
		idleTimeout = s.cfg.WatermarkIdle
	}
	s.wms = &splitWatermarks{eval: eval, timeout: idleTimeout, index: map[TopicPartition]int32{}, emitted: math.MinInt64, start: time.Now()}
	return nil
}

// add starts the watermark of a partition the source begins to read.
func (w *splitWatermarks) add(tp TopicPartition) int32 {
	if i, ok := w.index[tp]; ok {
		return i
	}
	i := int32(len(w.parts))
	w.index[tp] = i
	w.parts = append(w.parts, tp)
	w.wm = append(w.wm, math.MinInt64)
	w.last = append(w.last, time.Now())
	w.idle = append(w.idle, false)
	return i
}

// record notes a record of tp that decoded into rows rows.
func (w *splitWatermarks) record(tp TopicPartition, rows int, now time.Time) {
	i := w.add(tp)
	w.last[i] = now
	w.idle[i] = false
	for range rows {
		w.rowPart = append(w.rowPart, i)
	}
}

// observe takes the row watermarks of rec (the rows of rowPart, in order)
// into their partitions' watermarks.
func (w *splitWatermarks) observe(rec arrow.RecordBatch) error {
	defer func() { w.rowPart = w.rowPart[:0] }()
	if rec.NumRows() == 0 {
		return nil
	}
	if int(rec.NumRows()) != len(w.rowPart) {
		return fmt.Errorf("kafka: internal: %d rows, %d row partitions", rec.NumRows(), len(w.rowPart))
	}
	arr, err := w.eval(rec)
	if err != nil {
		return fmt.Errorf("watermark expression: %w", err)
	}
	defer arr.Release()
	ts, ok := arr.(*array.Timestamp)
	if !ok {
		return fmt.Errorf("watermark expression: a timestamp is needed, got %s", arr.DataType())
	}
	unit := ts.DataType().(*arrow.TimestampType).Unit
	for r, p := range w.rowPart {
		if ts.IsNull(r) {
			continue
		}
		if ms := types.UnitMillis(int64(ts.Value(r)), unit); ms > w.wm[p] {
			w.wm[p] = ms
		}
	}
	return nil
}

// markIdle marks the partitions without records for the timeout idle.
func (w *splitWatermarks) markIdle(now time.Time, done map[TopicPartition]bool) {
	if w.timeout <= 0 {
		return
	}
	for i, tp := range w.parts {
		if !w.idle[i] && !done[tp] && now.Sub(w.last[i]) >= w.timeout {
			w.idle[i] = true
		}
	}
}

// active is called before rows are emitted: after Idle, Active first.
func (w *splitWatermarks) active(ctx context.Context, out vectorized.Collector) error {
	if !w.idleOut {
		return nil
	}
	w.idleOut = false
	return out.EmitMarker(ctx, vectorized.Marker{Kind: vectorized.Active})
}

// emit emits the source's watermark when it advanced, or Idle when every
// partition still open is idle.
func (w *splitWatermarks) emit(ctx context.Context, out vectorized.Collector, done map[TopicPartition]bool) error {
	lo, open, anyIdle := int64(math.MaxInt64), false, false
	for i, tp := range w.parts {
		if done[tp] {
			continue
		}
		if w.idle[i] {
			anyIdle = true
			continue
		}
		open = true
		lo = min(lo, w.wm[i])
	}
	if !open {
		// An instance that owns no partition (more instances than
		// partitions) is idle after the timeout too, as Flink's reader
		// without splits is with an idleness timeout.
		none := len(w.parts) == 0 && w.timeout > 0 && time.Since(w.start) >= w.timeout
		if (anyIdle || none) && !w.idleOut {
			w.idleOut = true
			return out.EmitMarker(ctx, vectorized.Marker{Kind: vectorized.Idle})
		}
		return nil
	}
	if lo == math.MinInt64 || lo <= w.emitted {
		return nil
	}
	if err := w.active(ctx, out); err != nil {
		return err
	}
	w.emitted = lo
	return out.EmitMarker(ctx, vectorized.Marker{Kind: vectorized.Watermark, Watermark: lo})
}

// idleTick is how often the source looks for partitions that became idle.
func (w *splitWatermarks) idleTick() time.Duration {
	return min(max(w.timeout/4, 10*time.Millisecond), 200*time.Millisecond)
}

// emitWatermark marks idle partitions and emits what changed.
func (s *Source) emitWatermark(ctx context.Context, out vectorized.Collector) error {
	if s.wms == nil {
		return nil
	}
	s.wms.markIdle(time.Now(), s.done)
	return s.wms.emit(ctx, out, s.done)
}
