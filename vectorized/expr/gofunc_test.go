package expr

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

// goFuncCase is a Go function, its call over columns of schema goSchema,
// and whether it gets the vectorized kernel.
type goFuncCase struct {
	name       string
	fn         any
	args       []int
	t          types.Type
	vectorized bool
}

var goSchema = types.Schema{
	{Name: "a", Type: types.BigIntT}, {Name: "b", Type: types.BigIntT},
	{Name: "x", Type: types.DoubleT}, {Name: "y", Type: types.DoubleT},
}

var goCases = []goFuncCase{
	{"i1", func(v int64) int64 { return v*3 + 1 }, []int{0}, types.BigIntT, true},
	{"i2", func(v, w int64) int64 { return v - w }, []int{0, 1}, types.BigIntT, true},
	{"f1", func(v float64) float64 { return v / 2 }, []int{2}, types.DoubleT, true},
	{"f2", func(v, w float64) float64 { return v * w }, []int{2, 3}, types.DoubleT, true},
	{"ptr", func(v *int64) int64 {
		if v == nil {
			return -1
		}
		return *v
	}, []int{0}, types.BigIntT, false},
	{"i32", func(v int32) int32 { return v }, []int{0}, types.IntT, false},
}

// goRecord has n rows over goSchema; every 7th a is NULL, every 5th y.
func goRecord(t testing.TB, n int) arrow.RecordBatch {
	rows := make([][]any, n)
	for i := range rows {
		var a, y any = int64(i - n/2), float64(i) / 3
		if i%7 == 3 {
			a = nil
		}
		if i%5 == 1 {
			y = nil
		}
		rows[i] = []any{a, int64(i % 11), float64(n-i) * 1.5, y}
	}
	rec, err := types.BuildRecord(memory.DefaultAllocator, goSchema, rows)
	require.NoError(t, err)
	return rec
}

// goCall compiles the call of c; generic forces the row-by-row adapter
// (a copy of the definition that FromGo does not know).
func goCompile(t testing.TB, c goFuncCase, generic bool) Evaluator {
	def, err := function.FromGo(c.name, c.fn)
	require.NoError(t, err)
	if generic {
		cp := *def
		def = &cp
	}
	reg := function.Builtins()
	reg.Register(def)
	args := make([]logical.Expr, len(c.args))
	for i, a := range c.args {
		args[i] = &logical.ColumnRef{Index: a, Name: goSchema[a].Name, T: goSchema[a].Type}
	}
	var call logical.Expr = &logical.Call{Name: c.name, Args: args, T: c.t, Def: def}
	if c.t.Kind == types.Int { // the argument is cast to the parameter type
		args[0] = &logical.Cast{Arg: args[0], T: types.IntT}
	}
	ev, err := Compile(call, goSchema, reg, testCtx)
	require.NoError(t, err)
	return ev
}

func TestGoFunctionKernels(t *testing.T) {
	rec := goRecord(t, 1000)
	defer rec.Release()
	for _, c := range goCases {
		t.Run(c.name, func(t *testing.T) {
			fast := goCompile(t, c, false)
			root := fmt.Sprintf("%T", fast.(*compiled).root)
			if c.vectorized {
				require.Contains(t, root, "goNode")
			} else {
				require.NotContains(t, root, "goNode")
			}
			slow := goCompile(t, c, true)
			require.NotContains(t, fmt.Sprintf("%T", slow.(*compiled).root), "goNode")
			got, err := fast.Eval(rec)
			require.NoError(t, err)
			defer got.Release()
			want, err := slow.Eval(rec)
			require.NoError(t, err)
			defer want.Release()
			require.Equal(t, want.NullN(), got.NullN())
			for i := 0; i < want.Len(); i++ {
				require.Equal(t, types.GetValue(want, i, c.t), types.GetValue(got, i, c.t), "row %d", i)
			}
		})
	}
}

func TestGoFunctionKernelPanic(t *testing.T) {
	c := goFuncCase{"boom", func(v int64) int64 {
		if v == 0 {
			panic("zero")
		}
		return v
	}, []int{0}, types.BigIntT, true}
	rec := goRecord(t, 100)
	defer rec.Release()
	_, err := goCompile(t, c, false).Eval(rec)
	require.EqualError(t, err, "Go function 'boom' panicked: zero")
}

// BenchmarkGoFunction compares the vectorized kernel of func(int64) int64
// with the row-by-row reflection adapter (ns per row).
func BenchmarkGoFunction(b *testing.B) {
	rec := goRecord(b, 4096)
	defer rec.Release()
	for _, generic := range []bool{false, true} {
		b.Run(map[bool]string{false: "vectorized", true: "reflect"}[generic], func(b *testing.B) {
			ev := goCompile(b, goCases[0], generic)
			for b.Loop() {
				a, err := ev.Eval(rec)
				if err != nil {
					b.Fatal(err)
				}
				a.Release()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/4096, "ns/row")
		})
	}
}
