package core

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/types"
)

func fileCatalogDDL(dir string) string {
	return fmt.Sprintf("CREATE CATALOG fc WITH ('type' = 'tablerun_file', 'path' = '%s')", dir)
}

func rows(t *testing.T, e *TableEnvironment, sql string) [][]any {
	t.Helper()
	return exec(t, e, sql).Rows()
}

// TestFileCatalogSurvivesRestart creates permanent and temporary objects in
// one session and reads them from a new one over the same directory.
func TestFileCatalogSurvivesRestart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cat")
	e1 := newEnv(t)
	for _, sql := range []string{
		fileCatalogDDL(dir),
		"USE CATALOG fc",
		"CREATE DATABASE d1 COMMENT 'first db'",
		"ALTER DATABASE d1 SET ('k' = 'v')",
		"CREATE TABLE d1.t (id INT NOT NULL, name STRING COMMENT 'the name', ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND, PRIMARY KEY (id) NOT ENFORCED) COMMENT 'a table' WITH ('connector' = 'datagen')",
		"CREATE TABLE d1.gone (a INT) WITH ('connector' = 'blackhole')",
		"CREATE VIEW d1.v (x) COMMENT 'a view' AS SELECT 41 + 1",
		"CREATE VIEW d1.tv AS SELECT * FROM d1.t",
		"CREATE TEMPORARY TABLE d1.tmp (a INT) WITH ('connector' = 'blackhole')",
		"CREATE TEMPORARY VIEW d1.tmpv AS SELECT 1",
		"ALTER TABLE d1.t ADD extra BIGINT AFTER id",
		"ALTER TABLE d1.t RENAME name TO full_name",
		"DROP TABLE d1.gone",
		"CREATE TABLE d1.old (a INT) WITH ('connector' = 'blackhole')",
		"ALTER TABLE d1.old RENAME TO renamed",
		"ALTER VIEW d1.v RENAME TO v2",
		"CREATE TABLE `default`.`we.ird/name` (a INT) WITH ('connector' = 'blackhole')",
		"CREATE FUNCTION d1.Lower1 AS 'LowerUDF' LANGUAGE JAVA",
		"CREATE TEMPORARY FUNCTION d1.tmpf AS 'LowerUDF' LANGUAGE JAVA",
	} {
		exec(t, e1, sql)
	}
	wantTables := rows(t, e1, "SHOW TABLES FROM fc.d1")
	require.Equal(t, [][]any{{"renamed"}, {"t"}, {"tmp"}, {"tmpv"}, {"tv"}, {"v2"}}, wantTables, "SHOW TABLES lists views too, as in Flink")
	showT := rows(t, e1, "SHOW CREATE TABLE fc.d1.t")
	descTV := rows(t, e1, "DESCRIBE fc.d1.tv")
	require.NoError(t, e1.Close())

	e2 := newEnv(t)
	exec(t, e2, fileCatalogDDL(dir))
	require.Equal(t, [][]any{{"d1"}, {"default"}}, rows(t, e2, "SHOW DATABASES FROM fc"))
	require.Equal(t, [][]any{{"renamed"}, {"t"}, {"tv"}, {"v2"}}, rows(t, e2, "SHOW TABLES FROM fc.d1"), "temporary objects are gone")
	require.Equal(t, [][]any{{"tv"}, {"v2"}}, rows(t, e2, "SHOW VIEWS FROM fc.d1"))
	require.Equal(t, [][]any{{"we.ird/name"}}, rows(t, e2, "SHOW TABLES FROM fc.`default`"))
	exec(t, e2, "USE fc.d1")
	require.Equal(t, [][]any{{"lower1"}}, rows(t, e2, "SHOW USER FUNCTIONS"), "permanent functions survive, temporary ones do not")
	exec(t, e2, "USE CATALOG default_catalog")
	require.Equal(t, showT, rows(t, e2, "SHOW CREATE TABLE fc.d1.t"))
	require.Contains(t, showT[0][0], "`extra` BIGINT")
	require.Contains(t, showT[0][0], "`full_name` VARCHAR(2147483647) COMMENT 'the name'")
	require.Equal(t, descTV, rows(t, e2, "DESCRIBE fc.d1.tv"))
	require.Equal(t, "TIMESTAMP(3) *ROWTIME*", descTV[2][1])
	require.Equal(t, [][]any{{int32(42)}}, rows(t, e2, "SELECT * FROM fc.d1.v2"))
	c, ok := e2.Catalogs().Catalog("fc")
	require.True(t, ok)
	db, err := c.GetDatabase("d1")
	require.NoError(t, err)
	require.Equal(t, &catalog.Database{Comment: "first db", Properties: map[string]string{"k": "v"}}, db)

	// dropping a database with CASCADE removes it from the disk as well
	exec(t, e2, "DROP DATABASE fc.d1 CASCADE")
	require.NoError(t, e2.Close())
	e3 := newEnv(t)
	exec(t, e3, fileCatalogDDL(dir))
	require.Equal(t, [][]any{{"default"}}, rows(t, e3, "SHOW DATABASES FROM fc"))
}

