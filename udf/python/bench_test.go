package python

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/go-python/gpython/py"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/udf"
)

const benchBody = "def f(a, b):\n    return a + b\n"

// BenchmarkRawCall is the interpreter floor: py.Call of the function with
// ready-made Python ints.
func BenchmarkRawCall(b *testing.B) {
	sb, err := newSandbox()
	if err != nil {
		b.Fatal(err)
	}
	code, err := py.Compile(benchBody, "bench", py.ExecMode, 0, true)
	if err != nil {
		b.Fatal(err)
	}
	m, err := py.RunCode(sb, code, "bench", nil)
	if err != nil {
		b.Fatal(err)
	}
	fn := m.Globals["f"]
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := py.Call(fn, py.Tuple{py.Int(i), py.Int(1)}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEval is Definition.Eval: pool, conversions, watch, result check.
func BenchmarkEval(b *testing.B) {
	def, err := Compile(udf.Spec{Name: "f", Params: params(types.BigIntT, types.BigIntT), Returns: types.BigIntT, Body: benchBody})
	if err != nil {
		b.Fatal(err)
	}
	args := []any{int64(0), int64(1)}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		args[0] = int64(i)
		if _, err := def.Eval(ectx, function.CallTypes{}, args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallBatch is udf.BatchFunc.CallBatch over 4096-row chunks (ns
// per row).
func BenchmarkCallBatch(b *testing.B) {
	def, err := Compile(udf.Spec{Name: "f", Params: params(types.BigIntT, types.BigIntT), Returns: types.BigIntT, Body: benchBody})
	if err != nil {
		b.Fatal(err)
	}
	bf, _ := udf.BatchImpl(def)
	const n = 4096
	a, c := make([]any, n), make([]any, n)
	for i := range a {
		a[i], c[i] = int64(i), int64(1)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i += n {
		if _, err := bf.CallBatch(ectx, [][]any{a, c}, n); err != nil {
			b.Fatal(err)
		}
	}
}

func lookupProgram(b *testing.B, def *function.Definition) *program {
	bf, ok := udf.BatchImpl(def)
	if !ok {
		b.Fatal("no batch impl")
	}
	return bf.(*program)
}

// minPerOp runs f(n) rounds times and returns the fastest ns per op:
// robust against a loaded machine.
func minPerOp(rounds, n int, f func(n int)) float64 {
	best := 0.0
	for r := 0; r < rounds; r++ {
		start := nanotime()
		f(n)
		ns := float64(nanotime()-start) / float64(n)
		if r == 0 || ns < best {
			best = ns
		}
	}
	return best
}

// BenchmarkOverhead interleaves the raw interpreter call and the bridge
// (scalar Eval, CallBatch) and reports the fastest round of each, plus the
// bridge overhead in percent.
func BenchmarkOverhead(b *testing.B) {
	def, err := Compile(udf.Spec{Name: "f", Params: params(types.BigIntT, types.BigIntT), Returns: types.BigIntT, Body: benchBody})
	if err != nil {
		b.Fatal(err)
	}
	p := lookupProgram(b, def)
	it, _ := p.pool.Get()
	fn := it.entry
	p.pool.Put(it)
	raw := func(n int) {
		for i := 0; i < n; i++ {
			if _, err := py.Call(fn, py.Tuple{py.Int(i), py.Int(1)}, nil); err != nil {
				b.Fatal(err)
			}
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
