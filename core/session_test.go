package core

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/catalog"
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
