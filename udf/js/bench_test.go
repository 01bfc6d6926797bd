package js

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"time"

	"github.com/dop251/goja"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/udf"
)

const benchBody = "function f(a, b) { return a + b; }"

var epoch = time.Now()

// minPerOp runs f(n) rounds times and returns the fastest ns per op:
// robust against a loaded machine.
func minPerOp(rounds, n int, f func(n int)) float64 {
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

// BenchmarkOverhead interleaves the raw goja call (AssertFunction with
// ToValue arguments, Export of the result) and the bridge (Eval and
// CallBatch) and reports the fastest round of each.
func BenchmarkOverhead(b *testing.B) {
	def, err := Compile(udf.Spec{Name: "f", Params: params(types.BigIntT, types.BigIntT), Returns: types.BigIntT, Body: benchBody})
	if err != nil {
		b.Fatal(err)
	}
	rt := goja.New()
	if _, err := rt.RunString(benchBody); err != nil {
		b.Fatal(err)
	}
	fn, _ := goja.AssertFunction(rt.Get("f"))
	raw := func(n int) {
		for i := 0; i < n; i++ {
			v, err := fn(goja.Undefined(), rt.ToValue(int64(i)), rt.ToValue(int64(1)))
			if err != nil {
				b.Fatal(err)
			}
			_ = v.Export()
		}
	}
	args := []any{int64(0), int64(1)}
	eval := func(n int) {
		for i := 0; i < n; i++ {
			args[0] = int64(i)
			if _, err := def.Eval(ectx, function.CallTypes{}, args); err != nil {
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
			if _, err := bf.CallBatch(ectx, [][]any{ga, gc}, rows); err != nil {
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
			if err := af.CallArrow(ectx, arrowArgs, rows, false, out); err != nil {
				b.Fatal(err)
			}
			out.NewArray().Release()
			out.Release()
		}
	}
	var r, e, bt, at float64
	for i := 0; i < b.N; i++ {
		r = minPerOp(40, 5000, raw)
		e = minPerOp(40, 5000, eval)
		bt = minPerOp(40, rows, batch)
		at = minPerOp(40, rows, arrowCall)
	}
	b.ReportMetric(at, "arrow-ns/row")
	b.ReportMetric((at/r-1)*100, "arrow-overhead-%")
	b.ReportMetric(r, "raw-ns/call")
	b.ReportMetric(e, "eval-ns/call")
	b.ReportMetric((e/r-1)*100, "eval-overhead-%")
	b.ReportMetric(bt, "batch-ns/row")
	b.ReportMetric((bt/r-1)*100, "batch-overhead-%")
}
