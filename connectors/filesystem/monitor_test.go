package filesystem

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/internal/statetest"
	"github.com/tablerun/tablerun/vectorized"
)

// chanCollector records what a running source emits.
type chanCollector struct {
	mu      sync.Mutex
	rows    []string
	markers []vectorized.MarkerKind
	onRows  func(rows []string) // called on the source's goroutine
	schema  types.Schema
}

func (c *chanCollector) Emit(_ context.Context, b vectorized.Batch) error {
	var rows []string
	for _, r := range types.RecordRows(b.Rec, c.schema) {
		rows = append(rows, fmt.Sprint(r))
	}
	c.mu.Lock()
	c.rows = append(c.rows, rows...)
	c.mu.Unlock()
	if c.onRows != nil {
		c.onRows(rows)
	}
	return nil
}

func (c *chanCollector) EmitMarker(_ context.Context, m vectorized.Marker) error {
	c.mu.Lock()
	c.markers = append(c.markers, m.Kind)
	c.mu.Unlock()
	return nil
}

func (c *chanCollector) snapshot() ([]string, []vectorized.MarkerKind) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string{}, c.rows...), append([]vectorized.MarkerKind{}, c.markers...)
}

// writeAtomic writes a csv file under a hidden name and renames it.
func writeAtomic(t *testing.T, dir, name string, rows int) {
	t.Helper()
	var b strings.Builder
	for i := range rows {
		fmt.Fprintf(&b, "%s,%d\n", name, i)
	}
	tmp := filepath.Join(dir, "."+name+".tmp")
	require.NoError(t, os.WriteFile(tmp, []byte(b.String()), 0o644))
	require.NoError(t, os.Rename(tmp, filepath.Join(dir, name)))
}

// TestMonitoredSource: with source.monitor-interval the source reads the
// files that appear while it runs, each once, marks itself idle while
// nothing arrives, and a source restored from a position taken while it
// ran reads only the files that are new.
func TestMonitoredSource(t *testing.T) {
	schema := types.Schema{{Name: "f", Type: types.StringT}, {Name: "i", Type: types.IntT}}
	dir := t.TempDir()
	writeAtomic(t, dir, "a", 3)
	cfg, err := ParseConfig(map[string]string{"path": dir, "format": "csv", "source.monitor-interval": "10 ms"})
	require.NoError(t, err)
	require.Equal(t, 10*time.Millisecond, cfg.MonitorInterval)

	eventually := func(c *chanCollector, n int) {
		t.Helper()
		require.Eventually(t, func() bool { rows, _ := c.snapshot(); return len(rows) >= n }, 5*time.Second, 5*time.Millisecond)
	}
	start := func(src *Source, c *chanCollector) (cancel func() error) {
		ctx, stop := context.WithCancel(context.Background())
		done := make(chan error, 1)
		ic := vectorized.NewSourceCollector(c, 30*time.Millisecond)
		go func() { done <- src.Run(ctx, ic) }()
		return func() error { stop(); return <-done }
	}

	src, err := NewSource(cfg, schema, nil, 100)
	require.NoError(t, err)
	require.True(t, src.Unbounded())
	require.NoError(t, src.Open(context.Background()))
	ck := &statetest.Checkpoint{}
	c := &chanCollector{schema: schema}
	c.onRows = func(rows []string) {
		if strings.HasPrefix(rows[0], "[b ") {
			require.NoError(t, src.SnapshotPosition(ck.Writer()))
		}
	}
	cancel := start(src, c)
	eventually(c, 3)
	require.Eventually(t, func() bool {
		_, ms := c.snapshot()
		return len(ms) > 0 && ms[len(ms)-1] == vectorized.Idle
	}, 5*time.Second, 5*time.Millisecond, "idle while nothing arrives")
	writeAtomic(t, dir, "b", 2)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "_ignored"), []byte("x,1\n"), 0o644))
	eventually(c, 5)
	require.ErrorIs(t, cancel(), context.Canceled)
	rows, markers := c.snapshot()
	require.Equal(t, []string{"[a 0]", "[a 1]", "[a 2]", "[b 0]", "[b 1]"}, rows)
	require.Equal(t, vectorized.Idle, markers[0])
	require.Equal(t, vectorized.Active, markers[1])

	// Restore: a and b are finished; c appears later.
	src2, err := NewSource(cfg, schema, nil, 100)
	require.NoError(t, err)
	require.NoError(t, src2.Open(context.Background()))
	require.NoError(t, src2.RestorePosition(ck.Reader(0, 1)))
	c2 := &chanCollector{schema: schema}
	cancel = start(src2, c2)
	writeAtomic(t, dir, "c", 1)
	eventually(c2, 1)
	time.Sleep(30 * time.Millisecond) // a few more listings
	require.ErrorIs(t, cancel(), context.Canceled)
	rows, _ = c2.snapshot()
	require.Equal(t, []string{"[c 0]"}, rows)
}

func TestMonitorIntervalOption(t *testing.T) {
	for _, v := range []string{"0 s", "-1 s", "soon"} {
		_, err := ParseConfig(map[string]string{"path": "x", "format": "csv", "source.monitor-interval": v})
		require.EqualError(t, err, "Could not parse value '"+v+"' for key 'source.monitor-interval'.")
	}
	cfg, err := ParseConfig(map[string]string{"path": "x", "format": "csv"})
	require.NoError(t, err)
	require.Zero(t, cfg.MonitorInterval)
}
