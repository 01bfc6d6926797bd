package csv

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/tablerun/tablerun/core/types"
)

// BenchmarkReadCSV reads a 2 M-row file of two BIGINT columns (1,000
// distinct keys), the shape of the file benchmark.
func BenchmarkReadCSV(b *testing.B) {
	const rows = 2_000_000
	path := filepath.Join(b.TempDir(), "t.csv")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	var line []byte
	x := uint64(42)
	for i := 0; i < rows; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		line = strconv.AppendInt(line[:0], int64(x%1000), 10)
		line = append(line, ',')
		line = strconv.AppendInt(line, int64(x>>20%1_000_000), 10)
		line = append(line, '\n')
		w.Write(line)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	schema := types.Schema{{Name: "k", Type: types.BigIntT}, {Name: "v", Type: types.BigIntT}}
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		rd, err := NewReader(f, path, schema, nil, DefaultOptions(), 4096)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for {
			rec, err := rd.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n += int(rec.NumRows())
			rec.Release()
		}
		f.Close()
		if n != rows {
			b.Fatalf("read %d rows", n)
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	// The CPU-time rate is steadier than wall time on a shared machine.
	b.ReportMetric(float64(rows)*float64(b.N)/(cpuTime()-cpu0).Seconds(), "rows/cpu-s")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
