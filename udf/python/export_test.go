package python

import (
	"testing"
	"time"

	"github.com/go-python/gpython/py"
)

// RawCalls is the interpreter floor for benchmarks outside the package:
// it runs body in a fresh sandboxed interpreter and calls its function f
// n times with the arguments (i, 1) as ready Python ints, the way a UDF
// call gets them, and returns the elapsed time (garbage collection
// included).
func RawCalls(tb testing.TB, body string, n int) time.Duration {
	tb.Helper()
	sb, err := newSandbox()
	if err != nil {
		tb.Fatal(err)
	}
	defer func() { _ = sb.Close() }()
	code, err := py.Compile(body, "bench", py.ExecMode, 0, true)
	if err != nil {
		tb.Fatal(err)
	}
	m, err := py.RunCode(sb, code, "bench", nil)
	if err != nil {
		tb.Fatal(err)
	}
	fn := m.Globals["f"]
	one := py.Int(1)
	start := time.Now()
	for i := 0; i < n; i++ {
		if _, err := py.Call(fn, py.Tuple{py.Int(i), one}, nil); err != nil {
			tb.Fatal(err)
		}
	}
	return time.Since(start)
}
