package js_test

import (
	"testing"
	"time"

	"github.com/dop251/goja"

	"github.com/tablerun/tablerun/internal/udfbench"
)

// BenchmarkEndToEnd compares a JavaScript scalar UDF inside a query
// (INSERT INTO blackhole SELECT f(x, 1) FROM datagen, 1 M BIGINT rows,
// batch mode) with the interpreter floor (1 M top-level goja calls with
// ToValue arguments and an exported result), both timed over the whole
// million rows with garbage collection included. The UDF's cost is the
// query's time minus the same query with the built-in x + 1. Run with
// -benchtime 1x; it interleaves 3 rounds and keeps the fastest of each.
func BenchmarkEndToEnd(b *testing.B) {
	const body = "function f(a, b) { return a + b; }"
	udfbench.Run(b, "CREATE TEMPORARY FUNCTION f(a BIGINT, b BIGINT) RETURNS BIGINT LANGUAGE JAVASCRIPT AS $$\n"+body+"\n$$",
		func(n int) float64 {
			rt := goja.New()
			if _, err := rt.RunString(body); err != nil {
				b.Fatal(err)
			}
			fn, _ := goja.AssertFunction(rt.Get("f"))
			one := rt.ToValue(int64(1))
			start := time.Now()
			for i := 0; i < n; i++ {
				v, err := fn(goja.Undefined(), rt.ToValue(int64(i)), one)
				if err != nil {
					b.Fatal(err)
				}
				_ = v.Export()
			}
			return float64(time.Since(start).Nanoseconds()) / float64(n)
		})
}

// BenchmarkLateral times a JavaScript table function producing two rows
// per input row in LATERAL TABLE over 1 M rows.
func BenchmarkLateral(b *testing.B) {
	udfbench.RunLateral(b, "CREATE TEMPORARY FUNCTION g(a BIGINT) RETURNS TABLE (w BIGINT) LANGUAGE JAVASCRIPT AS $$\nfunction* g(a) { yield a; yield a + 1; }\n$$")
}
