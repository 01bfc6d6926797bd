package expr

import (
	"fmt"
	"testing"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/logical"
)

func BenchmarkGenericStringFuncs(b *testing.B) {
	url := &logical.ColumnRef{Index: 0, Name: "url", T: types.StringT}
	s := func(v string) logical.Expr { return lit(v, types.StringT.WithNullable(false)) }
	for _, tc := range []struct {
		name string
		e    logical.Expr
	}{
		{"REPLACE", mustCall(b, "REPLACE", url, s("nexmark"), s("x"))},
		{"REGEXP_REPLACE", mustCall(b, "REGEXP_REPLACE", url, s("[0-9]+"), s("#"))},
		{"CHAR_LENGTH", mustCall(b, "CHAR_LENGTH", url)},
		{"INSTR", mustCall(b, "INSTR", url, s("item"))},
		{"STARTSWITH", mustCall(b, "STARTSWITH", url, s("https"))},
	} {
		b.Run(tc.name, func(b *testing.B) { benchStringKernel(b, tc.e) })
	}
}

func BenchmarkJSONValue(b *testing.B) {
	doc := &logical.ColumnRef{Index: 0, Name: "url", T: types.StringT}
	e := mustCall(b, "JSON_VALUE", doc, lit("$.user.name", types.StringT.WithNullable(false)))
	benchJSONKernel(b, e)
}

func benchJSONKernel(b *testing.B, e logical.Expr) {
	rows := make([][]any, benchRows)
	for i := range rows {
		rows[i] = []any{fmt.Sprintf(`{"id": %d, "user": {"name": "user%d", "tags": ["a", "b"], "score": %d.5}, "active": true, "note": "x\"y"}`, i, i%100, i), int32(i)}
	}
	rec := buildRec(b, nexmarkSchema, rows)
	defer rec.Release()
	ev, err := Compile(e, nexmarkSchema, testReg, testCtx)
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
	b.ReportMetric(float64(b.N)*benchRows/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkDateFormatAndRegexp(b *testing.B) {
	url := &logical.ColumnRef{Index: 0, Name: "url", T: types.StringT}
	b.Run("REGEXP", func(b *testing.B) {
		benchStringKernel(b, mustCall(b, "REGEXP", url, lit("channel_id=[0-9]+", types.StringT.WithNullable(false))))
	})
	b.Run("DATE_FORMAT", func(b *testing.B) {
		schema := types.Schema{{Name: "ts", Type: types.TimestampOf(3)}}
		rows := make([][]any, benchRows)
		for i := range rows {
			rows[i] = []any{int64(1_700_000_000_000_000 + i*1000)}
		}
		rec := buildRec(b, schema, rows)
		defer rec.Release()
		e := mustCall(b, "DATE_FORMAT", &logical.ColumnRef{Index: 0, Name: "ts", T: types.TimestampOf(3)}, lit("yyyy-MM-dd HH:mm", types.StringT.WithNullable(false)))
		ev, err := Compile(e, schema, testReg, testCtx)
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
		b.ReportMetric(float64(b.N)*benchRows/b.Elapsed().Seconds(), "rows/s")
	})
}
