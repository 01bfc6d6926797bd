package core

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/udf"
)

// ExampleTableEnvironment_CreateTemporarySystemFunction registers plain Go
// functions as SQL scalar functions: function.FromGo takes the SQL types
// from the Go signature (int64 → BIGINT, string → STRING, a pointer
// parameter receives NULL as nil).
func ExampleTableEnvironment_CreateTemporarySystemFunction() {
	e := NewTableEnvironment(InBatchMode())
	twice, err := function.FromGo("twice", func(x int64) int64 { return 2 * x })
	if err != nil {
		panic(err)
	}
	greet, err := function.FromGo("greet", func(name *string) string {
		if name == nil {
			return "hello, stranger"
		}
		return "hello, " + *name
	})
	if err != nil {
		panic(err)
	}
	for _, def := range []*function.Definition{twice, greet} {
		if err := e.CreateTemporarySystemFunction(def.Name, def); err != nil {
			panic(err)
		}
	}
	res, err := e.ExecuteSQL(context.Background(),
		"SELECT twice(n) AS doubled, greet(who) AS greeting FROM (VALUES (1, 'Ada'), (21, CAST(NULL AS STRING))) AS t(n, who)")
	if err != nil {
		panic(err)
	}
	if err := res.Print(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// +---------+-----------------+
	// | doubled |        greeting |
	// +---------+-----------------+
	// |       2 |      hello, Ada |
	// |      42 | hello, stranger |
	// +---------+-----------------+
	// 2 rows in set
}

// goFunctions registers the Go functions of the query tests.
func goFunctions(t *testing.T, e *TableEnvironment) {
	t.Helper()
	fns := map[string]any{
		"twice": func(x int64) int64 { return 2 * x },
		"hyp":   func(a, b float64) float64 { return a*a + b*b },
		"inv": func(x int64) int64 {
			if x == 0 {
				panic("zero")
			}
			return 100 / x
		},
		"shout": func(s string) string { return strings.ToUpper(s) + "!" },
		"orzero": func(x *int64) int64 {
			if x == nil {
				return 0
			}
			return *x
		},
		"checked": func(s string) (int32, error) {
			if s == "bad" {
				return 0, errors.New("bad value")
			}
			return int32(len(s)), nil
		},
		"words": func(s string) []string { return strings.Fields(s) },
	}
	for name, fn := range fns {
		def, err := function.FromGo(name, fn)
		require.NoError(t, err)
		require.NoError(t, e.CreateTemporarySystemFunction(name, def))
	}
}

func TestGoFunctionQueries(t *testing.T) {
	const data = "(VALUES (1, CAST(3 AS BIGINT), 'ab'), (2, CAST(NULL AS BIGINT), 'c d'), (3, CAST(-4 AS BIGINT), CAST(NULL AS STRING))) AS t(i, x, s)"
	tests := []struct {
		name string
		sql  string
		want [][]any
	}{
		{"vectorized int64 with NULLs", "SELECT i, twice(x) FROM " + data,
			[][]any{{int32(1), int64(6)}, {int32(2), nil}, {int32(3), int64(-8)}}},
		{"INT argument cast to BIGINT", "SELECT twice(i) FROM " + data + " WHERE i < 3",
			[][]any{{int64(2)}, {int64(4)}}},
		{"vectorized float64 of two arguments", "SELECT hyp(CAST(i AS DOUBLE), 1.5e0) FROM " + data + " WHERE i = 2",
			[][]any{{6.25}}},
		{"nested and in WHERE", "SELECT i FROM " + data + " WHERE twice(twice(x)) > 0",
			[][]any{{int32(1)}}},
		{"string", "SELECT shout(s) FROM " + data,
			[][]any{{"AB!"}, {"C D!"}, {nil}}},
		{"pointer parameter sees NULL", "SELECT orzero(x) FROM " + data,
			[][]any{{int64(3)}, {int64(0)}, {int64(-4)}}},
		{"array result", "SELECT words(s) FROM " + data + " WHERE i = 2",
			[][]any{{[]any{"c", "d"}}}},
		{"constant folded", "SELECT twice(21), shout('x')",
			[][]any{{int64(42), "X!"}}},
		{"error result not reached", "SELECT checked(s) FROM " + data + " WHERE i = 1",
			[][]any{{int32(2)}}},
	}
	for _, mode := range []string{"batch", "streaming"} {
		for _, tt := range tests {
			t.Run(mode+"/"+tt.name, func(t *testing.T) {
				settings := InBatchMode()
				if mode == "streaming" {
					settings = InStreamingMode()
				}
				e := NewTableEnvironment(settings)
				goFunctions(t, e)
				require.ElementsMatch(t, tt.want, rows(t, e, tt.sql))
			})
		}
	}
}

func TestGoFunctionErrors(t *testing.T) {
	tests := []struct {
		name string
		sql  string
		want string
	}{
		{"error result", "SELECT checked(s) FROM (VALUES ('ok'), ('bad')) AS t(s)", "Go function 'checked': bad value"},
		{"panic in a vectorized call", "SELECT inv(x) FROM (VALUES (CAST(1 AS BIGINT)), (CAST(0 AS BIGINT))) AS t(x)", "Go function 'inv' panicked: zero"},
		{"argument type", "SELECT twice('a')", "Cannot apply 'twice' to arguments of type 'twice(<CHAR(1)>)'."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			goFunctions(t, e)
			_, err := e.ExecuteSQL(context.Background(), tt.sql)
			require.Error(t, err)
			require.Contains(t, err.Error(), tt.want)
			require.Len(t, rows(t, e, "SELECT twice(1)"), 1) // the session stays usable
		})
	}
	e := newEnv(t)
	def, err := function.FromGo("twice", func(x int64) int64 { return x })
	require.NoError(t, err)
	require.NoError(t, e.CreateTemporarySystemFunction("twice", def))
	err = e.CreateTemporarySystemFunction("twice", def)
	require.Error(t, err)
	require.Contains(t, fmt.Sprint(err), "does already exist")
}

