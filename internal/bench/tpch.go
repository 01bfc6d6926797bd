package bench

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"github.com/tablerun/tablerun/bench/tpch"
	"github.com/tablerun/tablerun/core"
)

// tpchMain runs `tablerun bench tpch`: it generates the TPC-H tables of a
// scale factor as CSV (once per directory), declares them for the
// filesystem connector in a batch session and times the 22 queries (or
// one), printing each query's median time, answer rows and peak heap.
func tpchMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("tablerun bench tpch", flag.ContinueOnError)
	flags.SetOutput(stderr)
	sf := flags.Float64("sf", 1, "scale factor (0.1, 1, 10, …)")
	query := flags.String("query", "", "run one query (q1 … q22); default all 22")
	dir := flags.String("dir", "", "data directory (default: tablerun-tpch-sf<SF> in the temporary directory); generated when it holds no lineitem.csv")
	runs := flags.Int("runs", 1, "measured runs per query (median reported)")
	genOnly := flags.Bool("generate-only", false, "write the data and stop")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if !(*sf > 0) || *runs <= 0 {
		fmt.Fprintln(stderr, "bench tpch: --sf and --runs must be positive")
		return 2
	}
	if *dir == "" {
		*dir = filepath.Join(os.TempDir(), "tablerun-tpch-sf"+strconv.FormatFloat(*sf, 'f', -1, 64))
	}
	qs, err := tpch.Queries()
	if err == nil && *query != "" {
		var q tpch.Query
		q, err = tpch.QueryByName(*query)
		qs = []tpch.Query{q}
	}
	if err != nil {
		fmt.Fprintf(stderr, "bench tpch: %v\n", err)
		return 2
	}
	if _, err := os.Stat(filepath.Join(*dir, "lineitem.csv")); err != nil {
		fmt.Fprintf(stdout, "generating TPC-H SF %v into %s\n", *sf, *dir)
		t0 := time.Now()
		if err := tpch.Generate(*dir, *sf); err != nil {
			fmt.Fprintf(stderr, "bench tpch: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "generated in %s\n", time.Since(t0).Round(time.Millisecond))
	}
	if *genOnly {
		return 0
	}
	env := core.NewTableEnvironment(core.InBatchMode())
	env.SetOutput(io.Discard, io.Discard)
	for _, s := range tpch.FlinkDDL(*dir) {
		if _, err := env.ExecuteSQL(ctx, s); err != nil {
			fmt.Fprintf(stderr, "bench tpch: %v\n", err)
			return 1
		}
	}
	fmt.Fprintf(stdout, "TPC-H SF %v from %s, batch mode, GOMAXPROCS=%d, %d run(s) per query, median; peak heap is the query's, peak RSS the process's so far\n",
		*sf, *dir, runtime.GOMAXPROCS(0), *runs)
	fmt.Fprintf(stdout, "%-5s %12s %8s %12s %12s  %s\n", "query", "time", "rows", "peak heap", "peak RSS", "status")
	failed := 0
	for _, q := range qs {
		var times []time.Duration
		var rows int
		var heap uint64
		var qerr error
		for range *runs {
			runtime.GC()
			stop := sampleHeap()
			t0 := time.Now()
			res, err := env.ExecuteSQL(ctx, q.SQL)
			if err == nil {
				rows = len(res.Rows())
			}
			times = append(times, time.Since(t0))
			heap = max(heap, stop())
			if err != nil {
				qerr = err
				break
			}
		}
		if qerr != nil {
			failed++
			fmt.Fprintf(stdout, "%-5s %12s %8s %12s %12s  %v\n", q.Name, "-", "-", "-", "-", qerr)
			continue
		}
		fmt.Fprintf(stdout, "%-5s %12s %8d %12s %12s  ok\n", q.Name, median(times).Round(time.Microsecond), rows, mib(int64(heap)), mib(peakRSS()))
	}
	if failed > 0 {
		fmt.Fprintf(stdout, "%d of %d queries failed\n", failed, len(qs))
		return 1
	}
	return 0
}
