package ops

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// multiMarkers is the marker side of a multi-input operator.
type multiMarkers interface {
	OnMarker(ctx context.Context, side int, m vectorized.Marker, out vectorized.Collector) error
}

func markerText(ms []vectorized.Marker) []string {
	var out []string
	for _, m := range ms {
		switch m.Kind {
		case vectorized.Watermark:
			out = append(out, fmt.Sprintf("wm %d", m.Watermark))
		case vectorized.Idle:
			out = append(out, "idle")
		case vectorized.Active:
			out = append(out, "active")
		case vectorized.EndOfInput:
			out = append(out, "end")
		default:
			out = append(out, fmt.Sprintf("kind %d", m.Kind))
		}
	}
	return out
}

// TestMultiInputIdle: an idle input does not hold the minimum watermark
// back; Idle passes when every open input is idle, Active when one is
// active again; the watermark never goes back.
func TestMultiInputIdle(t *testing.T) {
	s := types.Schema{{Name: "k", Type: types.IntT}}
	as := mustArrow(t, s)
	wm := func(v int64) vectorized.Marker { return vectorized.Marker{Kind: vectorized.Watermark, Watermark: v} }
	idle := vectorized.Marker{Kind: vectorized.Idle}
	active := vectorized.Marker{Kind: vectorized.Active}
	end := vectorized.Marker{Kind: vectorized.EndOfInput}
	type step struct {
		side int
		m    vectorized.Marker
	}
	tests := []struct {
		name  string
		steps []step
		want  []string
	}{
		{"silent input holds the watermark", []step{{0, wm(100)}, {0, wm(200)}}, nil},
		{"idle input is left out", []step{{0, wm(100)}, {1, idle}, {0, wm(200)}},
			[]string{"wm 100", "wm 200"}},
		{"all idle forwards idle, then active", []step{{1, idle}, {0, wm(100)}, {0, idle}, {1, active}, {1, wm(50)}, {1, wm(150)}, {0, active}, {0, wm(300)}},
			[]string{"wm 100", "idle", "active", "wm 150"}},
		{"all idle flushes the maximum", []step{{0, wm(100)}, {0, idle}, {1, idle}},
			[]string{"wm 100", "idle"}},
		{"ended and idle", []step{{0, wm(10)}, {1, wm(5)}, {1, idle}, {0, end}, {1, active}, {1, end}},
			[]string{"wm 5", "wm 10", "idle", "active", "end"}},
	}
	ops := map[string]func() multiMarkers{
		"StreamUnion": func() multiMarkers { return NewStreamUnion(2, as) },
		"StreamJoin": func() multiMarkers {
			return NewStreamJoin(StreamJoinSpec{LeftKeys: []int{0}, RightKeys: []int{0}, Left: s, Right: s, Out: append(append(types.Schema{}, s...), s...)})
		},
	}
	for opName, mk := range ops {
		for _, tc := range tests {
			t.Run(opName+"/"+tc.name, func(t *testing.T) {
				op := mk()
				c := &collector{}
				for _, st := range tc.steps {
					require.NoError(t, op.OnMarker(context.Background(), st.side, st.m, c))
				}
				require.Equal(t, tc.want, markerText(c.markers))
			})
		}
	}
}

// TestWatermarkAssignerPassesIdleness: Idle and Active pass the assigner.
func TestWatermarkAssignerPassesIdleness(t *testing.T) {
	w := NewWatermarkAssigner(nil)
	c := &collector{}
	for _, k := range []vectorized.MarkerKind{vectorized.Idle, vectorized.Active, vectorized.EndOfInput} {
		require.NoError(t, w.OnMarker(context.Background(), vectorized.Marker{Kind: k}, c))
	}
	require.Equal(t, []string{"idle", "active", fmt.Sprintf("wm %d", int64(math.MaxInt64)), "end"}, markerText(c.markers))
}
