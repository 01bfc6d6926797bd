package duckdb

import (
	"bufio"
	"bytes"
	"database/sql"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/tablerun/tablerun/bench/tpch"
	"github.com/tablerun/tablerun/core"
)

// BenchmarkSideBySideTPCH runs each TPC-H query on DuckDB (threads=1) and
// tablerun (one thread) alternately inside every iteration over the same
// generated files, checks that the answers agree, and reports
// engine-vs-duckdb = DuckDB time ÷ tablerun time (> 1: tablerun faster).
//
// TPCH_SOURCE picks what both engines read: "memory" (the default) the
// tables loaded once into memory (DuckDB's tables; for tablerun the files
// read once into Arrow batches registered with FromRecords), "csv" the
// CSV files parsed again by every query (DuckDB views over read_csv;
// tablerun's filesystem tables). TPCH_SF sets the scale factor (default
// 1), TPCH_QUERY one query, TPCH_DIR a directory that keeps the files
// across runs.
//
// duckdb-cpu-ms and engine-cpu-ms are the process's CPU time (user +
// system, every thread) during each engine's query, and cpu-vs-duckdb
// their ratio: steadier than wall time when other work shares the
// machine.
//
// duckdb-peak-MB and engine-peak-MB are each engine's peak resident set
// during its query above what the process held before it (Linux: the
// peak is reset through /proc/self/clear_refs before every query, after
// Go's garbage is returned to the OS; both engines share the process, so
// each figure is the query's own growth, the loaded tables excluded).
func BenchmarkSideBySideTPCH(b *testing.B) {
	sf := 1.0
	if s := os.Getenv("TPCH_SF"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			b.Fatal(err)
		}
		sf = v
	}
	dir := tpchData(b, sf)
	var db *sql.DB
	var env *core.TableEnvironment
	switch src := os.Getenv("TPCH_SOURCE"); src {
	case "", "memory":
		db = tpchDuck(b, dir)
		env = tpchEngineMemory(b, dir)
	case "csv":
		db = tpchDuckViews(b, dir)
		env = tpchEngine(b, dir)
	default:
		b.Fatalf("TPCH_SOURCE=%q: want memory or csv", src)
	}
	qs, err := tpch.Queries()
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range qs {
		if only := os.Getenv("TPCH_QUERY"); only != "" && only != q.Name {
			continue
		}
		b.Run(q.Name, func(b *testing.B) {
			var dd, de, cd, ce time.Duration
			var pd, pe float64
			b.ResetTimer()
			for range b.N {
				base := resetPeakRSS()
				c0 := processCPU()
				t0 := time.Now()
				want := duckAnswer(b, db, q.SQL)
				t1 := time.Now()
				cd += processCPU() - c0
				pd = max(pd, peakRSSSince(base))
				base = resetPeakRSS()
				c0 = processCPU()
				t2 := time.Now()
				got, err := engineAnswer(env, q.SQL)
				de += time.Since(t2)
				ce += processCPU() - c0
				pe = max(pe, peakRSSSince(base))
				dd += t1.Sub(t0)
				if err != nil {
					b.Fatal(err)
				}
				if !sameAnswer(want, got) {
					b.Fatalf("answers differ: duckdb %v, tablerun %v", head(want), head(got))
				}
			}
			b.ReportMetric(float64(dd.Microseconds())/1000/float64(b.N), "duckdb-ms")
			b.ReportMetric(float64(de.Microseconds())/1000/float64(b.N), "engine-ms")
			b.ReportMetric(dd.Seconds()/de.Seconds(), "engine-vs-duckdb")
			b.ReportMetric(float64(cd.Microseconds())/1000/float64(b.N), "duckdb-cpu-ms")
			b.ReportMetric(float64(ce.Microseconds())/1000/float64(b.N), "engine-cpu-ms")
			b.ReportMetric(cd.Seconds()/ce.Seconds(), "cpu-vs-duckdb")
			if pd >= 0 && pe >= 0 {
				b.ReportMetric(pd, "duckdb-peak-MB")
				b.ReportMetric(pe, "engine-peak-MB")
			}
		})
	}
}

// processCPU is the CPU time the process has used (all threads).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// resetPeakRSS returns Go's free memory to the OS, resets the process's
// peak resident set (VmHWM) to the current one and returns that in
// bytes; -1 where /proc/self/clear_refs is not available.
func resetPeakRSS() int64 {
	runtime.GC()
	debug.FreeOSMemory()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		return -1
	}
	rss, _ := procStatus("VmRSS:")
	return rss
}

// peakRSSSince returns the growth of the peak resident set over base in
// MB (-1 when unknown).
func peakRSSSince(base int64) float64 {
	hwm, ok := procStatus("VmHWM:")
	if base < 0 || !ok {
		return -1
	}
	return float64(max(0, hwm-base)) / (1 << 20)
}

// procStatus reads a kB field of /proc/self/status, in bytes.
func procStatus(key string) (int64, bool) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.HasPrefix(line, []byte(key)) {
			continue
		}
		fields := bytes.Fields(line[len(key):])
		if len(fields) == 0 {
			return 0, false
		}
		v, err := strconv.ParseInt(string(fields[0]), 10, 64)
		return v << 10, err == nil
	}
	return 0, false
}
