package expr

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/vectorized"
)

const benchRows = vectorized.DefaultBatchSize

func benchRecord(b *testing.B, t types.Type) (arrow.RecordBatch, types.Schema) {
	s := types.Schema{{Name: "x", Type: t}, {Name: "y", Type: t}}
	as := types.MustArrowSchema(s)
	var cols []arrow.Array
	switch t.Kind {
	case types.BigInt:
		for c := 0; c < 2; c++ {
			bld := array.NewInt64Builder(memory.DefaultAllocator)
			for i := 0; i < benchRows; i++ {
				bld.Append(int64(i*7 + c))
			}
			cols = append(cols, bld.NewArray())
		}
	default:
		for c := 0; c < 2; c++ {
			bld := array.NewFloat64Builder(memory.DefaultAllocator)
			for i := 0; i < benchRows; i++ {
				bld.Append(float64(i)*0.5 + float64(c))
			}
			cols = append(cols, bld.NewArray())
		}
	}
	return array.NewRecordBatch(as, cols, benchRows), s
}

func benchXTimes2PlusY(b *testing.B, t types.Type, two any) {
	rec, s := benchRecord(b, t)
	defer rec.Release()
	x := &logical.ColumnRef{Index: 0, T: t}
	y := &logical.ColumnRef{Index: 1, T: t}
	e := mustCall(b, "+", mustCall(b, "*", x, lit(two, t.WithNullable(false))), y)
	ev, err := Compile(e, s, testReg, testCtx)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(benchRows * 8)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := ev.Eval(rec)
		if err != nil {
			b.Fatal(err)
		}
		out.Release()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchRows, "ns/value")
}

// BenchmarkXTimes2PlusYInt64 measures x*2+y over two BIGINT columns.
func BenchmarkXTimes2PlusYInt64(b *testing.B) { benchXTimes2PlusY(b, types.BigIntT, int64(2)) }

// BenchmarkXTimes2PlusYInt64Pooled is the same with a recycling result
// allocator as vectorized.Mem, which isolates the kernels from the cost of
// Go's large-object allocations for the 32 KiB result buffer.
func BenchmarkXTimes2PlusYInt64Pooled(b *testing.B) {
	old := vectorized.Mem
	vectorized.Mem = newPoolAllocator()
	defer func() { vectorized.Mem = old }()
	benchXTimes2PlusY(b, types.BigIntT, int64(2))
}

// BenchmarkXTimes2PlusYFloat64 measures x*2+y over two DOUBLE columns.
func BenchmarkXTimes2PlusYFloat64(b *testing.B) { benchXTimes2PlusY(b, types.DoubleT, float64(2)) }

// BenchmarkFilter measures x > 1000 AND y < 20000 as a filter.
func BenchmarkFilter(b *testing.B) {
	rec, s := benchRecord(b, types.BigIntT)
	defer rec.Release()
	x := &logical.ColumnRef{Index: 0, T: types.BigIntT}
	y := &logical.ColumnRef{Index: 1, T: types.BigIntT}
	cond := mustCall(b, "AND",
		mustCall(b, ">", x, lit(int64(1000), types.BigIntT.WithNullable(false))),
		mustCall(b, "<", y, lit(int64(20000), types.BigIntT.WithNullable(false))))
	f, err := CompileFilter(cond, s, testReg, testCtx)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sel, err := f.Select(rec)
		if err != nil || len(sel) == 0 {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchRows, "ns/value")
}

// BenchmarkGenericAdapter measures a function without a kernel (row by
// row through Definition.Eval).
func BenchmarkGenericAdapter(b *testing.B) {
	rec, s := benchRecord(b, types.BigIntT)
	defer rec.Release()
	x := &logical.ColumnRef{Index: 0, T: types.BigIntT}
	e := mustCall(b, "ABS", x)
	ev, err := Compile(e, s, testReg, testCtx)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := ev.Eval(rec)
		if err != nil {
			b.Fatal(err)
		}
		out.Release()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchRows, "ns/value")
}
