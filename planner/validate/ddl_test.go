package validate

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/planner/parser"
)

func createTable(t *testing.T, v *Validator, ddl string) (catalog.ObjectIdentifier, *catalog.Table, error) {
	t.Helper()
	st, err := parser.ParseStatement(ddl)
	require.NoError(t, err, ddl)
	return v.CreateTable(st.(*ast.CreateTable))
}

func TestResolveTypes(t *testing.T) {
	v := newTestValidator(t)
	tests := []struct{ typ, want string }{
		{"BOOLEAN", "BOOLEAN"}, {"TINYINT", "TINYINT"}, {"SMALLINT", "SMALLINT"}, {"INT", "INT"}, {"INTEGER", "INT"},
		{"BIGINT NOT NULL", "BIGINT NOT NULL"}, {"FLOAT", "FLOAT"}, {"DOUBLE", "DOUBLE"},
		{"DECIMAL", "DECIMAL(10, 0)"}, {"DEC(5)", "DECIMAL(5, 0)"}, {"NUMERIC(12, 3)", "DECIMAL(12, 3)"},
		{"CHAR", "CHAR(1)"}, {"CHAR(5)", "CHAR(5)"}, {"VARCHAR", "STRING"}, {"VARBINARY", "BYTES"}, {"VARCHAR(20)", "VARCHAR(20)"}, {"STRING", "STRING"},
		{"BINARY(3)", "BINARY(3)"}, {"VARBINARY(4)", "VARBINARY(4)"}, {"BYTES", "BYTES"},
		{"DATE", "DATE"}, {"TIME", "TIME(0)"}, {"TIME(3)", "TIME(3)"}, {"TIMESTAMP", "TIMESTAMP(6)"}, {"TIMESTAMP(3)", "TIMESTAMP(3)"},
		{"TIMESTAMP_LTZ", "TIMESTAMP_LTZ(6)"}, {"TIMESTAMP(3) WITH LOCAL TIME ZONE", "TIMESTAMP_LTZ(3)"},
		{"ARRAY<INT NOT NULL>", "ARRAY<INT NOT NULL>"}, {"MAP<STRING, BIGINT>", "MAP<STRING, BIGINT>"},
		{"ROW<a INT, b STRING>", "ROW<`a` INT, `b` STRING>"},
		{"INTERVAL DAY TO SECOND", "INTERVAL DAY(2) TO SECOND(6)"}, {"INTERVAL YEAR TO MONTH", "INTERVAL YEAR(2) TO MONTH"},
	}
	for _, tc := range tests {
		t.Run(tc.typ, func(t *testing.T) {
			_, tbl, err := createTable(t, v, "CREATE TABLE x (c "+tc.typ+")")
			require.NoError(t, err)
			require.Equal(t, tc.want, tbl.Columns[0].Type.String())
		})
	}
	errs := []struct{ typ, err string }{
		{"DECIMAL(39, 0)", "Decimal precision must be between 1 and 38 (both inclusive)."},
		{"DECIMAL(5, 6)", "Decimal scale must be between 0 and the precision 5 (both inclusive)."},
		{"VARCHAR(0)", "Variable character string length must be between 1 and 2147483647 (both inclusive)."},
		{"CHAR(0)", "Character string length must be between 1 and 2147483647 (both inclusive)."},
		{"TIMESTAMP(10)", "Timestamp precision must be between 0 and 9 (both inclusive)."},
		{"TIME(10)", "Time precision must be between 0 and 9 (both inclusive)."},
		{"TIMESTAMP_LTZ(10)", "Local zoned timestamp precision must be between 0 and 9 (both inclusive)."},
	}
	for _, tc := range errs {
		t.Run(tc.typ, func(t *testing.T) {
			_, _, err := createTable(t, v, "CREATE TABLE x (c "+tc.typ+")")
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.err)
		})
	}
}

