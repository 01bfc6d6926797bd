package validate

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/planner/parser"
)

func TestErrorType(t *testing.T) {
	v := newTestValidator(t)
	tests := []struct {
		sql                     string
		line, col, endLine, end int
		msg                     string
	}{
		{"SELECT x FROM t", 1, 8, 1, 8, "Column 'x' not found in any table"},
		{"SELECT a,\n  foo(a)\nFROM t", 2, 3, 2, 8, "No match found for function signature foo(<NUMERIC>)"},
		{"SELECT a FROM t WHERE c", 1, 23, 0, 0, "WHERE clause must be a boolean expression, but is of type STRING"},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			_, err := plan(t, v, tc.sql)
			var ve *Error
			require.True(t, errors.As(err, &ve), "%v", err)
			require.Equal(t, tc.msg, ve.Msg)
			require.Equal(t, []int{tc.line, tc.col, tc.endLine, tc.end}, []int{ve.Line, ve.Col, ve.EndLine, ve.EndCol})
		})
	}
}

func TestOptionsHint(t *testing.T) {
	v := newTestValidator(t)
	n, err := plan(t, v, "SELECT * FROM s /*+ OPTIONS('connector' = 'datagen', 'number-of-rows' = '3') */")
	require.NoError(t, err)
	var scan *logical.Scan
	var find func(logical.Node)
	find = func(n logical.Node) {
		if s, ok := n.(*logical.Scan); ok {
			scan = s
		}
		for _, c := range n.Children() {
			find(c)
		}
	}
	find(n)
	require.NotNil(t, scan)
	require.Equal(t, map[string]string{"connector": "datagen", "number-of-rows": "3"}, scan.Table.Table.Options)
	// the catalog table is unchanged
	_, obj, _, err := v.ResolveTableName(ast.ObjectName{Parts: []string{"s"}})
	require.NoError(t, err)
	require.Equal(t, "values", obj.(*catalog.Table).Options["connector"])

	st, err := parser.ParseStatement("CREATE VIEW v1 AS SELECT a FROM s")
	require.NoError(t, err)
	id, view, err := v.CreateView(st.(*ast.CreateView))
	require.NoError(t, err)
	require.NoError(t, v.cat.CreateObject(id, view, true, false))
	_, err = plan(t, v, "select * from v1 /*+ OPTIONS('number-of-rows' = '1') */")
	require.EqualError(t, err, "View '`default_catalog`.`default_database`.`v1`' cannot be enriched with new options. Hints can only be applied to tables.")
}

func TestProctimeColumn(t *testing.T) {
	v := newTestValidator(t)
	id, tbl, err := createTable(t, v, "CREATE TABLE pt (a INT, ptime AS PROCTIME()) WITH ('connector' = 'datagen')")
	require.NoError(t, err)
	require.Equal(t, "TIMESTAMP_LTZ(3) NOT NULL", tbl.Columns[1].Type.String())
	require.Equal(t, "PROCTIME()", tbl.Columns[1].Expr)
	require.NoError(t, v.cat.CreateObject(id, tbl, false, false))
	n, err := plan(t, v, "SELECT * FROM pt")
	require.NoError(t, err)
	require.Equal(t, "a INT, ptime TIMESTAMP_LTZ(3) NOT NULL", schemaString(n.Schema()))
}

func TestInsertValuesWithNull(t *testing.T) {
	v := newTestValidator(t)
	s, err := insert(t, v, "INSERT INTO sink1 VALUES (1, NULL, 'x'), (2, NULL, NULL)")
	require.NoError(t, err)
	require.Equal(t, "a INT NOT NULL, b BIGINT, c STRING", schemaString(s.Input.Schema()))
	checkRefs(t, s)
	s, err = insert(t, v, "INSERT OVERWRITE sink1 (a) VALUES (1)")
	require.NoError(t, err)
	require.True(t, s.Overwrite)
	require.Equal(t, "a INT NOT NULL, b BIGINT, c STRING", schemaString(s.Input.Schema()))
}

