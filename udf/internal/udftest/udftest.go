// Package udftest holds test helpers shared by the script runtimes.
package udftest

import (
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/udf"
)

// Columns builds one Arrow array per argument from rows of canonical Go
// values; a column whose const flag is set becomes a constant argument
// (its value taken from the first row).
func Columns(t *testing.T, ts []types.Type, rows [][]any, consts []bool) []udf.ArrowArg {
	t.Helper()
	args := make([]udf.ArrowArg, len(ts))
	for i, ty := range ts {
		if i < len(consts) && consts[i] {
			args[i].Value = rows[0][i]
			continue
		}
		vals := make([]any, len(rows))
		for r, row := range rows {
			vals[r] = row[i]
		}
		a, err := types.BuildArray(memory.DefaultAllocator, ty, vals)
		require.NoError(t, err)
		args[i].Array = a
	}
	return args
}

// CallArrow runs def's udf.ArrowFunc over args and returns the results as
// canonical Go values.
func CallArrow(t *testing.T, ctx *function.EvalContext, def *function.Definition, ret types.Type, args []udf.ArrowArg, n int, nullOnNull bool) ([]any, error) {
	t.Helper()
	_, ok := udf.ArrowImpl(def)
	require.True(t, ok, "no ArrowFunc")
	return callArrow(ctx, def, ret, args, n, nullOnNull)
}

// callArrow is CallArrow without the test's assertions (safe in other
// goroutines).
func callArrow(ctx *function.EvalContext, def *function.Definition, ret types.Type, args []udf.ArrowArg, n int, nullOnNull bool) ([]any, error) {
	af, ok := udf.ArrowImpl(def)
	if !ok {
		return nil, fmt.Errorf("no ArrowFunc")
	}
	at, err := types.ArrowType(ret)
	if err != nil {
		return nil, err
	}
	b := array.NewBuilder(memory.DefaultAllocator, at)
	defer b.Release()
	if err := af.CallArrow(ctx, args, n, nullOnNull, b); err != nil {
		return nil, err
	}
	arr := b.NewArray()
	defer arr.Release()
	if arr.Len() != n {
		return nil, fmt.Errorf("%d results for %d rows", arr.Len(), n)
	}
	return Values(arr, ret), nil
}

// Values returns the canonical Go values of arr.
func Values(arr arrow.Array, t types.Type) []any {
	out := make([]any, arr.Len())
	for r := range out {
		if !arr.IsNull(r) {
			out[r] = types.GetValue(arr, r, t)
		}
	}
	return out
}

// Case is one CallArrow-versus-Eval check.
type Case struct {
	Name   string
	Body   string
	Params []types.Type
	Ret    types.Type
	Rows   [][]any
	Consts []bool
}

// CheckMatchesEval checks for every case that CallArrow over the rows
// (as Arrow columns, one chunk, twice so buffers are reused) returns what
// Definition.Eval returns row by row.
func CheckMatchesEval(t *testing.T, ctx *function.EvalContext, compile func(udf.Spec) (*function.Definition, error), cases []Case) {
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			ps := make([]types.Field, len(c.Params))
			for i, p := range c.Params {
				ps[i] = types.Field{Name: string(rune('a' + i)), Type: p}
			}
			def, err := compile(udf.Spec{Name: "f", Kind: function.Scalar, Params: ps, Returns: c.Ret, Body: c.Body})
			require.NoError(t, err)
			defer udf.Release(def)
			want := make([]any, len(c.Rows))
			for r, row := range c.Rows {
				args := append([]any(nil), row...)
				for i := range args {
					if i < len(c.Consts) && c.Consts[i] {
						args[i] = c.Rows[0][i]
					}
				}
				want[r], err = def.Eval(ctx, function.CallTypes{}, args)
				require.NoError(t, err, "row %d", r)
			}
			args := Columns(t, c.Params, c.Rows, c.Consts)
			defer func() {
				for _, a := range args {
					if a.Array != nil {
						a.Array.Release()
					}
				}
			}()
			for range 2 {
				got, err := CallArrow(t, ctx, def, c.Ret, args, len(c.Rows), false)
				require.NoError(t, err)
				require.Equal(t, want, got)
			}
		})
	}
}

// CheckConcurrent calls def (a two-BIGINT-argument function returning
// a + b as BIGINT) from several goroutines at once through CallArrow and
// checks every result: each call borrows its own interpreter.
func CheckConcurrent(t *testing.T, ctx *function.EvalContext, def *function.Definition) {
	t.Helper()
	const n, workers, rounds = 500, 4, 10
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{int64(i), int64(1)}
	}
	args := Columns(t, []types.Type{types.BigIntT, types.BigIntT}, rows, []bool{false, true})
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		go func() {
			for range rounds {
				got, err := callArrow(ctx, def, types.BigIntT, args, n, false)
				if err == nil {
					for i, v := range got {
						if v != int64(i+1) {
							err = fmt.Errorf("row %d: got %v", i, v)
							break
						}
					}
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range workers {
		require.NoError(t, <-errs)
	}
}