func TestCreateTable(t *testing.T) {
	v := newTestValidator(t)
	id, tbl, err := createTable(t, v, `CREATE TABLE db1.orders2 (
  id BIGINT COMMENT 'the id',
  price DECIMAL(10, 2),
  qty INT,
  total AS price * qty,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND,
  PRIMARY KEY (id) NOT ENFORCED
) COMMENT 'orders' PARTITIONED BY (qty) WITH ('connector' = 'datagen', 'number-of-rows' = '10')`)
	require.NoError(t, err)
	require.Equal(t, catalog.ObjectIdentifier{Catalog: "default_catalog", Database: "db1", Object: "orders2"}, id)
	require.Equal(t, "BIGINT NOT NULL", tbl.Columns[0].Type.String())
	require.Equal(t, "the id", tbl.Columns[0].Comment)
	require.Equal(t, "`price` * `qty`", tbl.Columns[3].Expr)
	require.Equal(t, "DECIMAL(21, 2)", tbl.Columns[3].Type.String())
	require.Equal(t, &catalog.PrimaryKey{Name: "PK_id", Columns: []string{"id"}}, tbl.PrimaryKey)
	require.Equal(t, &catalog.Watermark{Column: "ts", Expr: "`ts` - INTERVAL '5' SECOND"}, tbl.Watermark)
	require.Equal(t, "orders", tbl.Comment)
	require.Equal(t, []string{"qty"}, tbl.PartitionKeys)
	require.Equal(t, map[string]string{"connector": "datagen", "number-of-rows": "10"}, tbl.Options)
	require.Equal(t, "id BIGINT NOT NULL, price DECIMAL(10, 2), qty INT, ts TIMESTAMP(3)", schemaString(tbl.PhysicalSchema()))

	errs := []struct{ ddl, err string }{
		{"CREATE TABLE x (a INT, a STRING)", "A column named 'a' already exists in the table"},
		{"CREATE TABLE x (a INT, WATERMARK FOR ts AS ts)", "The rowtime attribute field 'ts' is not defined in the table schema, at line 1, column 24"},
		{"CREATE TABLE x (a INT, WATERMARK FOR a AS a)", "Invalid data type of time field for watermark definition. The field must be of type TIMESTAMP(p) or TIMESTAMP_LTZ(p), the supported precision 'p' is from 0 to 3, but the time field type is INT"},
		{"CREATE TABLE x (ts TIMESTAMP(6), WATERMARK FOR ts AS ts)", "the time field type is TIMESTAMP(6)"},
		{"CREATE TABLE x (ts TIMESTAMP(3), WATERMARK FOR ts AS 1)", "but the watermark expression type is INT NOT NULL"},
		{"CREATE TABLE x (a INT, PRIMARY KEY (b) NOT ENFORCED)", "Could not create a PRIMARY KEY 'PK_b'. Column 'b' does not exist."},
		{"CREATE TABLE x (a INT, c AS zz + 1)", "Column 'zz' not found in any table"},
		{"CREATE TABLE x (a INT) PARTITIONED BY (b)", "Partition column 'b' not defined in the table schema. Available columns: ['a']"},
	}
	for _, tc := range errs {
		t.Run(tc.ddl, func(t *testing.T) {
			_, _, err := createTable(t, v, tc.ddl)
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.err)
		})
	}
	_, tbl, err = createTable(t, v, "CREATE TABLE foo WITH ('connector' = 'blackhole') AS SELECT id, UPPER(str) AS s FROM (VALUES (1, 'a')) T(id, str)")
	require.NoError(t, err)
	require.Equal(t, "id INT NOT NULL, s CHAR(1) NOT NULL", schemaString(tbl.Schema()))
	require.Equal(t, "blackhole", tbl.Options["connector"])
	_, tbl, err = createTable(t, v, "CREATE TABLE x (ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE)")
	require.NoError(t, err)
	require.Equal(t, "ts", tbl.Watermark.Column)
}

func TestCreateViewAndExpand(t *testing.T) {
	v := newTestValidator(t)
	tests := []struct{ sql, expanded string }{
		{"CREATE VIEW v1 AS SELECT * FROM orders", "SELECT *\nFROM `default_catalog`.`default_database`.`orders`"},
		{"CREATE VIEW v2 (x, y) AS SELECT o.id, u.name FROM orders o JOIN users AS u ON o.user_id = u.user_id WHERE o.qty > 1",
			"SELECT `o`.`id`, `u`.`name`\nFROM `default_catalog`.`default_database`.`orders` AS `o`\nINNER JOIN `default_catalog`.`default_database`.`users` AS `u` ON `o`.`user_id` = `u`.`user_id`\nWHERE `o`.`qty` > 1"},
		{"CREATE VIEW v3 AS WITH w AS (SELECT a FROM s) SELECT a, COUNT(*) AS n FROM w GROUP BY a HAVING COUNT(*) > 1 ORDER BY a LIMIT 3",
			"WITH `w` AS (SELECT `a`\nFROM `default_catalog`.`default_database`.`s`)\nSELECT `a`, COUNT(*) AS `n`\nFROM `w`\nGROUP BY `a`\nHAVING COUNT(*) > 1\nORDER BY `a`\nLIMIT 3"},
		{"CREATE VIEW v4 AS SELECT a FROM s WHERE a IN (SELECT user_id FROM users) UNION ALL SELECT 1",
			"SELECT `a`\nFROM `default_catalog`.`default_database`.`s`\nWHERE (`a`) IN (SELECT `user_id`\nFROM `default_catalog`.`default_database`.`users`)\nUNION ALL\nSELECT 1"},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			st, err := parser.ParseStatement(tc.sql)
			require.NoError(t, err)
			cv := st.(*ast.CreateView)
			id, view, err := v.CreateView(cv)
			require.NoError(t, err)
			require.Equal(t, tc.expanded, view.ExpandedQuery)
			require.Equal(t, cv.QueryText, view.OriginalQuery)
			// the expansion must parse and validate to the same schema
			n, err := plan(t, v, view.ExpandedQuery)
			require.NoError(t, err)
			for i, f := range n.Schema() {
				require.True(t, f.Type.Equal(view.Columns[i].Type))
			}
			require.NoError(t, v.cat.CreateObject(id, view, false, false))
		})
	}
	// the view's columns use the column list
	_, obj, _, err := v.ResolveTableName(ast.ObjectName{Parts: []string{"v2"}})
	require.NoError(t, err)
	require.Equal(t, "x BIGINT NOT NULL, y STRING", schemaString(obj.(*catalog.View).Columns))

	// a view over a view
	n, err := plan(t, v, "SELECT x, y FROM v2 WHERE x > 1")
	require.NoError(t, err)
	require.Equal(t, "x BIGINT NOT NULL, y STRING", schemaString(n.Schema()))
	checkRefs(t, n)

	// an error inside the view names it
	bad := &catalog.View{Columns: types.Schema{{Name: "zz", Type: types.IntT}}, ExpandedQuery: "SELECT zz FROM `default_catalog`.`default_database`.`s`"}
	require.NoError(t, v.cat.CreateObject(catalog.ObjectIdentifier{Catalog: "default_catalog", Database: "default_database", Object: "bad"}, bad, true, false))
	_, err = plan(t, v, "SELECT * FROM bad")
	require.ErrorContains(t, err, "default_catalog.default_database.bad")
	require.ErrorContains(t, err, "Column 'zz' not found in any table")

	// column count mismatch
	st, err := parser.ParseStatement("CREATE VIEW v9 (x) AS SELECT a, b FROM s")
	require.NoError(t, err)
	_, _, err = v.CreateView(st.(*ast.CreateView))
	require.ErrorContains(t, err, "VIEW definition and input fields not match")
}