// goTableAndAggregate registers a Go table function (split) and a Go
// aggregate function with retraction (gsum).
func goTableAndAggregate(t *testing.T, e *TableEnvironment) {
	t.Helper()
	split, err := udf.GoTableFunction("split", func(s string, emit func(word string, n int32)) error {
		if s == "bad" {
			return errors.New("bad line")
		}
		for _, w := range strings.Fields(s) {
			emit(w, int32(len(w)))
		}
		return nil
	}, "word", "n")
	require.NoError(t, err)
	require.NoError(t, e.CreateTemporarySystemFunction("split", split))
	type acc struct{ sum, n int64 }
	gsum, err := udf.GoAggregateFunction("gsum", udf.GoAggregate{
		CreateAccumulator: func() *acc { return &acc{} },
		Accumulate: func(a *acc, v *int64) {
			if v != nil {
				a.sum += *v
				a.n++
			}
		},
		Retract: func(a *acc, v *int64) {
			if v != nil {
				a.sum -= *v
				a.n--
			}
		},
		Merge: func(a, o *acc) { a.sum, a.n = a.sum+o.sum, a.n+o.n },
		GetValue: func(a *acc) *int64 {
			if a.n == 0 {
				return nil
			}
			return &a.sum
		},
	})
	require.NoError(t, err)
	require.NoError(t, e.CreateTemporarySystemFunction("gsum", gsum))
}

func TestGoTableAndAggregateFunctions(t *testing.T) {
	const lines = "(VALUES (1, 'a bb'), (2, CAST(NULL AS STRING)), (3, 'ccc')) AS t(id, s)"
	tests := []struct {
		name string
		sql  string
		want [][]any
	}{
		{"lateral table", "SELECT id, word, n FROM " + lines + ", LATERAL TABLE(split(s))",
			[][]any{{int32(1), "a", int32(1)}, {int32(1), "bb", int32(2)}, {int32(3), "ccc", int32(3)}}},
		{"left join lateral with aliases", "SELECT id, w FROM " + lines + " LEFT JOIN LATERAL TABLE(split(s)) AS T(w, l) ON TRUE",
			[][]any{{int32(1), "a"}, {int32(1), "bb"}, {int32(2), nil}, {int32(3), "ccc"}}},
		{"aggregate", "SELECT k, gsum(v) FROM (VALUES ('a', CAST(1 AS BIGINT)), ('a', 2), ('b', NULL)) AS t(k, v) GROUP BY k",
			[][]any{{"a", int64(3)}, {"b", nil}}},
		{"aggregate of the table function", "SELECT gsum(n) FROM " + lines + ", LATERAL TABLE(split(s))",
			[][]any{{int64(6)}}},
	}
	for _, mode := range []string{"batch", "streaming"} {
		for _, tt := range tests {
			t.Run(mode+"/"+tt.name, func(t *testing.T) {
				settings := InBatchMode()
				if mode == "streaming" {
					settings = InStreamingMode()
				}
				e := NewTableEnvironment(settings)
				goTableAndAggregate(t, e)
				if mode == "streaming" && strings.Contains(tt.name, "aggregate") {
					final, _ := materialize(t, exec(t, e, tt.sql))
					require.Equal(t, canon(tt.want), final)
					return
				}
				require.ElementsMatch(t, tt.want, rows(t, e, tt.sql))
			})
		}
	}
	// with mini-batch TWO_PHASE a Go aggregate (with merge) stays in one
	// phase: its accumulators export as Go values, which do not encode
	mb, _ := newStreamEnv(t)
	goTableAndAggregate(t, mb)
	for _, set := range []string{"'table.exec.mini-batch.enabled' = 'true'", "'table.exec.mini-batch.allow-latency' = '1 s'",
		"'table.exec.mini-batch.size' = '10'", "'table.optimizer.agg-phase-strategy' = 'TWO_PHASE'"} {
		exec(t, mb, "SET "+set)
	}
	q := tests[2].sql
	require.NotContains(t, fmt.Sprint(exec(t, mb, "EXPLAIN "+q).Rows()[0][0]), "LocalGroupAggregate")
	final, _ := materialize(t, exec(t, mb, q))
	require.Equal(t, canon(tests[2].want), final)
	// over an updating input the aggregate retracts
	e, _ := newStreamEnv(t)
	goTableAndAggregate(t, e)
	exec(t, e, kvTable)
	require.Equal(t, []string{"+I[1]", "-U[1]", "+U[3]", "-U[3]", "+U[2]", "-U[2]", "+U[6]", "-U[6]", "+U[4]", "-U[4]", "+U[11]"},
		kindsAndRows(exec(t, e, "SELECT gsum(s) FROM (SELECT k, CAST(SUM(v) AS BIGINT) AS s FROM kv GROUP BY k)")))
	// an error of the table function names it
	_, err := e.ExecuteSQL(context.Background(), "SELECT word FROM (VALUES ('bad')) AS t(s), LATERAL TABLE(split(s))")
	require.ErrorContains(t, err, "Go table function 'split': bad line")
}
