package ops

import (
	"context"
	"math"

	"github.com/tablerun/tablerun/vectorized"
)

// inputMarkers combines the markers of the inputs of a multi-input
// streaming operator: the operator's watermark is the minimum of its
// inputs' watermarks (an ended input no longer holds it back), and
// EndOfInput is forwarded once every input has ended.
type inputMarkers struct {
	wm    []int64
	ended []bool
	last  int64
	open  int
}

func newInputMarkers(n int) *inputMarkers {
	m := &inputMarkers{wm: make([]int64, n), ended: make([]bool, n), last: math.MinInt64, open: n}
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
			return im.advance(ctx, out)
		}
		return out.EmitMarker(ctx, m)
	}
	return out.EmitMarker(ctx, m)
}

// advance emits the minimum watermark of the open inputs when it grew.
func (im *inputMarkers) advance(ctx context.Context, out vectorized.Collector) error {
	lo := int64(math.MaxInt64)
	for i, w := range im.wm {
		if !im.ended[i] && w < lo {
			lo = w
		}
	}
	if lo == math.MaxInt64 || lo <= im.last {
		return nil
	}
	im.last = lo
	return out.EmitMarker(ctx, vectorized.Marker{Kind: vectorized.Watermark, Watermark: lo})
}
