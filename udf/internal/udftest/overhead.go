package udftest

import (
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/udf"
)

var epoch = time.Now()

// MinPerOp runs f(n) rounds times and returns the fastest ns per op:
// robust against a loaded machine.
func MinPerOp(rounds, n int, f func(n int)) float64 {
	best := 0.0
	for r := 0; r < rounds; r++ {
		start := time.Since(epoch)
		f(n)
		ns := float64(time.Since(epoch)-start) / float64(n)
		if r == 0 || ns < best {
			best = ns
		}
	}
	return best
}

// Overhead is the body of the runtimes' BenchmarkOverhead: it interleaves
// the raw interpreter call (raw(n) makes n calls f(i, 1) with ready
// interpreter values) and the bridge of def, a scalar f(a BIGINT, b
// BIGINT) BIGINT: Definition.Eval, udf.BatchFunc.CallBatch and
// udf.ArrowFunc.CallArrow over 4096-row chunks; it reports the fastest of
// 40 rounds of each and the bridge's overhead in percent.
func Overhead(b *testing.B, ctx *function.EvalContext, def *function.Definition, raw func(n int)) {
	args := []any{int64(0), int64(1)}
	eval := func(n int) {
		for i := 0; i < n; i++ {
			args[0] = int64(i)
			if _, err := def.Eval(ctx, function.CallTypes{}, args); err != nil {
				b.Fatal(err)
			}
		}
	}
	const rows = 4096
	ga, gc := make([]any, rows), make([]any, rows)
	for i := range ga {
		ga[i], gc[i] = int64(i), int64(1)
	}
	bf, _ := udf.BatchImpl(def)
	batch := func(n int) {
		for i := 0; i < n; i += rows {
			if _, err := bf.CallBatch(ctx, [][]any{ga, gc}, rows); err != nil {
				b.Fatal(err)
			}
		}
	}
	ib := array.NewInt64Builder(memory.DefaultAllocator)
	for i := 0; i < rows; i++ {
		ib.Append(int64(i))
	}
	col := ib.NewArray()
	defer col.Release()
	af, _ := udf.ArrowImpl(def)
	arrowArgs := []udf.ArrowArg{{Array: col}, {Value: int64(1)}}
	arrowCall := func(n int) {
		for i := 0; i < n; i += rows {
			out := array.NewInt64Builder(memory.DefaultAllocator)
			if err := af.CallArrow(ctx, arrowArgs, rows, false, out); err != nil {
				b.Fatal(err)
			}
			out.NewArray().Release()
			out.Release()
		}
	}
	var r, e, bt, at float64
	for i := 0; i < b.N; i++ {
		r = MinPerOp(40, 5000, raw)
		e = MinPerOp(40, 5000, eval)
		bt = MinPerOp(40, rows, batch)
		at = MinPerOp(40, rows, arrowCall)
	}
	b.ReportMetric(at, "arrow-ns/row")
	b.ReportMetric((at/r-1)*100, "arrow-overhead-%")
	b.ReportMetric(r, "raw-ns/call")
	b.ReportMetric(e, "eval-ns/call")
	b.ReportMetric((e/r-1)*100, "eval-overhead-%")
	b.ReportMetric(bt, "batch-ns/row")
	b.ReportMetric((bt/r-1)*100, "batch-overhead-%")
}
