package ops

import (
	"context"
	"math"

	"github.com/tablerun/tablerun/vectorized"
)

// RowTimeMiniBatchAssigner is the MiniBatchAssigner of event-time
// pipelines (Flink's RowTimeMiniBatchAssginerOperator, mode RowTime): rows
// pass unchanged; a watermark is forwarded only once it reached the last
// millisecond of the interval the previously forwarded one was in (so
// watermarks advance downstream in steps of at least the interval), and
// an EndOfBundle marker goes right before it. A bundle also closes after
// size rows. The watermark Long.MAX_VALUE (the end of the input) always
// passes.
type RowTimeMiniBatchAssigner struct {
	interval int64
	size     int64
	rows     int64
	wm       int64 // the largest watermark received
	next     int64 // the watermark to reach before forwarding
}

var _ vectorized.Operator = (*RowTimeMiniBatchAssigner)(nil)

// NewRowTimeMiniBatchAssigner returns the assigner of bundles of at most
// size rows (<= 0: no limit) closed by watermarks advancing by intervalMs
// milliseconds (<= 0: every advancing watermark).
func NewRowTimeMiniBatchAssigner(intervalMs, size int64) *RowTimeMiniBatchAssigner {
	return &RowTimeMiniBatchAssigner{interval: intervalMs, size: size, wm: math.MinInt64, next: math.MinInt64}
}

// Open implements vectorized.Operator.
func (m *RowTimeMiniBatchAssigner) Open(context.Context) error { return nil }

// Process implements vectorized.Operator.
func (m *RowTimeMiniBatchAssigner) Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	n := b.NumRows()
	if n == 0 {
		return nil
	}
	if err := out.Emit(ctx, b); err != nil {
		return err
	}
	m.rows += int64(n)
	if m.size > 0 && m.rows >= m.size {
		m.rows = 0
		return out.EmitMarker(ctx, bundleEnd)
	}
	return nil
}

// OnMarker implements vectorized.Operator: watermarks are filtered as the
// type describes; other markers pass through.
func (m *RowTimeMiniBatchAssigner) OnMarker(ctx context.Context, mk vectorized.Marker, out vectorized.Collector) error {
	switch mk.Kind {
	case vectorized.EndOfBundle:
		m.rows = 0
	case vectorized.Watermark:
		if mk.Watermark <= m.wm {
			return nil
		}
		m.wm = mk.Watermark
		if m.wm < m.next && m.wm != math.MaxInt64 {
			return nil
		}
		m.next = m.nextBoundary(m.wm)
		m.rows = 0
		if err := out.EmitMarker(ctx, bundleEnd); err != nil {
			return err
		}
	}
	return out.EmitMarker(ctx, mk)
}

// nextBoundary returns the last millisecond of the interval wm is in, or
// of the next one when wm is that millisecond.
func (m *RowTimeMiniBatchAssigner) nextBoundary(wm int64) int64 {
	if m.interval <= 0 || wm == math.MaxInt64 {
		return wm
	}
	r := wm % m.interval
	if r < 0 {
		r += m.interval
	}
	end := wm - r + m.interval - 1
	if end > wm {
		return end
	}
	if end > math.MaxInt64-m.interval {
		return math.MaxInt64
	}
	return end + m.interval
}

// Close implements vectorized.Operator.
func (m *RowTimeMiniBatchAssigner) Close() error { return nil }
