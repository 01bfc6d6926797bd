package vectorized

import (
	"context"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"
)

type kindLog struct{ kinds []string }

func (l *kindLog) Emit(_ context.Context, b Batch) error {
	l.kinds = append(l.kinds, "rows")
	return nil
}

func (l *kindLog) EmitMarker(_ context.Context, m Marker) error {
	switch m.Kind {
	case Idle:
		l.kinds = append(l.kinds, "idle")
	case Active:
		l.kinds = append(l.kinds, "active")
	default:
		l.kinds = append(l.kinds, "marker")
	}
	return nil
}

func oneRow(t *testing.T) Batch {
	t.Helper()
	s := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(Mem, s)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).Append(1)
	return Batch{Rec: b.NewRecordBatch()}
}

// TestSourceCollectorIdle: a source that waits through Sleep or WaitOn is
// marked idle after the timeout, on its own goroutine, and active before
// its next rows.
func TestSourceCollectorIdle(t *testing.T) {
	ctx := context.Background()
	log := &kindLog{}
	ic := NewSourceCollector(log, 5*time.Millisecond)
	defer ic.Stop()
	require.NoError(t, Sleep(ctx, ic, time.Millisecond))
	require.Empty(t, log.kinds)
	require.NoError(t, Sleep(ctx, ic, 20*time.Millisecond))
	require.Equal(t, []string{"idle"}, log.kinds)
	require.True(t, ic.Idle())
	require.NoError(t, ic.Emit(ctx, Batch{}))
	require.Equal(t, []string{"idle", "rows"}, log.kinds, "an empty batch is no rows")
	require.NoError(t, ic.Emit(ctx, oneRow(t)))
	require.Equal(t, []string{"idle", "rows", "active", "rows"}, log.kinds)

	ch := make(chan int)
	go func() {
		time.Sleep(20 * time.Millisecond)
		ch <- 7
	}()
	v, ok, err := WaitOn(ctx, ic, ch)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, 7, v)
	require.Equal(t, []string{"idle", "rows", "active", "rows", "idle"}, log.kinds)

	// A collector without idleness just waits; cancellation ends a wait.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	require.ErrorIs(t, Sleep(cctx, log, time.Hour), context.Canceled)
	_, _, err = WaitOn(cctx, log, ch)
	require.ErrorIs(t, err, context.Canceled)
}

// TestSourceCollectorSignal: Signal, from another goroutine, runs the
// OnWake hooks on the waiting source's goroutine; without an idle timeout
// the source is never idle.
func TestSourceCollectorSignal(t *testing.T) {
	ctx := context.Background()
	log := &kindLog{}
	sc := NewSourceCollector(log, 0)
	defer sc.Stop()
	woken := 0
	sc.OnWake(func(ctx context.Context) error {
		woken++
		return sc.out.EmitMarker(ctx, Marker{Kind: CheckpointBarrier})
	})
	go func() {
		time.Sleep(5 * time.Millisecond)
		sc.Signal()
	}()
	require.NoError(t, Sleep(ctx, sc, 40*time.Millisecond))
	require.Equal(t, 1, woken)
	require.Equal(t, []string{"marker"}, log.kinds)
	require.False(t, sc.Idle())
}
