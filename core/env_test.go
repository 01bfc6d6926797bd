package core

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/config"
)

func newEnv(t *testing.T) *TableEnvironment {
	t.Helper()
	e := NewTableEnvironment(InBatchMode())
	var sink bytes.Buffer
	e.SetOutput(&sink, &sink)
	return e
}

func exec(t testing.TB, e *TableEnvironment, sql string) *TableResult {
	t.Helper()
	res, err := e.ExecuteSQL(context.Background(), sql)
	require.NoError(t, err, sql)
	return res
}

func printed(t *testing.T, res *TableResult) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, res.Print(&b))
	return b.String()
}

func TestSetReset(t *testing.T) {
	e := newEnv(t)
	require.Equal(t, Success, exec(t, e, "SET 'sql-client.execution.result-mode' = 'tableau'").Kind())
	exec(t, e, "SET 'a.b' = 'c'")
	res := exec(t, e, "SET")
	require.Equal(t, "+----------------------------------+---------+\n"+
		"|                              key |   value |\n"+
		"+----------------------------------+---------+\n"+
		"|                              a.b |       c |\n"+
		"|           execution.runtime-mode |   BATCH |\n"+
		"| sql-client.execution.result-mode | tableau |\n"+
		"+----------------------------------+---------+\n"+
		"3 rows in set\n", printed(t, res))

	_, err := e.ExecuteSQL(context.Background(), "SET 'table.dml-sync' = 'perhaps'")
	require.Error(t, err)
	require.False(t, e.Config().IsSet(config.KeyDMLSync), "a failed SET leaves the session unchanged")

	exec(t, e, "RESET 'a.b'")
	require.Len(t, e.Config().Explicit(), 2)
	exec(t, e, "RESET")
	require.Equal(t, []config.Entry{{Key: config.KeyRuntimeMode, Value: "BATCH"}}, e.Config().Explicit())
}

func TestBadInitialOption(t *testing.T) {
	e := NewTableEnvironment(InBatchMode().WithOption(config.KeyDMLSync, "nope"))
	_, err := e.ExecuteSQL(context.Background(), "SHOW TABLES")
	require.Error(t, err)
	_, err = e.SQLQuery("SELECT 1")
	require.Error(t, err)
}

const ordersDDL = "CREATE TABLE orders (\n" +
	"  `user` BIGINT NOT NULL COMMENT 'the user',\n" +
	"  product VARCHAR(32),\n" +
	"  amount INT,\n" +
	"  ts TIMESTAMP(3),\n" +
	"  ptime AS PROCTIME(),\n" +
	"  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND,\n" +
	"  PRIMARY KEY (`user`) NOT ENFORCED\n" +
	") WITH ('connector' = 'datagen', 'number-of-rows' = '3')"

