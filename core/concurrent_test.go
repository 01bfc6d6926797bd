package core

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
)

// TestConcurrentEnvironment drives every public method of one
// TableEnvironment from 8 goroutines at once. Run it under -race (.ci/run
// does): a method that touches session state without its lock is a data
// race here, and concurrent map access a fatal error even without -race.
func TestConcurrentEnvironment(t *testing.T) {
	e := NewTableEnvironment(InBatchMode())
	e.SetOutput(io.Discard, io.Discard)
	ctx := context.Background()
	exec(t, e, "CREATE TABLE base (a INT, b STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '20', 'fields.a.min' = '1', 'fields.a.max' = '9')")
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewInt64Builder(memory.DefaultAllocator)
	b.AppendValues([]int64{1, 2, 3}, nil)
	col := b.NewArray()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, 3)
	defer rec.Release()

	const workers, rounds = 8, 2
	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds*40)
	check := func(err error) {
		if err != nil {
			errs <- err
		}
	}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				n := fmt.Sprintf("w%d_%d", w, r)
				_, err := e.ExecuteSQL(ctx, fmt.Sprintf("SET 'pipeline.name' = '%s'", n))
				check(err)
				_, err = e.ExecuteSQL(ctx, "SET 'a.b.c' = 'x'")
				check(err)
				_, err = e.ExecuteSQL(ctx, "RESET 'a.b.c'")
				check(err)
				_ = e.Config().Effective()
				_ = e.Config().Explicit()
				_, _ = e.Config().Get("pipeline.name")
				_ = e.Config().IsSet("a.b.c")
				_ = e.Config().Clone()
				_ = e.Config().LocalTimeZone()
				var buf bytes.Buffer
				e.SetOutput(&buf, &buf)
				_, _ = e.Output()
				_ = e.Catalogs().ListCatalogs()
				_ = e.Functions().Names()
				_ = e.ListCatalogs()
				_, err = e.ListDatabases()
				check(err)
				_, err = e.ListTables()
				check(err)
				_, err = e.ListViews()
				check(err)
				_ = e.ListTemporaryTables()
				_ = e.ListTemporaryViews()
				_ = e.RegisterCatalog("cat_"+n, catalog.NewInMemory("cat_"+n, "d"))
				check(e.UseCatalog("default_catalog"))
				check(e.UseDatabase("default_database"))
				_ = e.FunctionCatalog()
				_ = e.Modules()
				e.SetScriptPath(".", t.TempDir())
				def, err := function.FromGo("f_"+n, func(x int64) int64 { return x + 1 })
				check(err)
				check(e.CreateTemporarySystemFunction("f_"+n, def))
				check(e.FromRecords("rec_"+n, schema, []arrow.RecordBatch{rec}))
				check(e.FromValues("val_"+n, []struct{ V int64 }{{1}, {2}}))
				check(e.CreateTemporaryTable("tmp_"+n, ForConnector("datagen").
					Schema(NewSchema().Column("a", types.Type{Kind: types.Int}).Build()).Option("number-of-rows", "3").Build()))
				res, err := e.ExecuteSQL(ctx, fmt.Sprintf("SELECT f_%s(x) FROM rec_%s", n, n))
				check(err)
				if err == nil {
					_ = res.Rows()
				}
				tbl, err := e.SQLQuery("SELECT a, COUNT(*) FROM base GROUP BY a")
				check(err)
				if err == nil {
					_ = tbl.Schema()
					_, err = tbl.Explain()
					check(err)
					res, err := tbl.Execute(ctx)
					check(err)
					if err == nil {
						_ = res.Rows()
					}
					check(tbl.ExecuteArrow(ctx, func(arrow.RecordBatch) error { return nil }))
				}
				v, err := e.From("val_" + n)
				check(err)
				if err == nil {
					check(e.CreateTemporaryView("view_"+n, v))
				}
				_, err = e.ExecuteSQL(ctx, "SHOW TABLES")
				check(err)
				_, err = e.ExecuteSQL(ctx, "SHOW FUNCTIONS")
				check(err)
				_, err = e.ExecuteSQL(ctx, "SHOW JOBS")
				check(err)
				_ = e.Jobs()
				_ = e.DrainJob(ctx, "nosuchjob")
				_, _ = e.StopJob(ctx, "nosuchjob", false, "")
				check(e.AwaitJobs(ctx))
				_ = e.DropTemporaryView("view_" + n)
				_ = e.DropTemporaryTable("tmp_" + n)
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.NoError(t, e.Close())
	_, err := e.ExecuteSQL(ctx, "SHOW TABLES")
	require.Error(t, err)
}