func TestExpandQueryRoundTrip(t *testing.T) {
	v := newTestValidator(t)
	queries := []string{
		"SELECT a FROM s WHERE EXISTS (SELECT 1 FROM users u WHERE u.user_id = s.a) AND a NOT IN (SELECT user_id FROM users)",
		"SELECT a, (SELECT MAX(age) FROM users) AS m FROM s",
		"SELECT * FROM s LEFT JOIN users ON s.a = users.user_id",
		"SELECT * FROM s FULL JOIN s AS s2 USING (a)",
		"SELECT * FROM (SELECT a, b FROM s) AS q (x, y) WHERE x > 1",
		"SELECT a FROM s UNION SELECT user_id FROM users ORDER BY 1 LIMIT 2",
		"SELECT * FROM (VALUES (1, 'a')) AS v (x, y)",
		"SELECT DISTINCT CAST(a AS STRING), CASE WHEN a > 1 THEN 'x' END FROM s",
		"SELECT -a, +a, NOT (a > 1), a BETWEEN SYMMETRIC 3 AND 1, a NOT BETWEEN 1 AND 2 FROM s",
		"SELECT CASE WHEN a > (SELECT MIN(age) FROM users) THEN CAST((SELECT MAX(age) FROM users) AS STRING) ELSE UPPER(c) END FROM s",
		"SELECT COALESCE((SELECT MAX(age) FROM users), 0) + 1, NOT (a IS NULL) FROM s WHERE NOT EXISTS (SELECT 1 FROM users WHERE users.user_id = s.a)",
		"SELECT a FROM s WHERE (SELECT MAX(age) FROM users) IS NOT NULL",
		"SELECT a FROM s WHERE a IN (SELECT user_id FROM users UNION SELECT 1) ORDER BY a DESC NULLS LAST",
		"SELECT a FROM s NATURAL JOIN s AS s2 CROSS JOIN users",
		"WITH w (x) AS (SELECT a FROM s) SELECT x FROM w",
	}
	for _, q := range queries {
		t.Run(q, func(t *testing.T) {
			want, err := plan(t, v, q)
			require.NoError(t, err)
			text, err := v.ExpandQuery(parseQuery(t, q))
			require.NoError(t, err)
			got, err := plan(t, v, text)
			require.NoError(t, err, text)
			require.Equal(t, logical.Explain(want), logical.Explain(got), text)
			require.Equal(t, schemaString(want.Schema()), schemaString(got.Schema()))
		})
	}
}

func TestLiteralValues(t *testing.T) {
	v := newTestValidator(t)
	tests := []struct {
		sql  string
		want any
		typ  string
	}{
		{"SELECT 42", int32(42), "INT NOT NULL"},
		{"SELECT 3000000000", int64(3000000000), "BIGINT NOT NULL"},
		{"SELECT 1e3", float64(1000), "DOUBLE NOT NULL"},
		{"SELECT 'héllo'", "héllo", "CHAR(5) NOT NULL"},
		{"SELECT X'0aff'", []byte{0x0a, 0xff}, "BINARY(2) NOT NULL"},
		{"SELECT DATE '1970-01-02'", int32(1), "DATE NOT NULL"},
		{"SELECT TIME '01:00:01.5'", int32(3601500), "TIME(1) NOT NULL"},
		{"SELECT TIMESTAMP '1970-01-01 00:00:01.000001'", int64(1000001), "TIMESTAMP(6) NOT NULL"},
		{"SELECT INTERVAL '2' DAY", int64(2 * 86400000), "INTERVAL DAY(2) NOT NULL"},
		{"SELECT INTERVAL '1 02:03:04.5' DAY TO SECOND", int64(((86400+2*3600+3*60+4)*1000 + 500)), "INTERVAL DAY(2) TO SECOND(3) NOT NULL"},
		{"SELECT INTERVAL '-1:30' HOUR TO MINUTE", int64(-90 * 60000), "INTERVAL HOUR TO MINUTE NOT NULL"},
		{"SELECT INTERVAL '3' YEAR", int32(36), "INTERVAL YEAR(2) NOT NULL"},
		{"SELECT INTERVAL '10' MONTH", int32(10), "INTERVAL MONTH NOT NULL"},
		{"SELECT -INTERVAL '2' MINUTE", int64(-120000), "INTERVAL MINUTE NOT NULL"},
		{"SELECT TRUE", true, "BOOLEAN NOT NULL"},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			n, err := plan(t, v, tc.sql)
			require.NoError(t, err)
			lit, ok := n.(*logical.Project).Exprs[0].(*logical.Literal)
			require.True(t, ok)
			require.Equal(t, tc.want, lit.Value)
			require.Equal(t, tc.typ, lit.T.String())
		})
	}
	// TIMESTAMP_LTZ literals are read in the session time zone
	loc, err := timeLoc("Asia/Shanghai")
	require.NoError(t, err)
	v.opts.Loc = loc
	n, err := plan(t, v, "SELECT TIMESTAMP_LTZ '1970-01-01 08:00:00'")
	require.NoError(t, err)
	require.Equal(t, int64(0), n.(*logical.Project).Exprs[0].(*logical.Literal).Value)
	require.Equal(t, types.TimestampLTZ, n.Schema()[0].Type.Kind)
}