func TestDDLShowDescribe(t *testing.T) {
	e := newEnv(t)
	exec(t, e, ordersDDL)
	exec(t, e, "CREATE TEMPORARY VIEW v1 AS SELECT * FROM orders")
	require.Equal(t, [][]any{{"orders"}, {"v1"}}, exec(t, e, "SHOW TABLES").Rows())
	require.Equal(t, [][]any{{"v1"}}, exec(t, e, "SHOW VIEWS").Rows())
	require.Equal(t, [][]any{{"default_catalog"}}, exec(t, e, "SHOW CURRENT CATALOG").Rows())
	require.Equal(t, [][]any{{"default_database"}}, exec(t, e, "SHOW CURRENT DATABASE").Rows())

	desc := exec(t, e, "DESCRIBE orders")
	require.Equal(t, []string{"name", "type", "null", "key", "extras", "watermark", "comment"}, desc.Schema().Names())
	rows := desc.Rows()
	require.Len(t, rows, 5)
	require.Equal(t, []any{"user", "BIGINT", false, "PRI(user)", nil, nil, "the user"}, rows[0])
	require.Equal(t, "TIMESTAMP(3) *ROWTIME*", rows[3][1])
	require.NotNil(t, rows[3][5])
	require.Equal(t, "TIMESTAMP_LTZ(3) *PROCTIME*", rows[4][1])
	require.Equal(t, "AS PROCTIME()", rows[4][4])
	require.Len(t, exec(t, e, "SHOW COLUMNS FROM orders LIKE '%t%'").Rows(), 4) // product, amount, ts, ptime

	sct := exec(t, e, "SHOW CREATE TABLE orders").Rows()[0][0].(string)
	require.True(t, strings.HasPrefix(sct, "CREATE TABLE `default_catalog`.`default_database`.`orders` (\n  `user` BIGINT NOT NULL COMMENT 'the user',\n  `product` VARCHAR(32),\n"), sct)
	require.Contains(t, sct, "  `ptime` AS PROCTIME(),\n  WATERMARK FOR `ts` AS ")
	require.True(t, strings.HasSuffix(sct, "  CONSTRAINT `PK_user` PRIMARY KEY (`user`) NOT ENFORCED\n)\nWITH (\n  'connector' = 'datagen',\n  'number-of-rows' = '3'\n)\n"), sct)

	scv := exec(t, e, "SHOW CREATE VIEW v1").Rows()[0][0].(string)
	require.True(t, strings.HasPrefix(scv, "CREATE TEMPORARY VIEW `default_catalog`.`default_database`.`v1` (\n  `user`,\n  `product`,\n"), scv)
	require.Contains(t, scv, "\n)\nAS ")

	_, err := e.ExecuteSQL(context.Background(), "SHOW CREATE VIEW orders")
	require.EqualError(t, err, "SHOW CREATE VIEW is only supported for views, but `default_catalog`.`default_database`.`orders` is a table. Please use SHOW CREATE TABLE instead.")
	require.Equal(t, ClassTable, classify(KindExecution, err).Class)

	_, err = e.ExecuteSQL(context.Background(), "DROP VIEW v1")
	require.Error(t, err)
	exec(t, e, "DROP TEMPORARY VIEW v1")
	exec(t, e, "DROP TABLE orders")
	require.Empty(t, exec(t, e, "SHOW TABLES").Rows())
}

func TestDatabases(t *testing.T) {
	e := newEnv(t)
	exec(t, e, "CREATE DATABASE db1")
	_, err := e.ExecuteSQL(context.Background(), "CREATE DATABASE db1")
	require.Error(t, err)
	exec(t, e, "CREATE DATABASE IF NOT EXISTS db1")
	exec(t, e, "USE db1")
	require.Equal(t, "db1", e.Catalogs().CurrentDatabase())
	_, err = e.ExecuteSQL(context.Background(), "DROP DATABASE db1")
	require.Error(t, err)
	exec(t, e, "USE CATALOG default_catalog")
	require.Equal(t, "default_database", e.Catalogs().CurrentDatabase())
	exec(t, e, "DROP DATABASE db1")
	require.Equal(t, [][]any{{"default_database"}}, exec(t, e, "SHOW DATABASES").Rows())
	_, err = e.ExecuteSQL(context.Background(), "USE CATALOG nope")
	require.Equal(t, ClassCatalog+": A catalog with name [nope] does not exist.", Reason(err))
}

func TestUnsupported(t *testing.T) {
	e := newEnv(t)
	exec(t, e, "CREATE TABLE t (a INT) WITH ('connector' = 'blackhole')")
	for _, sql := range []string{"ADD JAR '/x.jar'", "REMOVE JAR '/x.jar'"} {
		_, err := e.ExecuteSQL(context.Background(), sql)
		require.Error(t, err, sql)
		require.True(t, errors.Is(err, ErrNotSupported), sql)
		require.True(t, strings.HasPrefix(err.Error(), "not supported yet: "), err.Error())
	}
}

func TestStreamingRuns(t *testing.T) {
	e := NewTableEnvironment(InStreamingMode())
	exec(t, e, "CREATE TEMPORARY VIEW v AS SELECT 1 AS x")
	res := exec(t, e, "SELECT * FROM v")
	require.True(t, res.IsStreaming())
	require.Len(t, res.Rows(), 1)
	exec(t, e, "SET 'execution.runtime-mode' = 'batch'")
	require.Len(t, exec(t, e, "SELECT * FROM v").Rows(), 1)
}

