package build

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/vectorized"
)

// markerLog records the markers a merger forwards.
type markerLog struct{ got []string }

func (l *markerLog) Emit(context.Context, vectorized.Batch) error { return nil }

func (l *markerLog) EmitMarker(_ context.Context, m vectorized.Marker) error {
	switch m.Kind {
	case vectorized.Watermark:
		l.got = append(l.got, fmt.Sprintf("wm %d", m.Watermark))
	case vectorized.Idle:
		l.got = append(l.got, "idle")
	case vectorized.Active:
		l.got = append(l.got, "active")
	case vectorized.EndOfInput:
		l.got = append(l.got, "end")
	}
	return nil
}

// TestMergerIdle: a hub consumer leaves idle producers out of the
// minimum watermark, flushes the maximum and forwards Idle when every
// live producer is idle.
func TestMergerIdle(t *testing.T) {
	ctx := context.Background()
	wm := func(from int, v int64) hubItem {
		return hubItem{from: from, marker: &vectorized.Marker{Kind: vectorized.Watermark, Watermark: v}}
	}
	kind := func(from int, k vectorized.MarkerKind) hubItem {
		return hubItem{from: from, marker: &vectorized.Marker{Kind: k}}
	}
	log := &markerLog{}
	m := &merger{out: log, ps: make([]producerState, 3), lastWM: math.MinInt64}
	for i := range m.ps {
		m.ps[i].watermark = math.MinInt64
	}
	for _, it := range []hubItem{
		wm(0, 100), wm(1, 200), // producer 2 is silent: nothing passes
		kind(2, vectorized.Idle), // now 100
		wm(0, 300),               // 200
		kind(0, vectorized.Idle), // 200 still (producer 1)
		kind(1, vectorized.Idle), // all idle: the maximum, 300, is flushed
		kind(2, vectorized.Active),
		wm(2, 250), // behind: the merged watermark stays
		wm(2, 350), // 350
	} {
		require.NoError(t, m.handle(ctx, it))
	}
	require.NoError(t, m.end(ctx, 2)) // the other two are idle
	require.NoError(t, m.end(ctx, 0))
	require.NoError(t, m.end(ctx, 1))
	require.Equal(t, []string{"wm 100", "wm 200", "wm 300", "idle", "active", "wm 350", "idle", "end"}, log.got)
}
