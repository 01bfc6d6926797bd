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

	"github.com/tablerun/tablerun/bench/tpch"
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

// BenchmarkReadLineitem reads TPC-H's widest table (lineitem, scale
// factor 0.05: 300 K rows of 16 columns with DECIMAL, DATE and VARCHAR
// fields) from bench/tpch's generator, all columns and the four columns
// of q6 (projection push-down: the other fields are split but not
// converted).
func BenchmarkReadLineitem(b *testing.B) {
	dir := b.TempDir()
	if err := tpch.Generate(dir, 0.05); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, "lineitem.csv")
	var schema types.Schema
	for _, c := range tpch.Columns["lineitem"] {
		var t types.Type
		switch c[1] {
		case "INT":
			t = types.IntT
		case "BIGINT":
			t = types.BigIntT
		case "DATE":
			t = types.DateT
		case "VARCHAR":
			t = types.StringT
		default:
			t = types.Type{Kind: types.Decimal, Precision: 15, Scale: 2}
		}
		schema = append(schema, types.Field{Name: c[0], Type: t})
	}
	for _, bc := range []struct {
		name string
		proj []int
	}{{"all", nil}, {"q6", []int{4, 5, 6, 10}}} {
		b.Run(bc.name, func(b *testing.B) {
			cpu0 := cpuTime()
			rows := 0
			for i := 0; i < b.N; i++ {
				f, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				rd, err := NewReader(f, path, schema, bc.proj, DefaultOptions(), 4096)
				if err != nil {
					b.Fatal(err)
				}
				for {
					rec, err := rd.Next()
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					rows += int(rec.NumRows())
					rec.Release()
				}
				f.Close()
			}
			b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(rows)/(cpuTime()-cpu0).Seconds(), "rows/cpu-s")
		})
	}
}