func TestParseError(t *testing.T) {
	e := newEnv(t)
	_, err := e.ExecuteSQL(context.Background(), "SELECT * FROM")
	var ce *Error
	require.ErrorAs(t, err, &ce)
	require.Equal(t, KindParse, ce.Kind)
	require.True(t, strings.HasPrefix(Reason(err), ClassParse+": "), Reason(err))
}

func TestQueryAndTable(t *testing.T) {
	e := newEnv(t)
	res := exec(t, e, "SELECT id, COUNT(*) AS cnt, COUNT(DISTINCT str) AS uv FROM (VALUES (1, 'Hello World'), (2, 'Hi'), (2, 'Hi')) AS T(id, str) GROUP BY id ORDER BY id")
	require.True(t, res.IsQuery())
	require.Equal(t, "+----+-----+----+\n"+
		"| id | cnt | uv |\n"+
		"+----+-----+----+\n"+
		"|  1 |   1 |  1 |\n"+
		"|  2 |   2 |  1 |\n"+
		"+----+-----+----+\n"+
		"2 rows in set\n", printed(t, res))

	// SQLQuery plans but runs nothing: a table with an unknown connector
	// fails only when executed.
	exec(t, e, "CREATE TABLE k (a INT) WITH ('connector' = 'kafka')")
	tbl, err := e.SQLQuery("SELECT a + 1 AS b FROM k")
	require.NoError(t, err)
	require.Equal(t, []string{"b"}, tbl.Schema().Names())
	_, err = tbl.Execute(context.Background())
	require.Error(t, err)

	tbl, err = e.SQLQuery("SELECT 1 + 1 AS two")
	require.NoError(t, err)
	res, err = tbl.Execute(context.Background())
	require.NoError(t, err)
	require.Equal(t, [][]any{{int32(2)}}, res.Rows())
	plan, err := tbl.Explain()
	require.NoError(t, err)
	require.Contains(t, plan, "== Optimized Physical Plan ==")

	_, err = e.SQLQuery("CREATE TABLE x (a INT)")
	require.Error(t, err)
}

func TestInsertAndExplain(t *testing.T) {
	e := newEnv(t)
	var out bytes.Buffer
	e.SetOutput(&out, &out)
	exec(t, e, "CREATE TABLE p (a INT, b STRING) WITH ('connector' = 'print')")
	res := exec(t, e, "INSERT INTO p VALUES (1, 'x')")
	require.True(t, res.IsDML())
	require.Equal(t, []string{"default_catalog.default_database.p"}, res.Schema().Names())
	require.Equal(t, "+I[1, x]\n", out.String())

	res = exec(t, e, "EXPLAIN SELECT 1")
	require.Equal(t, []string{"result"}, res.Schema().Names())
	require.Contains(t, res.Rows()[0][0], "== Abstract Syntax Tree ==")
	res = exec(t, e, "EXPLAIN PLAN FOR INSERT INTO p SELECT 2, 'y'")
	require.Contains(t, res.Rows()[0][0], "Sink")
}

func TestClientOutput(t *testing.T) {
	e := newEnv(t)
	cases := []struct {
		sql, want, tag string
	}{
		{"SET 'a' = 'b'", "[INFO] Execute statement succeeded.\n", "info"},
		{"CREATE TABLE bh (a INT) WITH ('connector' = 'blackhole')", "[INFO] Execute statement succeeded.\n", "info"},
		{"INSERT INTO bh VALUES (1)", "[INFO] Complete execution of the SQL update statement.\n", "info"},
		{"SHOW VIEWS", "Empty set\n", "ok"},
		{"SELECT * FROM nope", "[ERROR] Could not execute SQL statement. Reason:\norg.apache.calcite.sql.validate.SqlValidatorException: Object 'nope' not found", "error"},
	}
	for _, c := range cases {
		res, err := e.ExecuteSQL(context.Background(), c.sql)
		var b bytes.Buffer
		require.NoError(t, PrintClientResult(&b, e.Config(), res, err))
		require.True(t, strings.HasPrefix(b.String(), c.want), b.String())
		require.Equal(t, c.tag, OutputTag(res, err))
	}
}

