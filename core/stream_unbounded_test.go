package core

import (
	"bytes"
	"context"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/changelog"
)

// unboundedGroupBy starts SELECT k, SUM(v) FROM g GROUP BY k over an
// unbounded datagen table (no 'number-of-rows') with keys distinct keys.
func unboundedGroupBy(t *testing.T, ctx context.Context, rate, keys int) *TableResult {
	t.Helper()
	e := NewTableEnvironment(InStreamingMode())
	_, err := e.ExecuteSQL(ctx, "CREATE TABLE g (k INT, v BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '"+
		strconv.Itoa(rate)+"', 'fields.k.min' = '1', 'fields.k.max' = '"+strconv.Itoa(keys)+"', 'fields.v.min' = '1', 'fields.v.max' = '9')")
	require.NoError(t, err)
	res, err := e.ExecuteSQL(ctx, "SELECT k, SUM(v) AS s FROM g GROUP BY k")
	require.NoError(t, err)
	t.Cleanup(func() { _ = res.Close() })
	return res
}

// TestUnboundedChangesKeepNothing reads 1 M changes of an unbounded query
// through the iterator: the Go heap after GC stays flat (the result used
// to keep every change: ~100 bytes each, 100 MB here).
func TestUnboundedChangesKeepNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 1 M changes")
	}
	res := unboundedGroupBy(t, context.Background(), 1_000_000, 1000)
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapInuse
	}
	const total, every = 1_000_000, 100_000
	var base, peak uint64
	n := 0
	kinds := map[changelog.RowKind]int{}
	for k := range res.Changes() {
		kinds[k]++
		n++
		if n%every == 0 {
			h := heap()
			if n == every {
				base = h
			}
			peak = max(peak, h)
		}
		if n == total {
			break
		}
	}
	require.Equal(t, total, n)
	require.NoError(t, res.Close())
	require.Positive(t, kinds[changelog.UpdateAfter])
	require.Equal(t, kinds[changelog.UpdateBefore], kinds[changelog.UpdateAfter])
	// 1 M kept changes would be ~100 MB; allow 32 MB of noise.
	require.Less(t, peak, base+32<<20, "heap grew from %d MB to %d MB over %d changes", base>>20, peak>>20, total)
	t.Logf("heap after GC: %d MB after %d changes, at most %d MB up to %d", base>>20, every, peak>>20, total)
}

// stampedWriter records when each write happened.
type stampedWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes []time.Time
}

func (w *stampedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes = append(w.writes, time.Now())
	return w.buf.Write(p)
}

func (w *stampedWriter) snapshot() (string, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String(), len(w.writes)
}

