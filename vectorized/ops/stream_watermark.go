package ops

import (
	"context"
	"math"

	"github.com/tablerun/tablerun/vectorized"
)

// inputMarkers combines the markers of the inputs of a multi-input
// streaming operator: the operator's watermark is the minimum of its
// inputs' watermarks (an ended input no longer holds it back, nor does an
// idle one: vectorized.Idle until vectorized.Active; when all are idle,
// the maximum of theirs), and EndOfInput is
// forwarded once every input has ended. Idle is forwarded when every open
// input is idle, Active when one of them is active again; the forwarded
// watermark never goes backwards.
type inputMarkers struct {
	wm      []int64
	ended   []bool
	idle    []bool
	last    int64
	open    int
	idleOut bool // Idle was forwarded
}

func newInputMarkers(n int) *inputMarkers {
	m := &inputMarkers{wm: make([]int64, n), ended: make([]bool, n), idle: make([]bool, n), last: math.MinInt64, open: n}
	for i := range m.wm {
		m.wm[i] = math.MinInt64
	}
	return m
}

// onMarker handles marker m of input side and forwards what follows from
// it.
func (im *inputMarkers) onMarker(ctx context.Context, side int, m vectorized.Marker, out vectorized.Collector) error {
	switch m.Kind {
	case vectorized.Watermark:
		if m.Watermark > im.wm[side] {
			im.wm[side] = m.Watermark
		}
		return im.advance(ctx, out)
	case vectorized.EndOfInput:
		if im.ended[side] {
			return nil
		}
		im.ended[side] = true
		im.open--
		if im.open > 0 {
			if err := im.advance(ctx, out); err != nil {
				return err
			}
			return im.idleChanged(ctx, out)
		}
		return out.EmitMarker(ctx, m)
	case vectorized.Idle, vectorized.Active:
		im.idle[side] = m.Kind == vectorized.Idle
		if err := im.advance(ctx, out); err != nil {
			return err
		}
		return im.idleChanged(ctx, out)
	}
	return out.EmitMarker(ctx, m)
}

// idleChanged forwards Idle when every open input became idle, Active when
// one of them is active again.
func (im *inputMarkers) idleChanged(ctx context.Context, out vectorized.Collector) error {
	if im.open == 0 {
		return nil
	}
	all := true
	for i := range im.idle {
		if !im.ended[i] && !im.idle[i] {
			all = false
			break
		}
	}
	if all == im.idleOut {
		return nil
	}
	im.idleOut = all
	kind := vectorized.Active
	if all {
		kind = vectorized.Idle
	}
	return out.EmitMarker(ctx, vectorized.Marker{Kind: kind})
}

// advance emits the minimum watermark of the open, active inputs when it
// grew. When every open input is idle it emits the maximum of their
// watermarks instead, as Flink's StatusWatermarkValve flushes them: no
// input will advance, so nothing holds the operator back.
func (im *inputMarkers) advance(ctx context.Context, out vectorized.Collector) error {
	lo, hi, active := int64(math.MaxInt64), int64(math.MinInt64), false
	for i, w := range im.wm {
		if im.ended[i] {
			continue
		}
		if !im.idle[i] {
			active = true
			lo = min(lo, w)
		}
		hi = max(hi, w)
	}
	if !active && im.open > 0 && hi != math.MinInt64 {
		lo = hi
	}
	if lo == math.MaxInt64 || lo <= im.last {
		return nil
	}
	im.last = lo
	return out.EmitMarker(ctx, vectorized.Marker{Kind: vectorized.Watermark, Watermark: lo})
}