func TestAlterTable(t *testing.T) {
	e := newEnv(t)
	exec(t, e, "CREATE TABLE t (a INT) WITH ('connector' = 'datagen', 'x' = '1')")
	_, err := e.ExecuteSQL(context.Background(), "ALTER TABLE nope RENAME TO n2")
	require.Equal(t, ClassValidation+": Table `default_catalog`.`default_database`.`nope` doesn't exist or is a temporary table.", Reason(err))
	exec(t, e, "ALTER TABLE IF EXISTS nope RENAME TO n2")
	exec(t, e, "ALTER TABLE t RENAME TO t2")
	require.Equal(t, [][]any{{"t2"}}, exec(t, e, "SHOW TABLES").Rows())
	exec(t, e, "ALTER TABLE t2 SET ('connector' = 'blackhole', 'y' = '2')")
	exec(t, e, "ALTER TABLE t2 RESET ('x')")
	_, err = e.ExecuteSQL(context.Background(), "ALTER TABLE t2 RESET ()")
	require.Error(t, err)
	_, err = e.ExecuteSQL(context.Background(), "ALTER TABLE t2 RESET ('connector')")
	require.Error(t, err)
	sct := exec(t, e, "SHOW CREATE TABLE t2").Rows()[0][0].(string)
	require.Contains(t, sct, "WITH (\n  'connector' = 'blackhole',\n  'y' = '2'\n)\n")
	exec(t, e, "CREATE TEMPORARY TABLE tt (a INT) WITH ('connector' = 'blackhole')")
	_, err = e.ExecuteSQL(context.Background(), "ALTER TABLE tt SET ('k' = 'v')")
	require.Error(t, err)
}

func TestStatementSet(t *testing.T) {
	e := newEnv(t)
	var out bytes.Buffer
	e.SetOutput(&out, &out)
	exec(t, e, "CREATE TABLE p (a INT) WITH ('connector' = 'print')")
	_, err := e.ExecuteSQL(context.Background(), "END")
	require.Equal(t, ClassSQLExecution+": No Statement Set to submit. 'END' statement should be used after 'BEGIN STATEMENT SET'.", Reason(err))
	exec(t, e, "BEGIN STATEMENT SET")
	_, err = e.ExecuteSQL(context.Background(), "SELECT 1")
	require.Equal(t, ClassSQLExecution+": Only 'INSERT/CREATE TABLE AS' statement is allowed in Statement Set or use 'END' statement to submit Statement Set.", Reason(err))
	require.Equal(t, Success, exec(t, e, "INSERT INTO p VALUES (1)").Kind())
	require.Equal(t, Success, exec(t, e, "INSERT INTO p VALUES (2)").Kind())
	require.Empty(t, out.String(), "nothing runs before END")
	res := exec(t, e, "END")
	require.True(t, res.IsDML())
	require.Equal(t, []string{"default_catalog.default_database.p", "default_catalog.default_database.p_1"}, res.Schema().Names())
	require.Equal(t, "+I[1]\n+I[2]\n", out.String())
	exec(t, e, "BEGIN STATEMENT SET")
	require.Equal(t, Success, exec(t, e, "END").Kind())

	out.Reset()
	res = exec(t, e, "EXECUTE STATEMENT SET BEGIN INSERT INTO p VALUES (3); INSERT INTO p VALUES (4); END")
	require.True(t, res.IsDML())
	require.Equal(t, "+I[3]\n+I[4]\n", out.String())
}