// TestUnboundedPrintStreams prints an unbounded query in the tableau
// layout: rows show while the job runs (written in many flushes, not at
// the end), and the cancellation of the statement's context ends it
// promptly with Flink's "Query terminated" line and MsgQueryCanceled.
func TestUnboundedPrintStreams(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res := unboundedGroupBy(t, ctx, 50, 5)
	w := &stampedWriter{}
	done := make(chan error, 1)
	go func() { done <- PrintClientResult(w, nil, res, nil) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		text, writes := w.snapshot()
		if strings.Count(text, "| +U |") >= 3 && writes >= 4 {
			break
		}
		require.True(t, time.Now().Before(deadline), "no rows while the query runs:\n%s", text)
		time.Sleep(20 * time.Millisecond)
	}
	stop := time.Now()
	cancel()
	select {
	case err := <-done:
		require.True(t, IsCanceled(err), "%v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("cancellation did not end the query")
	}
	require.Less(t, time.Since(stop), time.Second)
	text, _ := w.snapshot()
	require.Contains(t, text, "Query terminated, received a total of ")
	require.True(t, strings.HasSuffix(text, MsgQueryCanceled+"\n"), text)
	require.NotContains(t, text, "java.")
}

// TestFollowFlushesPromptly checks the flush timer: a slow stream's
// changes are flushed within DefaultFlushInterval (plus scheduling slack)
// of being applied.
func TestFollowFlushesPromptly(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	res := unboundedGroupBy(t, context.Background(), 20, 3)
	var applied time.Time
	var lags []time.Duration
	err := res.Follow(ctx, DefaultFlushInterval, func(b ChangeBatch) error {
		if applied.IsZero() {
			applied = time.Now()
		}
		return nil
	}, func() error {
		lags = append(lags, time.Since(applied))
		applied = time.Time{}
		return nil
	})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.GreaterOrEqual(t, len(lags), 5)
	for _, l := range lags {
		require.Less(t, l, 200*time.Millisecond, "lags %v", lags)
	}
}

func TestView(t *testing.T) {
	v := NewView(0)
	v.Apply(changelog.Insert, Row{int64(1), int64(1)})
	v.Apply(changelog.Insert, Row{int64(2), int64(1)})
	v.Apply(changelog.UpdateBefore, Row{int64(1), int64(1)})
	require.True(t, v.Pending())
	v.Apply(changelog.UpdateAfter, Row{int64(1), int64(2)})
	require.False(t, v.Pending())
	v.Apply(changelog.Delete, Row{int64(9), int64(9)}) // not there: no change
	require.Equal(t, []Row{{int64(2), int64(1)}, {int64(1), int64(2)}}, v.Rows())
	v.Apply(changelog.Delete, Row{int64(2), int64(1)})
	require.Equal(t, []Row{{int64(1), int64(2)}}, v.Rows())
	// duplicates: each retraction removes one of them
	v.Apply(changelog.Insert, Row{"x", nil})
	v.Apply(changelog.Insert, Row{"x", nil})
	v.Apply(changelog.Delete, Row{"x", nil})
	require.Equal(t, []Row{{int64(1), int64(2)}, {"x", nil}}, v.Rows())
	require.EqualValues(t, 9, v.Changes())

	// many updates of few keys: compaction keeps the order and the index
	v = NewView(0)
	for i := 0; i < 10_000; i++ {
		k := int64(i % 3)
		if i >= 3 {
			v.Apply(changelog.UpdateBefore, Row{k, int64(i - 3)})
		}
		v.Apply(changelog.UpdateAfter, Row{k, int64(i)})
	}
	require.Equal(t, []Row{{int64(1), int64(9997)}, {int64(2), int64(9998)}, {int64(0), int64(9999)}}, v.Rows())
	require.LessOrEqual(t, len(v.entries.s), 2*1024+3)

	// the cap drops the oldest rows and counts them
	v = NewView(2)
	for i := 0; i < 5; i++ {
		v.Apply(changelog.Insert, Row{int64(i)})
	}
	require.Equal(t, []Row{{int64(3)}, {int64(4)}}, v.Rows())
	require.EqualValues(t, 3, v.Cut())
	v.Apply(changelog.Delete, Row{int64(0)}) // cut already: ignored
	require.Equal(t, 2, v.Len())
	require.Equal(t, []Row{{int64(3)}}, v.First(1))
	require.Equal(t, []Row{{int64(4)}}, v.Last(1))
}

// TestMaterializeNeverHalfApplied follows an unbounded GROUP BY through
// Materialize: once every key has been seen, every view it yields has one
// row per key, never one too few (a -U applied without its +U).
func TestMaterializeNeverHalfApplied(t *testing.T) {
	const keys = 50
	res := unboundedGroupBy(t, context.Background(), 200000, keys)
	full := 0
	for v := range res.Materialize(0) {
		require.False(t, v.Pending())
		seen := map[any]bool{}
		for _, r := range v.Rows() {
			require.False(t, seen[r[0]], "key %v twice", r[0])
			seen[r[0]] = true
		}
		if full > 0 || len(seen) == keys {
			require.Len(t, seen, keys, "a view with a group missing")
			if full++; full == 100 {
				break
			}
		}
	}
	require.Equal(t, 100, full)
}