// TestFileCatalogCorruptFile checks that a damaged metadata file gives an
// error naming it, and that the rest of the catalog stays usable.
func TestFileCatalogCorruptFile(t *testing.T) {
	dir := t.TempDir()
	e := newEnv(t)
	exec(t, e, fileCatalogDDL(dir))
	exec(t, e, "CREATE TABLE fc.`default`.good (a INT) WITH ('connector' = 'blackhole')")
	exec(t, e, "CREATE TABLE fc.`default`.bad (a INT) WITH ('connector' = 'blackhole')")
	bad := filepath.Join(dir, "default", "objects", "bad.json")
	require.FileExists(t, bad)
	cases := []struct{ name, content string }{
		{"truncated", `{"version": 1, "kind": "TAB`},
		{"unknown type", `{"version": 1, "kind": "TABLE", "table": {"columns": [{"name": "a", "type": {"kind": "NOPE"}}]}}`},
		{"newer version", `{"version": 99, "kind": "TABLE", "table": {"columns": []}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, os.WriteFile(bad, []byte(tc.content), 0o644))
			for _, sql := range []string{"DESCRIBE fc.`default`.bad", "SELECT * FROM fc.`default`.bad", "SHOW VIEWS FROM fc.`default`", "DROP TABLE fc.`default`.bad"} {
				_, err := e.ExecuteSQL(context.Background(), sql)
				require.Error(t, err, sql)
				require.Contains(t, err.Error(), "cannot read its metadata file "+bad, sql)
				if !strings.HasPrefix(sql, "SELECT") {
					require.True(t, errors.Is(err, catalog.ErrCorrupt), "%s: %v", sql, err)
				}
			}
			exec(t, e, "DESCRIBE fc.`default`.good")
		})
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "default", "database.json"), []byte("{"), 0o644))
	_, err := e.ExecuteSQL(context.Background(), "USE fc.`default`")
	require.ErrorIs(t, err, catalog.ErrCorrupt)
	require.Contains(t, err.Error(), filepath.Join(dir, "default", "database.json"))

	// a directory that is not a catalog is refused
	other := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(other, "x.txt"), []byte("x"), 0o644))
	_, err = e.ExecuteSQL(context.Background(), fmt.Sprintf("CREATE CATALOG c2 WITH ('type' = 'tablerun_file', 'path' = '%s')", other))
	require.Error(t, err)
	require.Contains(t, err.Error(), "holds no tablerun_file catalog")
	_, err = e.ExecuteSQL(context.Background(), "CREATE CATALOG c3 WITH ('type' = 'tablerun_file')")
	require.EqualError(t, err, "One or more required options are missing.\n\nMissing required options are:\n\npath")
}

// TestCatalogStatements covers DROP CATALOG and the catalog errors with
// Flink's texts.
func TestCatalogStatements(t *testing.T) {
	e := newEnv(t)
	cases := []struct{ sql, reason string }{
		{"DROP CATALOG nope", "org.apache.flink.table.catalog.exceptions.CatalogException: Catalog nope does not exist."},
		{"DROP CATALOG default_catalog", "org.apache.flink.table.catalog.exceptions.CatalogException: Cannot drop a catalog which is currently in use."},
		{"CREATE DATABASE default_database", "org.apache.flink.table.catalog.exceptions.DatabaseAlreadyExistException: Database default_database already exists in Catalog default_catalog."},
		{"DROP DATABASE nope", "org.apache.flink.table.catalog.exceptions.DatabaseNotExistException: Database nope does not exist in Catalog default_catalog."},
		{"CREATE VIEW v AS SELECT 1", ""},
		{"CREATE VIEW v AS SELECT 2", "org.apache.flink.table.catalog.exceptions.TableAlreadyExistException: Table (or view) default_database.v already exists in Catalog default_catalog."},
		{"CREATE DATABASE d2", ""},
		{"CREATE TABLE d2.t (a INT) WITH ('connector' = 'blackhole')", ""},
		{"DROP DATABASE d2", "org.apache.flink.table.catalog.exceptions.DatabaseNotEmptyException: Database d2 in catalog default_catalog is not empty."},
		{"DROP DATABASE d2 RESTRICT", "org.apache.flink.table.catalog.exceptions.DatabaseNotEmptyException: Database d2 in catalog default_catalog is not empty."},
		{"DROP TEMPORARY VIEW nope", "org.apache.flink.table.api.ValidationException: Temporary table or view with identifier 'default_catalog.default_database.nope' does not exist."},
		{"ALTER VIEW nope RENAME TO x", "org.apache.flink.table.api.ValidationException: View `default_catalog`.`default_database`.`nope` doesn't exist or is a temporary view."},
		{"ALTER TABLE v SET ('a' = 'b')", "org.apache.flink.table.api.ValidationException: ALTER TABLE for a view is not allowed"},
		{"ALTER TABLE d2.t DROP b", "org.apache.flink.table.api.ValidationException: Failed to execute ALTER TABLE statement.\nThe column `b` does not exist in the base table."},
		{"ALTER TABLE d2.t ADD (b AS a + 1, c INT FIRST)", ""},
		{"ALTER TABLE d2.t DROP a", "org.apache.flink.table.api.ValidationException: Failed to execute ALTER TABLE statement.\nThe column `a` is referenced by computed column `b`."},
		{"ALTER TABLE d2.t DROP (a, b)", ""},
		{"ALTER TABLE d2.t MODIFY x INT", "org.apache.flink.table.api.ValidationException: Failed to execute ALTER TABLE statement.\nTry to modify a column `x` which does not exist in the table."},
		{"ALTER TABLE d2.t DROP PRIMARY KEY", "org.apache.flink.table.api.ValidationException: Failed to execute ALTER TABLE statement.\nThe base table does not define any primary key."},
		{"ALTER TABLE d2.t DROP WATERMARK", "org.apache.flink.table.api.ValidationException: Failed to execute ALTER TABLE statement.\nThe base table does not define any watermark strategy."},
		{"ALTER TABLE d2.t ADD PRIMARY KEY (c) NOT ENFORCED", ""},
		{"ALTER TABLE d2.t ADD PRIMARY KEY (c) NOT ENFORCED", "org.apache.flink.table.api.ValidationException: Failed to execute ALTER TABLE statement.\nThe base table has already defined the primary key constraint [`c`]. You might want to drop it before adding a new one."},
		{"ALTER TABLE d2.t DROP CONSTRAINT x", "org.apache.flink.table.api.ValidationException: Failed to execute ALTER TABLE statement.\nThe base table does not define a primary key constraint named 'x'. Available constraint name: ['PK_c']."},
		{"ALTER TABLE d2.t DROP c", "org.apache.flink.table.api.ValidationException: Failed to execute ALTER TABLE statement.\nThe column `c` is used as the primary key."},
		{"ALTER VIEW v AS SELECT 'x' AS s", ""},
	}
	for _, c := range cases {
		_, err := e.ExecuteSQL(context.Background(), c.sql)
		if c.reason == "" {
			require.NoError(t, err, c.sql)
			continue
		}
		require.Error(t, err, c.sql)
		require.Equal(t, c.reason, Reason(err), c.sql)
	}
	require.Equal(t, [][]any{{"x"}}, rows(t, e, "SELECT * FROM v"))
	require.Contains(t, rows(t, e, "SHOW CREATE TABLE d2.t")[0][0], "CONSTRAINT `PK_c` PRIMARY KEY (`c`) NOT ENFORCED")
	exec(t, e, "CREATE CATALOG c2 WITH ('type' = 'generic_in_memory')")
	exec(t, e, "USE CATALOG c2")
	exec(t, e, "DROP CATALOG default_catalog")
	exec(t, e, "DROP CATALOG IF EXISTS default_catalog")
	require.Equal(t, [][]any{{"c2"}}, rows(t, e, "SHOW CATALOGS"))
}

func TestSessionAPI(t *testing.T) {
	e := newEnv(t)
	exec(t, e, "CREATE DATABASE `my.db`")
	exec(t, e, "CREATE TABLE `my.db`.t (id BIGINT NOT NULL, name STRING) WITH ('connector' = 'blackhole')")
	exec(t, e, "CREATE TEMPORARY VIEW tv AS SELECT 1 AS x")
	exec(t, e, "CREATE TEMPORARY TABLE tt (a INT) WITH ('connector' = 'blackhole')")
	exec(t, e, "CREATE VIEW pv AS SELECT 2 AS y")
	tbl, err := e.From("`my.db`.t")
	require.NoError(t, err)
	require.Equal(t, "root\n |-- id: BIGINT NOT NULL\n |-- name: STRING\n", tbl.SchemaString())
	var b strings.Builder
	require.NoError(t, tbl.PrintSchema(&b))
	require.Equal(t, tbl.SchemaString(), b.String())
	_, err = e.From("nope")
	require.Error(t, err)
	q, err := e.SQLQuery("SELECT id + 1 AS next FROM `my.db`.t WHERE id > 0")
	require.NoError(t, err)
	require.NoError(t, e.CreateTemporaryView("`my.db`.nexts", q))
	require.Error(t, e.CreateTemporaryView("`my.db`.nexts", q))
	view, temp, err := e.Catalogs().Lookup(catalog.ObjectIdentifier{Catalog: "default_catalog", Database: "my.db", Object: "nexts"})
	require.NoError(t, err)
	require.True(t, temp)
	require.Equal(t, "SELECT id + 1 AS next FROM `my.db`.t WHERE id > 0", view.(*catalog.View).OriginalQuery)
	require.Equal(t, [][]any{{"next", "BIGINT", false, nil, nil, nil}}, rows(t, e, "DESCRIBE `my.db`.nexts"))
	exec(t, e, "DROP TEMPORARY VIEW `my.db`.nexts")

	require.Equal(t, []string{"default_catalog"}, e.ListCatalogs())
	dbs, err := e.ListDatabases()
	require.NoError(t, err)
	require.Equal(t, []string{"default_database", "my.db"}, dbs)
	tables, err := e.ListTables()
	require.NoError(t, err)
	require.Equal(t, []string{"pv", "tt", "tv"}, tables)
	views, err := e.ListViews()
	require.NoError(t, err)
	require.Equal(t, []string{"pv", "tv"}, views)
	require.Equal(t, []string{"tt"}, e.ListTemporaryTables())
	require.Equal(t, []string{"tv"}, e.ListTemporaryViews())
	require.True(t, e.DropTemporaryView("tv"))
	require.False(t, e.DropTemporaryView("tv"))
	require.False(t, e.DropTemporaryView("tt"), "tt is a table")
	require.True(t, e.DropTemporaryTable("default_catalog.default_database.tt"))

	require.NoError(t, e.RegisterCatalog("mem", catalog.NewInMemory("mem", "d")))
	require.Error(t, e.RegisterCatalog("mem", catalog.NewInMemory("mem", "d")))
	require.NoError(t, e.UseCatalog("mem"))
	require.Error(t, e.UseDatabase("nope"))
	require.NoError(t, e.UseDatabase("d"))
	require.Equal(t, [][]any{{"mem"}}, rows(t, e, "SHOW CURRENT CATALOG"))

	_, err = e.ExecuteSQL(context.Background(), "SELECT 1; SELECT 2")
	require.Equal(t, "java.lang.IllegalArgumentException: only single statement supported", Reason(err))
	_, err = e.ExecuteSQL(context.Background(), "SELECT 1; SELEC 2")
	require.Contains(t, Reason(err), "ParseException")

	require.NoError(t, e.Close())
	require.NoError(t, e.Close())
	_, err = e.ExecuteSQL(context.Background(), "SELECT 1")
	require.EqualError(t, err, "The TableEnvironment has been closed.")
}

func TestSplitPath(t *testing.T) {
	cases := map[string][]string{
		"t":               {"t"},
		"db.t":            {"db", "t"},
		"c.`my.db`.t":     {"c", "my.db", "t"},
		"`a``b`":          {"a`b"},
		"`default`.`mod`": {"default", "mod"},
	}
	for in, want := range cases {
		require.Equal(t, want, splitPath(in), in)
	}
}

// TestCloseReleases creates and closes many sessions; nothing may stay
// behind (goroutines, catalog state).
func TestCloseReleases(t *testing.T) {
	before := runtime.NumGoroutine()
	for i := 0; i < 100; i++ {
		e := newEnv(t)
		exec(t, e, "CREATE TEMPORARY VIEW v AS SELECT 1 AS x")
		exec(t, e, "CREATE FUNCTION f AS 'LowerUDF' LANGUAGE JAVA")
		exec(t, e, "CREATE CATALOG c WITH ('type' = 'generic_in_memory')")
		require.Equal(t, [][]any{{int32(1)}}, rows(t, e, "SELECT x FROM v"))
		require.NoError(t, e.Close())
	}
	runtime.GC()
	require.LessOrEqual(t, runtime.NumGoroutine(), before+2)
}

// TestConcurrentSession runs DDL, USE and queries from many goroutines on
// one session (run with -race).
func TestConcurrentSession(t *testing.T) {
	e := newEnv(t)
	exec(t, e, "CREATE DATABASE other")
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 15; i++ {
				name := fmt.Sprintf("default_catalog.default_database.t_%d_%d", g, i)
				use := "USE default_database"
				if g%2 == 0 {
					use = "USE other"
				}
				for _, sql := range []string{
					"CREATE TABLE " + name + " (a INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3')",
					"CREATE TEMPORARY VIEW " + name + "_v AS SELECT COUNT(*) AS n FROM " + name,
					"SELECT * FROM " + name + "_v",
					use,
					"SHOW TABLES FROM default_catalog.default_database",
					"DESCRIBE " + name,
					"ALTER TABLE " + name + " ADD b STRING",
					"DROP TEMPORARY VIEW " + name + "_v",
					"DROP TABLE " + name,
				} {
					res, err := e.ExecuteSQL(context.Background(), sql)
					if err != nil {
						errs <- fmt.Errorf("%s: %w", sql, err)
						return
					}
					if strings.HasPrefix(sql, "SELECT") && !assertCount(res) {
						errs <- fmt.Errorf("%s: wrong result %v", sql, res.Rows())
						return
					}
				}
				if _, err := e.SQLQuery("SELECT 1"); err != nil {
					errs <- err
					return
				}
				_, _ = e.ListTables()
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Empty(t, rows(t, e, "SHOW TABLES FROM default_catalog.default_database"))
}

func assertCount(res *TableResult) bool {
	r := res.Rows()
	return len(r) == 1 && len(r[0]) == 1 && fmt.Sprint(r[0][0]) == "3"
}

func TestTableDescriptor(t *testing.T) {
	e := newEnv(t)
	schema := NewSchema().
		Column("id", types.BigIntT.WithNullable(false)).WithComment("the id").
		Column("ts", types.TimestampOf(3)).
		Column("ltz", types.TimestampLTZOf(3)).
		Column("tags", types.ArrayOf(types.StringT)).
		Column("r", types.RowOf(types.Field{Name: "x", Type: types.IntT})).
		ColumnByExpression("id2", "`id` * 2").
		ColumnByExpression("pt", "PROCTIME()").
		Watermark("ts", "`ts` - INTERVAL '1' SECOND").
		PrimaryKeyNamed("pk", "id").
		Build()
	d := ForConnector("datagen").Schema(schema).Option("number-of-rows", "2").Comment("made in Go").Build()
	require.NoError(t, e.CreateTable("gen", d))
	require.Error(t, e.CreateTable("gen", d), "exists")
	show := rows(t, e, "SHOW CREATE TABLE gen")[0][0].(string)
	require.Equal(t, "CREATE TABLE `default_catalog`.`default_database`.`gen` (\n"+
		"  `id` BIGINT NOT NULL COMMENT 'the id',\n"+
		"  `ts` TIMESTAMP(3),\n"+
		"  `ltz` TIMESTAMP(3) WITH LOCAL TIME ZONE,\n"+
		"  `tags` ARRAY<VARCHAR(2147483647)>,\n"+
		"  `r` ROW<`x` INT>,\n"+
		"  `id2` AS `id` * 2,\n"+
		"  `pt` AS PROCTIME(),\n"+
		"  WATERMARK FOR `ts` AS `ts` - INTERVAL '1' SECOND,\n"+
		"  CONSTRAINT `pk` PRIMARY KEY (`id`) NOT ENFORCED\n"+
		")\nCOMMENT 'made in Go'\nWITH (\n  'connector' = 'datagen',\n  'number-of-rows' = '2'\n)\n", show)
	require.Equal(t, [][]any{{int64(2)}}, rows(t, e, "SELECT COUNT(*) FROM gen"))

	tmp := ForConnector("blackhole").Schema(NewSchema().Column("a", types.IntT).Build()).PartitionedBy("a").Build()
	require.NoError(t, e.CreateTemporaryTable("db_tmp", tmp))
	require.Equal(t, []string{"db_tmp"}, e.ListTemporaryTables())
	require.Error(t, e.CreateTable("nothing", ForConnector("blackhole").Build()))
}

// TestCatalogStore keeps CREATE CATALOG across sessions with Flink's
// table.catalog-store.kind = 'file'.
func TestCatalogStore(t *testing.T) {
	storeDir, dataDir := t.TempDir(), t.TempDir()
	open := func() *TableEnvironment {
		e := NewTableEnvironment(InBatchMode().
			WithOption("table.catalog-store.kind", "file").
			WithOption("table.catalog-store.file.path", storeDir))
		e.SetOutput(io.Discard, io.Discard)
		return e
	}
	e1 := open()
	exec(t, e1, fileCatalogDDL(dataDir))
	exec(t, e1, "CREATE CATALOG mem COMMENT 'it''s mine' WITH ('type' = 'generic_in_memory', 'default-database' = 'd')")
	exec(t, e1, "CREATE TABLE fc.`default`.t (a INT) WITH ('connector' = 'blackhole')")
	exec(t, e1, "ALTER CATALOG mem SET ('default-database' = 'd2')")
	require.NoError(t, e1.Close())

	e2 := open()
	require.Equal(t, [][]any{{"default_catalog"}, {"fc"}, {"mem"}}, rows(t, e2, "SHOW CATALOGS"))
	require.Equal(t, [][]any{{"name", "mem"}, {"type", "generic_in_memory"}, {"comment", "it's mine"}, {"option:default-database", "d2"}},
		rows(t, e2, "DESCRIBE CATALOG EXTENDED mem"))
	require.Equal(t, [][]any{{"t"}}, rows(t, e2, "SHOW TABLES FROM fc.`default`"))
	require.Equal(t, [][]any{{"d2"}}, rows(t, e2, "SHOW DATABASES FROM mem"), "the in-memory catalog comes back empty")
	exec(t, e2, "DROP CATALOG mem")
	require.NoError(t, e2.Close())

	e3 := open()
	require.Equal(t, [][]any{{"default_catalog"}, {"fc"}}, rows(t, e3, "SHOW CATALOGS"))
	require.NoError(t, e3.Close())

	require.NoError(t, os.WriteFile(filepath.Join(storeDir, "fc.yaml"), []byte("type: [oops"), 0o644))
	e4 := open()
	_, err := e4.ExecuteSQL(context.Background(), "SHOW CATALOGS")
	require.ErrorIs(t, err, catalog.ErrCorrupt)
	require.Contains(t, err.Error(), filepath.Join(storeDir, "fc.yaml"))

	bad := NewTableEnvironment(InBatchMode().WithOption("table.catalog-store.kind", "nope"))
	_, err = bad.ExecuteSQL(context.Background(), "SHOW CATALOGS")
	require.ErrorContains(t, err, "Could not find any factory for identifier 'nope'")
}

func TestFromValues(t *testing.T) {
	type Point struct{ X, Y int32 }
	type Order struct {
		ID      int64
		Product string `tablerun:"product"`
		Amount  *float64
		At      time.Time `tablerun:"at,timestamp"`
		Tags    []string
		Where   Point
		Wait    time.Duration
		Attrs   map[string]int32
		secret  string
		Skipped bool `tablerun:"-"`
	}
	amount := 2.5
	at := time.Date(2024, 5, 6, 7, 8, 9, 0, time.FixedZone("X", 3600))
	orders := []Order{
		{ID: 1, Product: "pen", Amount: &amount, At: at, Tags: []string{"a", "b"}, Where: Point{1, 2}, Wait: 1500 * time.Millisecond, Attrs: map[string]int32{"z": 1, "a": 2}},
		{ID: 2, Product: "ink", secret: "s"},
	}
	e := newEnv(t)
	require.NoError(t, e.FromValues("orders", orders))
	tbl, err := e.From("orders")
	require.NoError(t, err)
	require.Equal(t, "root\n |-- ID: BIGINT NOT NULL\n |-- product: STRING NOT NULL\n |-- Amount: DOUBLE\n |-- at: TIMESTAMP(6) NOT NULL\n"+
		" |-- Tags: ARRAY<STRING NOT NULL>\n |-- Where: ROW<`X` INT NOT NULL, `Y` INT NOT NULL> NOT NULL\n"+
		" |-- Wait: INTERVAL DAY(2) TO SECOND(3) NOT NULL\n |-- Attrs: MAP<STRING NOT NULL, INT NOT NULL>\n", tbl.SchemaString())
	res := exec(t, e, "SELECT ID, product, Amount, CAST(at AS STRING), CARDINALITY(Tags), `Where`.Y, Attrs['a'] FROM orders ORDER BY ID")
	require.Equal(t, [][]any{
		{int64(1), "pen", 2.5, "2024-05-06 07:08:09.000000", int32(2), int32(2), int32(2)},
		{int64(2), "ink", nil, "0001-01-01 00:00:00.000000", nil, int32(0), nil},
	}, res.Rows())

	seq := func(yield func(*Point) bool) {
		for i := int32(0); i < 5000; i++ {
			if !yield(&Point{X: i, Y: -i}) {
				return
			}
		}
	}
	require.NoError(t, e.FromValues("points", iter.Seq[*Point](seq)))
	require.Equal(t, [][]any{{int64(5000), int64(-12497500)}}, rows(t, e, "SELECT COUNT(*), CAST(SUM(Y) AS BIGINT) FROM points"))

	for _, bad := range []any{nil, 3, []int{1}, []struct{ c chan int }{{}}, []struct{ C chan int }{{}}} {
		require.Error(t, e.FromValues("bad", bad), "%T", bad)
	}
}

func TestTableAPI(t *testing.T) {
	e := newEnv(t)
	exec(t, e, "CREATE TEMPORARY VIEW orders(`user`, product, amount) AS VALUES ('ann', 'pen', 3), ('bob', 'ink', 5), ('ann', 'ink', 4), ('cy', 'pad', 1)")
	exec(t, e, "CREATE TEMPORARY VIEW users(name, city) AS VALUES ('ann', 'Oslo'), ('bob', 'Rome')")
	orders, err := e.From("orders")
	require.NoError(t, err)
	top := orders.
		Filter(Col("amount").IsGreater(Lit(1))).
		GroupBy(Col("user")).
		Select(Col("user"), Col("amount").Sum().As("total"), CountStar().As("n")).
		OrderBy(Col("total").Desc()).
		Limit(2)
	require.NoError(t, top.Err())
	require.Equal(t, "root\n |-- user: VARCHAR(3) NOT NULL\n |-- total: INT NOT NULL\n |-- n: BIGINT NOT NULL\n", top.SchemaString())
	res, err := top.Execute(context.Background())
	require.NoError(t, err)
	require.Equal(t, [][]any{{"ann", int32(7), int64(2)}, {"bob", int32(5), int64(1)}}, res.Rows())
	plan, err := top.Explain()
	require.NoError(t, err)
	require.Contains(t, plan, "== Optimized Physical Plan ==")

	users, err := e.From("users")
	require.NoError(t, err)
	joined := orders.Join(users, Col("user").IsEqual(Col("name"))).
		Select(Col("user"), Col("city"), Call("UPPER", Col("product")).As("p")).
		OrderBy(Col("p"), Col("user"))
	res, err = joined.Execute(context.Background())
	require.NoError(t, err)
	require.Equal(t, [][]any{{"ann", "Oslo", "INK"}, {"bob", "Rome", "INK"}, {"ann", "Oslo", "PEN"}}, res.Rows())

	left := orders.LeftOuterJoin(users, Col("user").IsEqual(Col("name"))).Filter(Col("city").IsNull()).Select(Col("user")).Distinct()
	res, err = left.Execute(context.Background())
	require.NoError(t, err)
	require.Equal(t, [][]any{{"cy"}}, res.Rows())

	lits := orders.Select(Lit(nil).Cast("INT").As("n"), Lit(true).As("b"), Lit(2.5).As("d"), Lit("it's").As("s"),
		Lit(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)).As("ts"), Col("amount").Mod(Lit(2)).As("m"),
		SQLExpr("amount * 10").As("x")).Limit(1)
	res, err = lits.Execute(context.Background())
	require.NoError(t, err)
	require.Equal(t, [][]any{{nil, true, 2.5, "it's", int64(1704164645000000), int32(1), int32(30)}}, res.Rows())

	bad := orders.Filter(Col("nope").IsEqual(Lit(1))).Select(Col("user"))
	require.Error(t, bad.Err())
	_, err = bad.Execute(context.Background())
	require.ErrorContains(t, err, "Column 'nope' not found")
	_, err = bad.Explain()
	require.Error(t, err)
	require.Nil(t, bad.Schema())
}

// TestViewTimeAttributesStreaming checks DESCRIBE of a view over a table
// with a watermark and a proctime column in streaming mode.
func TestViewTimeAttributesStreaming(t *testing.T) {
	for _, settings := range []EnvironmentSettings{InStreamingMode(), InBatchMode()} {
		e := NewTableEnvironment(settings)
		exec(t, e, "CREATE TABLE src (id INT, ts TIMESTAMP(3), pt AS PROCTIME(), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen')")
		exec(t, e, "CREATE VIEW v AS SELECT pt, id, ts FROM src WHERE id > 0")
		require.Equal(t, [][]any{
			{"pt", "TIMESTAMP_LTZ(3) *PROCTIME*", false, nil, nil, nil},
			{"id", "INT", true, nil, nil, nil},
			{"ts", "TIMESTAMP(3) *ROWTIME*", true, nil, nil, nil},
		}, rows(t, e, "DESCRIBE v"))
		require.NoError(t, e.Close())
	}
}
