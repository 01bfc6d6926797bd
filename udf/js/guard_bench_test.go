package js

import (
	"testing"
	"time"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/udf"
)

// BenchmarkMemoryGuard measures what the memory guards cost a JavaScript UDF
// doing integer arithmetic (two multiplies and a power per call):
// interleaved rounds of 100,000 Definition.Eval calls with the guards
// and without, reporting the fastest round of each and their ratio.
func BenchmarkMemoryGuard(b *testing.B) {
	const body = "function f(a, b) { return a * b + a * 3 + b ** 2; }"
	compile := func(off bool) func(int64) {
		noGuards = off
		defer func() { noGuards = false }()
		def, err := Compile(udf.Spec{Name: "f", Params: params(types.BigIntT, types.BigIntT), Returns: types.BigIntT, Body: body})
		if err != nil {
			b.Fatal(err)
		}
		return func(i int64) {
			if _, err := call(def, i, int64(7)); err != nil {
				b.Fatal(err)
			}
		}
	}
	guarded, plain := compile(false), compile(true)
	const n = 100_000
	best := [2]time.Duration{1 << 62, 1 << 62}
	for round := 0; round < 5*b.N; round++ {
		for k, f := range []func(int64){guarded, plain} {
			start := time.Now()
			for i := int64(0); i < n; i++ {
				f(i)
			}
			best[k] = min(best[k], time.Since(start))
		}
	}
	b.ReportMetric(float64(best[0].Nanoseconds())/n, "guarded-ns/call")
	b.ReportMetric(float64(best[1].Nanoseconds())/n, "plain-ns/call")
	b.ReportMetric(float64(best[0])/float64(best[1]), "ratio")
}
