package core

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/changelog"
)

func TestFromRecordsAndExecuteArrow(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "v", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}, nil)
	var recs []arrow.RecordBatch
	for part := 0; part < 3; part++ {
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		for i := 0; i < 5; i++ {
			b.Field(0).(*array.Int64Builder).Append(int64(i % 2))
			b.Field(1).(*array.Float64Builder).Append(float64(part*10 + i))
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	env := NewTableEnvironment(InBatchMode())
	require.NoError(t, env.FromRecords("t", schema, recs))

	tbl, err := env.SQLQuery("SELECT k, SUM(v) AS s, COUNT(*) AS c FROM t GROUP BY k ORDER BY k")
	require.NoError(t, err)
	var got [][]any
	require.NoError(t, tbl.ExecuteArrow(context.Background(), func(rec arrow.RecordBatch) error {
		for i := 0; i < int(rec.NumRows()); i++ {
			got = append(got, []any{
				rec.Column(0).(*array.Int64).Value(i),
				rec.Column(1).(*array.Float64).Value(i),
				rec.Column(2).(*array.Int64).Value(i),
			})
		}
		return nil
	}))
	// k=0 takes i = 0, 2, 4 of each part: 3*(0+2+4) + 10*3 + 20*3 = 108.
	// k=1 takes i = 1, 3: 3*(1+3) + 10*2 + 20*2 = 72.
	require.Equal(t, [][]any{{int64(0), 108.0, int64(9)}, {int64(1), 72.0, int64(6)}}, got)

	// The table is temporary: DESCRIBE sees it with the mapped types.
	res, err := env.ExecuteSQL(context.Background(), "DESCRIBE t")
	require.NoError(t, err)
	require.Equal(t, "BIGINT", res.Rows()[0][1])
	require.Equal(t, "DOUBLE", res.Rows()[1][1])

	// A batch of another schema is refused; the session stays usable.
	other := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int32}}, nil)
	require.Error(t, env.FromRecords("u", other, recs))
	require.Error(t, env.FromRecords("t", schema, recs), "a second temporary table t must be refused")
}

func TestExecuteArrowRefusesUpdates(t *testing.T) {
	env := NewTableEnvironment(InStreamingMode())
	_, err := env.ExecuteSQL(context.Background(), `CREATE TABLE t (k INT, v INT) WITH ('connector' = 'values', 'data' = '[[1, 1], [1, 2], [2, 3]]')`)
	require.NoError(t, err)

	// Insert-only streaming results pass.
	q, err := env.SQLQuery("SELECT k, v + 1 FROM t")
	require.NoError(t, err)
	rows := 0
	require.NoError(t, q.ExecuteArrow(context.Background(), func(rec arrow.RecordBatch) error {
		rows += int(rec.NumRows())
		return nil
	}))
	require.Equal(t, 3, rows)

	// An updating GROUP BY would lose its -U/+U kinds: refused.
	q, err = env.SQLQuery("SELECT k, SUM(v) FROM t GROUP BY k")
	require.NoError(t, err)
	err = q.ExecuteArrow(context.Background(), func(arrow.RecordBatch) error { return nil })
	require.ErrorContains(t, err, "update changes")
}

func TestExecuteArrowChangesKindsAndNames(t *testing.T) {
	ctx := context.Background()
	env := NewTableEnvironment(InStreamingMode())
	_, err := env.ExecuteSQL(ctx, `CREATE TABLE t (k INT, v INT) WITH ('connector' = 'values', 'data' = '[[1, 1], [1, 2], [2, 3]]')`)
	require.NoError(t, err)
	q, err := env.SQLQuery("SELECT k, SUM(v) AS total FROM t GROUP BY k")
	require.NoError(t, err)
	var got []string
	require.NoError(t, q.ExecuteArrowChanges(ctx, func(rec arrow.RecordBatch, kinds []changelog.RowKind) error {
		require.Equal(t, []string{"k", "total"}, []string{rec.Schema().Field(0).Name, rec.Schema().Field(1).Name})
		require.Len(t, kinds, int(rec.NumRows()))
		for i := range kinds {
			got = append(got, fmt.Sprintf("%s[%v, %v]", kinds[i], rec.Column(0).GetOneForMarshal(i), rec.Column(1).GetOneForMarshal(i)))
		}
		return nil
	}))
	require.Equal(t, []string{"+I[1, 1]", "-U[1, 1]", "+U[1, 3]", "+I[2, 3]"}, got)

	// Batch mode: final rows, no kinds.
	benv := NewTableEnvironment(InBatchMode())
	_, err = benv.ExecuteSQL(ctx, `CREATE TABLE t (k INT, v INT) WITH ('connector' = 'values', 'data' = '[[1, 1], [1, 2], [2, 3]]')`)
	require.NoError(t, err)
	q, err = benv.SQLQuery("SELECT k, SUM(v) AS total FROM t GROUP BY k ORDER BY k")
	require.NoError(t, err)
	rows := 0
	require.NoError(t, q.ExecuteArrowChanges(ctx, func(rec arrow.RecordBatch, kinds []changelog.RowKind) error {
		require.Nil(t, kinds)
		rows += int(rec.NumRows())
		return nil
	}))
	require.Equal(t, 2, rows)

	// An error of fn comes back unchanged and stops the job.
	stop := errors.New("client gone")
	err = q.ExecuteArrowChanges(ctx, func(arrow.RecordBatch, []changelog.RowKind) error { return stop })
	require.ErrorIs(t, err, stop)
}
