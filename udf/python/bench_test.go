package python

import (
	"testing"

	"github.com/go-python/gpython/py"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/udf"
	"github.com/tablerun/tablerun/udf/internal/udftest"
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

// BenchmarkOverhead interleaves the raw interpreter call (py.Call of the
// function with ready-made Python ints) and the bridge (scalar Eval,
// CallBatch, CallArrow) and reports the fastest round of each, plus the
// bridge overhead in percent (udftest.Overhead).
func BenchmarkOverhead(b *testing.B) {
	def, err := Compile(udf.Spec{Name: "f", Params: params(types.BigIntT, types.BigIntT), Returns: types.BigIntT, Body: benchBody})
	if err != nil {
		b.Fatal(err)
	}
	sb, err := newSandbox()
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = sb.Close() }()
	code, err := py.Compile(benchBody, "bench", py.ExecMode, 0, true)
	if err != nil {
		b.Fatal(err)
	}
	m, err := py.RunCode(sb, code, "bench", nil)
	if err != nil {
		b.Fatal(err)
	}
	fn := m.Globals["f"]
	raw := func(n int) {
		for i := 0; i < n; i++ {
			if _, err := py.Call(fn, py.Tuple{py.Int(i), py.Int(1)}, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	udftest.Overhead(b, ectx, def, raw)
}
