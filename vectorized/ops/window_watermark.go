package ops

import (
	"context"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tablerun/tablerun/vectorized"
)

// WatermarkAssigner forwards its input and, after each batch, emits the
// largest watermark its expression produced so far when it grew (Flink's
// periodic emission, once per batch). At the end of the input it emits a
// final watermark of math.MaxInt64 (Flink's Long.MAX_VALUE), which fires
// every pending window.
type WatermarkAssigner struct {
	expr Evaluator
	wm   int64
}

// NewWatermarkAssigner returns the operator; expr computes the watermark
// (a TIMESTAMP or TIMESTAMP_LTZ) of each row.
func NewWatermarkAssigner(expr Evaluator) *WatermarkAssigner {
	return &WatermarkAssigner{expr: expr, wm: math.MinInt64}
}

// Watermark returns the current watermark (math.MinInt64 before any).
func (w *WatermarkAssigner) Watermark() int64 { return w.wm }

// Open implements vectorized.Operator.
func (w *WatermarkAssigner) Open(context.Context) error { return nil }

// Process implements vectorized.Operator.
func (w *WatermarkAssigner) Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	n := b.NumRows()
	if n == 0 {
		return out.Emit(ctx, b)
	}
	arr, err := w.expr.Eval(b.Rec)
	if err != nil {
		return fmt.Errorf("watermark expression: %w", err)
	}
	hi := w.wm
	for i := range n {
		ms, ok, err := eventMillis(arr, i)
		if err != nil {
			arr.Release()
			return err
		}
		if ok && ms > hi {
			hi = ms
		}
	}
	arr.Release()
	if err := out.Emit(ctx, b); err != nil {
		return err
	}
	if hi > w.wm {
		w.wm = hi
		return out.EmitMarker(ctx, vectorized.Marker{Kind: vectorized.Watermark, Watermark: hi})
	}
	return nil
}

// OnMarker implements vectorized.Operator: the source's own watermarks
// are replaced by the assigner's; EndOfInput is preceded by the final
// watermark. Idle and Active (a silent source, table.exec.source.idle-timeout)
// pass through unchanged, like every other marker.
func (w *WatermarkAssigner) OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error {
	switch m.Kind {
	case vectorized.Watermark:
		return nil
	case vectorized.EndOfInput:
		if w.wm < math.MaxInt64 {
			w.wm = math.MaxInt64
			if err := out.EmitMarker(ctx, vectorized.Marker{Kind: vectorized.Watermark, Watermark: math.MaxInt64}); err != nil {
				return err
			}
		}
	}
	return out.EmitMarker(ctx, m)
}

// Close implements vectorized.Operator.
func (w *WatermarkAssigner) Close() error { return nil }

// WatermarkCalc runs a Calc whose expressions read the current watermark
// (CURRENT_WATERMARK): every batch gets an extra last column holding the
// latest watermark that passed (NULL before the first) before the Calc
// sees it.
type WatermarkCalc struct {
	calc *Calc
	dt   *arrow.TimestampType
	in   *arrow.Schema
	wm   int64
	seen bool
}

// NewWatermarkCalc returns the operator: calc reads the input's columns
// followed by the watermark column of type dt (in is that extended
// schema).
func NewWatermarkCalc(calc *Calc, in *arrow.Schema, dt *arrow.TimestampType) *WatermarkCalc {
	return &WatermarkCalc{calc: calc, dt: dt, in: in}
}

// Open implements vectorized.Operator.
func (w *WatermarkCalc) Open(ctx context.Context) error { return w.calc.Open(ctx) }

// Process implements vectorized.Operator.
func (w *WatermarkCalc) Process(ctx context.Context, b vectorized.Batch, out vectorized.Collector) error {
	n := b.NumRows()
	bl := array.NewTimestampBuilder(vectorized.Mem, w.dt)
	defer bl.Release()
	if w.seen && w.wm != math.MinInt64 && w.wm != math.MaxInt64 {
		v := w.wm * 1000 // micros
		if w.dt.Unit == arrow.Nanosecond {
			v *= 1000
		}
		for range n {
			bl.Append(arrow.Timestamp(v))
		}
	} else {
		bl.AppendNulls(n)
	}
	cols := append(append([]arrow.Array{}, b.Rec.Columns()...), bl.NewArray())
	rec, err := NewRecord(w.in, cols, int64(n))
	if err != nil {
		return fmt.Errorf("CURRENT_WATERMARK: %w", err)
	}
	return w.calc.Process(ctx, vectorized.Batch{Rec: rec, Kinds: b.Kinds}, out)
}

// OnMarker implements vectorized.Operator.
func (w *WatermarkCalc) OnMarker(ctx context.Context, m vectorized.Marker, out vectorized.Collector) error {
	if m.Kind == vectorized.Watermark && (!w.seen || m.Watermark > w.wm) {
		w.wm, w.seen = m.Watermark, true
	}
	return w.calc.OnMarker(ctx, m, out)
}

// Close implements vectorized.Operator.
func (w *WatermarkCalc) Close() error { return w.calc.Close() }