func TestCatalogs(t *testing.T) {
	e := newEnv(t)
	exec(t, e, "CREATE CATALOG c1 COMMENT 'it''s mine' WITH ('type' = 'generic_in_memory', 'default-database' = 'db')")
	exec(t, e, "CREATE CATALOG IF NOT EXISTS c1 WITH ('type' = 'generic_in_memory')")
	_, err := e.ExecuteSQL(context.Background(), "CREATE CATALOG c1 WITH ('type' = 'generic_in_memory')")
	require.Equal(t, ClassCatalog+": Catalog c1 already exists.", Reason(err))
	_, err = e.ExecuteSQL(context.Background(), "CREATE CATALOG c2 WITH ('type' = 'hive')")
	require.Error(t, err)
	_, err = e.ExecuteSQL(context.Background(), "CREATE CATALOG c2 WITH ('a' = 'b')")
	require.Error(t, err)
	_, err = e.ExecuteSQL(context.Background(), "CREATE CATALOG c2 WITH ('type' = 'generic_in_memory', 'x' = 'y')")
	require.Error(t, err)
	require.Equal(t, [][]any{{"c1"}, {"default_catalog"}}, exec(t, e, "SHOW CATALOGS").Rows())

	require.Equal(t, [][]any{{"name", "c1"}, {"type", "generic_in_memory"}, {"comment", "it's mine"}}, exec(t, e, "DESCRIBE CATALOG c1").Rows())
	require.Len(t, exec(t, e, "DESC CATALOG EXTENDED c1").Rows(), 4)
	require.Equal(t, "CREATE CATALOG `c1`\nCOMMENT 'it''s mine'\nWITH (\n  'default-database' = 'db',\n  'type' = 'generic_in_memory'\n)\n",
		exec(t, e, "SHOW CREATE CATALOG c1").Rows()[0][0])

	exec(t, e, "USE CATALOG c1")
	require.Equal(t, [][]any{{"db"}}, exec(t, e, "SHOW CURRENT DATABASE").Rows())
	exec(t, e, "CREATE TABLE t (a INT) WITH ('connector' = 'blackhole')")
	exec(t, e, "USE CATALOG default_catalog")
	require.Equal(t, [][]any{{"t"}}, exec(t, e, "SHOW TABLES FROM c1.db").Rows())
	_, err = e.ExecuteSQL(context.Background(), "DESCRIBE CATALOG nope")
	require.Error(t, err)

	exec(t, e, "ALTER CATALOG c1 SET ('default-database' = 'db2', 'k' = 'v')")
	exec(t, e, "ALTER CATALOG c1 RESET ('k')")
	exec(t, e, "ALTER CATALOG c1 COMMENT 'new'")
	for _, bad := range []string{"ALTER CATALOG c1 RESET ()", "ALTER CATALOG c1 RESET ('type')", "ALTER CATALOG c1 SET ('type' = 'hive')"} {
		_, err = e.ExecuteSQL(context.Background(), bad)
		require.Error(t, err, bad)
	}
	require.Equal(t, [][]any{{"name", "c1"}, {"type", "generic_in_memory"}, {"comment", "new"}, {"option:default-database", "db2"}}, exec(t, e, "DESC CATALOG EXTENDED c1").Rows())
	exec(t, e, "ALTER DATABASE c1.db SET ('p' = 'q')")
}

func TestCreateTableAs(t *testing.T) {
	e := newEnv(t)
	dir := t.TempDir()
	exec(t, e, "CREATE TABLE c WITH ('connector' = 'filesystem', 'path' = '"+dir+"', 'format' = 'csv') AS SELECT id, name FROM (VALUES (1, 'a'), (2, 'b')) AS t(id, name)")
	require.Equal(t, [][]any{{int32(1), "a"}, {int32(2), "b"}}, exec(t, e, "SELECT * FROM c ORDER BY id").Rows())
	desc := exec(t, e, "DESCRIBE c").Rows()
	require.Equal(t, "id", desc[0][0])
	_, err := e.ExecuteSQL(context.Background(), "CREATE TABLE bad WITH ('connector' = 'nope') AS SELECT 1 AS x")
	require.Error(t, err)
	require.Equal(t, [][]any{{"c"}}, exec(t, e, "SHOW TABLES").Rows(), "a failed CTAS leaves no table behind")
}
