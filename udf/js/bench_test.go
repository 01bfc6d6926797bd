package js

import (
	"testing"

	"github.com/dop251/goja"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/udf"
	"github.com/tablerun/tablerun/udf/internal/udftest"
)

const benchBody = "function f(a, b) { return a + b; }"

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
	udftest.Overhead(b, ectx, def, raw)
}
