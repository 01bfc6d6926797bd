package filesystem

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// peakCollector discards batches and samples the live heap every few
// batches.
type peakCollector struct {
	batches int
	rows    int
	peak    uint64
}

func (c *peakCollector) Emit(_ context.Context, b vectorized.Batch) error {
	c.batches++
	c.rows += b.NumRows()
	if c.batches%16 == 0 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if ms.HeapAlloc > c.peak {
			c.peak = ms.HeapAlloc
		}
	}
	return nil
}

func (c *peakCollector) EmitMarker(context.Context, vectorized.Marker) error { return nil }

func writeRows(t *testing.T, path string, rows int) {
	f, err := os.Create(path)
	require.NoError(t, err)
	w := bufio.NewWriter(f)
	line := make([]byte, 0, 64)
	for i := 0; i < rows; i++ {
		line = strconv.AppendInt(line[:0], int64(i%1000), 10)
		line = append(line, ',')
		line = strconv.AppendInt(line, int64(i), 10)
		line = append(line, ",some text to make the line longer\n"...)
		_, err := w.Write(line)
		require.NoError(t, err)
	}
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
}

// TestReadingStreamsTheFile reads a small and an eight times larger CSV
// file and checks that the live heap while reading does not grow with the
// file: the reader holds a bounded buffer and one batch at a time.
func TestReadingStreamsTheFile(t *testing.T) {
	if testing.Short() {
		t.Skip("writes ~90 MB of CSV")
	}
	dir := t.TempDir()
	schema := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "v", Type: types.BigIntT}, {Name: "s", Type: types.StringT}}
	cfg, err := ParseConfig(map[string]string{"connector": "filesystem", "format": "csv", "path": dir})
	require.NoError(t, err)

	peak := func(rows int) uint64 {
		path := filepath.Join(dir, "in.csv")
		writeRows(t, path, rows)
		defer os.Remove(path)
		src, err := NewSource(cfg, schema, nil, vectorized.DefaultBatchSize)
		require.NoError(t, err)
		ctx := context.Background()
		require.NoError(t, src.Open(ctx))
		c := &peakCollector{}
		require.NoError(t, src.Run(ctx, c))
		require.NoError(t, src.Close())
		require.Equal(t, rows, c.rows)
		return c.peak
	}
	small := peak(250_000)   // ≈ 11 MB of CSV
	large := peak(2_000_000) // ≈ 90 MB of CSV
	t.Logf("peak live heap while reading: %d KiB (small file), %d KiB (8x larger file)", small>>10, large>>10)
	require.Less(t, large, 2*small+8<<20, "live heap grew with the file size")
	require.Less(t, large, uint64(48<<20), "reading a 90 MB file should not hold it in memory")
}