func TestViewFromOtherDatabase(t *testing.T) {
	v := newTestValidator(t)
	st, err := parser.ParseStatement("CREATE VIEW v1 AS SELECT a, c FROM s")
	require.NoError(t, err)
	id, view, err := v.CreateView(st.(*ast.CreateView))
	require.NoError(t, err)
	require.NoError(t, v.cat.CreateObject(id, view, false, false))
	c, _ := v.cat.Catalog("default_catalog")
	require.NoError(t, c.CreateDatabase("other", &catalog.Database{}, false))
	require.NoError(t, v.cat.UseDatabase("other"))
	_, err = plan(t, v, "SELECT * FROM s")
	require.ErrorContains(t, err, "Object 's' not found within 'default_catalog.other'")
	n, err := plan(t, v, "SELECT * FROM default_database.v1")
	require.NoError(t, err)
	require.Equal(t, "a INT, c STRING", schemaString(n.Schema()))
}

func insert(t *testing.T, v *Validator, sql string) (*logical.Sink, error) {
	t.Helper()
	st, err := parser.ParseStatement(sql)
	require.NoError(t, err, sql)
	return v.Insert(st.(*ast.Insert))
}

func TestInsert(t *testing.T) {
	v := newTestValidator(t)
	tests := []struct{ sql, plan string }{
		{"INSERT INTO sink1 SELECT a, b, c FROM s",
			"LogicalSink(table=[`default_catalog`.`default_database`.`sink1`], fields=[a, b, c])\n" +
				"   +- LogicalProject(a=[$0], b=[$1], c=[$2])\n" +
				"      +- LogicalTableScan(table=[[default_catalog, default_database, s]])\n"},
		{"INSERT INTO sink1 VALUES (1, 2, 'x')",
			"LogicalSink(table=[`default_catalog`.`default_database`.`sink1`], fields=[a, b, c])\n" +
				"   +- LogicalProject(a=[$0], b=[CAST($1 AS BIGINT NOT NULL)], c=[$2])\n" +
				"      +- LogicalValues(tuples=[[{ 1, 2, 'x' }]])\n"},
		{"INSERT INTO sink1 (c, a) SELECT c, a FROM s",
			"LogicalSink(table=[`default_catalog`.`default_database`.`sink1`], fields=[a, b, c])\n" +
				"   +- LogicalProject(a=[$1], b=[null:BIGINT], c=[$0])\n" +
				"      +- LogicalProject(c=[$2], a=[$0])\n" +
				"         +- LogicalTableScan(table=[[default_catalog, default_database, s]])\n"},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			s, err := insert(t, v, tc.sql)
			require.NoError(t, err)
			require.Equal(t, tc.plan, logical.Explain(s))
			checkRefs(t, s)
		})
	}
	errs := []struct{ sql, err string }{
		{"INSERT INTO sink1 SELECT a, b FROM s", "Column types of query result and sink for 'default_catalog.default_database.sink1' do not match.\nCause: Different number of columns.\n\nQuery schema: [a: INT, b: BIGINT]\nSink schema:  [a: INT, b: BIGINT, c: STRING]"},
		{"INSERT INTO sink1 SELECT a, arr, c FROM t", "Cause: Incompatible types for sink column 'b' at position 1."},
		{"INSERT INTO nope SELECT 1", "Object 'nope' not found"},
		{"INSERT INTO sink1 (zz) SELECT 1", "Unknown target column 'zz'"},
	}
	for _, tc := range errs {
		t.Run(tc.sql, func(t *testing.T) {
			_, err := insert(t, v, tc.sql)
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.err)
		})
	}
}
