package validate

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tablerun/tablerun/planner/logical"
)

func TestQuerySchemas(t *testing.T) {
	v := newTestValidator(t)
	tests := []struct {
		sql, schema string
	}{
		{"SELECT 1 + 1", "EXPR$0 INT NOT NULL"},
		{"SELECT a, b + 1, c AS cc FROM t WHERE a > 1", "a INT, EXPR$1 BIGINT, cc STRING"},
		{"SELECT * FROM comp", "a INT, b INT, c INT, d STRING"},
		{"SELECT c, d FROM comp WHERE c > 1", "c INT, d STRING"},
		{"SELECT user_id, SUM(amount), COUNT(*), AVG(qty), MIN(product), MAX(ts) FROM orders GROUP BY user_id",
			"user_id INT, EXPR$1 DECIMAL(38, 2), EXPR$2 BIGINT NOT NULL, EXPR$3 INT, EXPR$4 STRING, EXPR$5 TIMESTAMP(3)"},
		{"SELECT COUNT(*), SUM(id) FROM orders", "EXPR$0 BIGINT NOT NULL, EXPR$1 BIGINT"},
		{"SELECT user_id, SUM(id) FROM orders GROUP BY user_id", "user_id INT, EXPR$1 BIGINT NOT NULL"},
		{"SELECT AVG(amount) FROM orders", "EXPR$0 DECIMAL(38, 6)"},
		{"SELECT user_id, COUNT(DISTINCT product) FILTER (WHERE qty > 1) AS n FROM orders GROUP BY user_id HAVING SUM(qty) > 10 ORDER BY n DESC LIMIT 5",
			"user_id INT, n BIGINT NOT NULL"},
		{"SELECT a + 1 AS k, COUNT(*) FROM t GROUP BY a + 1", "k INT, EXPR$1 BIGINT NOT NULL"},
		{"SELECT a + 1, COUNT(*) FROM t GROUP BY a", "EXPR$0 INT, EXPR$1 BIGINT NOT NULL"},
		{"SELECT * FROM t GROUP BY a, b, c, d, r, arr, m", "a INT, b BIGINT, c STRING, d DOUBLE, r ROW<`x` INT, `y` STRING>, arr ARRAY<INT>, m MAP<STRING, INT>"},
		{"SELECT DISTINCT a, c FROM t", "a INT, c STRING"},
		{"SELECT o.id, u.name FROM orders o JOIN users u ON o.user_id = u.user_id", "id BIGINT NOT NULL, name STRING"},
		{"SELECT o.id, u.name FROM orders o LEFT JOIN users u ON o.user_id = u.user_id", "id BIGINT NOT NULL, name STRING"},
		{"SELECT o.id, u.age FROM orders o RIGHT JOIN users u ON o.user_id = u.user_id", "id BIGINT, age INT"},
		{"SELECT * FROM orders JOIN users USING (user_id)", "user_id INT, id BIGINT NOT NULL, product STRING, amount DECIMAL(10, 2), qty INT, ts TIMESTAMP(3), name STRING, age INT"},
		{"SELECT user_id, orders.user_id, users.user_id FROM orders FULL JOIN users USING (user_id)", "user_id INT, user_id0 INT, user_id1 INT"},
		{"SELECT * FROM t NATURAL JOIN s", "a INT, b BIGINT, c STRING, d DOUBLE, r ROW<`x` INT, `y` STRING>, arr ARRAY<INT>, m MAP<STRING, INT>"},
		{"SELECT t.* FROM t NATURAL JOIN s", "a INT, b BIGINT, c STRING, d DOUBLE, r ROW<`x` INT, `y` STRING>, arr ARRAY<INT>, m MAP<STRING, INT>"},
		{"SELECT * FROM s, users", "a INT, b BIGINT, c STRING, user_id INT, name STRING, age INT"},
		{"SELECT * FROM s CROSS JOIN s AS s2", "a INT, b BIGINT, c STRING, a0 INT, b0 BIGINT, c0 STRING"},
		{"SELECT a AS x, b AS x FROM t", "x INT, x0 BIGINT"},
		{"SELECT * FROM (SELECT a, a FROM t)", "a INT, a0 INT"},
		{"SELECT x.p, x.q FROM (SELECT a, c FROM t) AS x(p, q)", "p INT, q STRING"},
		{"SELECT a FROM t UNION SELECT b FROM s", "a BIGINT"},
		{"SELECT a FROM t UNION ALL SELECT a FROM s UNION ALL SELECT a FROM t", "a INT"},
		{"SELECT a, c FROM t INTERSECT SELECT a, c FROM s", "a INT, c STRING"},
		{"SELECT a FROM t EXCEPT ALL SELECT a FROM s", "a INT"},
		{"VALUES (1, 'a'), (2, 'bcd')", "EXPR$0 INT NOT NULL, EXPR$1 VARCHAR(3) NOT NULL"},
		{"VALUES (1, NULL), (2, 'x')", "EXPR$0 INT NOT NULL, EXPR$1 CHAR(1)"},
		{"SELECT * FROM (VALUES (1, 'a'), (2, 'bcd')) AS v(x, y)", "x INT NOT NULL, y VARCHAR(3) NOT NULL"},
		{"WITH x AS (SELECT a, b FROM t), y AS (SELECT a FROM x) SELECT * FROM y", "a INT"},
		{"WITH s AS (SELECT a, c FROM s) SELECT * FROM s", "a INT, c STRING"},
		{"WITH x AS (SELECT a FROM t), y AS (SELECT a FROM x UNION ALL SELECT a FROM x) SELECT y.a FROM y JOIN x ON x.a = y.a", "a INT"},
		{"SELECT * FROM (WITH x AS (SELECT a FROM t) SELECT * FROM x) AS q", "a INT"},
		{"WITH x(p) AS (SELECT a FROM t) SELECT p FROM x WHERE p > 1", "p INT"},
		{"SELECT a, c FROM t ORDER BY b", "a INT, c STRING"},
		{"SELECT a FROM t ORDER BY 1 DESC LIMIT 2 OFFSET 1", "a INT"},
		{"SELECT a, COUNT(*) AS n FROM t GROUP BY a, b ORDER BY b", "a INT, n BIGINT NOT NULL"},
		{"SELECT a FROM t UNION ALL SELECT a FROM s ORDER BY a LIMIT 3", "a INT"},
		{"SELECT CASE WHEN a > 1 THEN 'x' ELSE 'yy' END, a BETWEEN 1 AND 3, c LIKE 'a%', a IN (1, 2, 3), r.x, arr[1], m['k'] FROM t",
			"EXPR$0 VARCHAR(2) NOT NULL, EXPR$1 BOOLEAN, EXPR$2 BOOLEAN, EXPR$3 BOOLEAN, x INT, EXPR$5 INT, EXPR$6 INT"},
		{"SELECT t.r.y, r.y FROM t", "y STRING, y0 STRING"},
		{"SELECT DATE '2020-01-02', TIMESTAMP '2020-01-02 03:04:05.123', INTERVAL '5' SECOND, INTERVAL '1-2' YEAR TO MONTH, 1.5, 1e3, 'abc', NULL, X'0AFF', TRUE",
			"EXPR$0 DATE NOT NULL, EXPR$1 TIMESTAMP(3) NOT NULL, EXPR$2 INTERVAL SECOND(3) NOT NULL, EXPR$3 INTERVAL YEAR(2) TO MONTH NOT NULL, EXPR$4 DECIMAL(2, 1) NOT NULL, EXPR$5 DOUBLE NOT NULL, EXPR$6 CHAR(3) NOT NULL, EXPR$7 NULL, EXPR$8 BINARY(2) NOT NULL, EXPR$9 BOOLEAN NOT NULL"},
		{"SELECT -2147483648, 2147483648, 99999999999999999999, -1.5, 0.05", "EXPR$0 INT NOT NULL, EXPR$1 BIGINT NOT NULL, EXPR$2 DECIMAL(20, 0) NOT NULL, EXPR$3 DECIMAL(2, 1) NOT NULL, EXPR$4 DECIMAL(3, 2) NOT NULL"},
		{"SELECT TIMESTAMP_LTZ '2020-01-02 03:04:05', TIME '10:11:12'", "EXPR$0 TIMESTAMP_LTZ(0) NOT NULL, EXPR$1 TIME(0) NOT NULL"},
		{"SELECT ARRAY[1, 2, 3], MAP['a', 1], ROW(1, 'x')", "EXPR$0 ARRAY<INT NOT NULL> NOT NULL, EXPR$1 MAP<CHAR(1) NOT NULL, INT NOT NULL> NOT NULL, EXPR$2 ROW<`EXPR$0` INT NOT NULL, `EXPR$1` CHAR(1) NOT NULL> NOT NULL"},
		{"SELECT COALESCE(a, 0), NULLIF(a, 1), a IS NULL, a IS NOT DISTINCT FROM 1, (a > 1) IS TRUE, TRY_CAST(c AS INT), CAST(a AS STRING) FROM t",
			"EXPR$0 INT NOT NULL, EXPR$1 INT, EXPR$2 BOOLEAN NOT NULL, EXPR$3 BOOLEAN NOT NULL, EXPR$4 BOOLEAN NOT NULL, EXPR$5 INT, EXPR$6 STRING"},
		{"SELECT CAST(1 AS BIGINT), CAST(NULL AS INT), TRY_CAST('1' AS INT)", "EXPR$0 BIGINT NOT NULL, EXPR$1 INT, EXPR$2 INT"},
		{"SELECT CASE a WHEN 1 THEN 'one' WHEN 2 THEN 'two' END FROM t", "EXPR$0 CHAR(3)"},
		{"SELECT EXTRACT(YEAR FROM ts), TRIM(BOTH ' ' FROM product), SUBSTRING(product FROM 1 FOR 2), POSITION('a' IN product), upper(product) FROM orders",
			"EXPR$0 BIGINT, EXPR$1 STRING, EXPR$2 STRING, EXPR$3 INT, EXPR$4 STRING"},
		{"SELECT id FROM orders WHERE user_id IN (SELECT user_id FROM users WHERE age > 18)", "id BIGINT NOT NULL"},
		{"SELECT id FROM orders o WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.user_id = o.user_id)", "id BIGINT NOT NULL"},
		{"SELECT id, (SELECT MAX(age) FROM users) FROM orders", "id BIGINT NOT NULL, EXPR$1 INT"},
		{"SELECT id, (SELECT COUNT(*) FROM users u WHERE u.user_id = o.user_id) AS c FROM orders o", "id BIGINT NOT NULL, c BIGINT NOT NULL"},
		{"SELECT id, (SELECT MAX(age) FROM users u WHERE u.user_id = o.user_id AND u.age > 3) AS c FROM orders o", "id BIGINT NOT NULL, c INT"},
		{"SELECT a FROM t WHERE a > (SELECT AVG(a) FROM s)", "a INT"},
		{"SELECT o.id, (SELECT u.name FROM users u WHERE u.user_id = o.user_id) AS n FROM orders o", "id BIGINT NOT NULL, n STRING"},
		{"SELECT user_id, SUM(qty) AS q FROM orders GROUP BY user_id HAVING SUM(qty) > (SELECT AVG(qty) FROM orders)", "user_id INT, q INT"},
		{"SELECT user_id, SUM(qty) - (SELECT MIN(age) FROM users) FROM orders GROUP BY user_id ORDER BY (SELECT MAX(age) FROM users) + user_id", "user_id INT, EXPR$1 INT"},
		{"SELECT 1 FROM t HAVING COUNT(*) > 1", "EXPR$0 INT NOT NULL"},
		{"SELECT b, SUM(a) FILTER (WHERE c = 'x') FROM t GROUP BY b", "b BIGINT, EXPR$1 INT"},
		{"SELECT `a` FROM `t`", "a INT"},
		{"SELECT * FROM default_catalog.default_database.s", "a INT, b BIGINT, c STRING"},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			n, err := plan(t, v, tc.sql)
			require.NoError(t, err)
			require.Equal(t, tc.schema, schemaString(n.Schema()))
			checkRefs(t, n)
		})
	}
}

func TestQueryPlans(t *testing.T) {
	v := newTestValidator(t)
	tests := []struct {
		sql, plan string
	}{
		{"SELECT a, c FROM t WHERE a > 1",
			"LogicalProject(a=[$0], c=[$2])\n" +
				"   +- LogicalFilter(condition=[>($0, 1)])\n" +
				"      +- LogicalTableScan(table=[[default_catalog, default_database, t]])\n"},
		{"SELECT user_id, SUM(qty) FROM orders GROUP BY user_id",
			"LogicalAggregate(group=[{0}], EXPR$1=[SUM($1)])\n" +
				"   +- LogicalProject(user_id=[$1], qty=[$4])\n" +
				"      +- LogicalTableScan(table=[[default_catalog, default_database, orders]])\n"},
		{"SELECT b, COUNT(a) FILTER (WHERE a > 1) AS n FROM s GROUP BY b",
			"LogicalAggregate(group=[{0}], n=[COUNT($1) FILTER $2])\n" +
				"   +- LogicalProject(b=[$1], a=[$0], $f2=[>($0, 1)])\n" +
				"      +- LogicalTableScan(table=[[default_catalog, default_database, s]])\n"},
		{"SELECT COUNT(*) FROM s",
			"LogicalAggregate(group=[{}], EXPR$0=[COUNT()])\n" +
				"   +- LogicalProject($f0=[0])\n" +
				"      +- LogicalTableScan(table=[[default_catalog, default_database, s]])\n"},
		{"SELECT 1 + 1",
			"LogicalProject(EXPR$0=[+(1, 1)])\n" +
				"   +- LogicalValues(tuples=[[{ 0 }]])\n"},
		{"SELECT a, c FROM s ORDER BY b DESC",
			"LogicalProject(a=[$0], c=[$1])\n" +
				"   +- LogicalSort(sort0=[$2 DESC])\n" +
				"      +- LogicalProject(a=[$0], c=[$2], EXPR$2=[$1])\n" +
				"         +- LogicalTableScan(table=[[default_catalog, default_database, s]])\n"},
		{"SELECT a FROM s ORDER BY a NULLS LAST LIMIT 2",
			"LogicalSort(offset=[0], fetch=[2])\n" +
				"   +- LogicalSort(sort0=[$0 ASC-nulls-last])\n" +
				"      +- LogicalProject(a=[$0])\n" +
				"         +- LogicalTableScan(table=[[default_catalog, default_database, s]])\n"},
		{"SELECT a FROM s UNION SELECT a FROM s",
			"LogicalAggregate(group=[{0}])\n" +
				"   +- LogicalUnion(all=[true])\n" +
				"      +- LogicalProject(a=[$0])\n" +
				"         +- LogicalTableScan(table=[[default_catalog, default_database, s]])\n" +
				"      +- LogicalProject(a=[$0])\n" +
				"         +- LogicalTableScan(table=[[default_catalog, default_database, s]])\n"},
		{"SELECT a FROM s WHERE a IN (SELECT user_id FROM users)",
			"LogicalProject(a=[$0])\n" +
				"   +- LogicalJoin(condition=[=($0, $3)], joinType=[semi])\n" +
				"      +- LogicalTableScan(table=[[default_catalog, default_database, s]])\n" +
				"      +- LogicalProject(user_id=[$0])\n" +
				"         +- LogicalTableScan(table=[[default_catalog, default_database, users]])\n"},
		{"SELECT a FROM s WHERE EXISTS (SELECT 1 FROM users u WHERE u.user_id = s.a AND u.age > 1)",
			"LogicalProject(a=[$0])\n" +
				"   +- LogicalJoin(condition=[=($3, $0)], joinType=[semi])\n" +
				"      +- LogicalTableScan(table=[[default_catalog, default_database, s]])\n" +
				"      +- LogicalFilter(condition=[>($2, 1)])\n" +
				"         +- LogicalTableScan(table=[[default_catalog, default_database, users]])\n"},
		{"SELECT a, (SELECT MAX(age) FROM users) FROM s",
			"LogicalProject(a=[$0], EXPR$1=[$3])\n" +
				"   +- LogicalJoin(condition=[true], joinType=[left])\n" +
				"      +- LogicalTableScan(table=[[default_catalog, default_database, s]])\n" +
				"      +- LogicalAggregate(group=[{}], $f0=[SINGLE_VALUE($0)])\n" +
				"         +- LogicalAggregate(group=[{}], EXPR$0=[MAX($0)])\n" +
				"            +- LogicalProject(age=[$2])\n" +
				"               +- LogicalTableScan(table=[[default_catalog, default_database, users]])\n"},
		{"SELECT * FROM s FULL JOIN users ON s.a = users.user_id",
			"LogicalProject(a=[$0], b=[$1], c=[$2], user_id=[$3], name=[$4], age=[$5])\n" +
				"   +- LogicalJoin(condition=[=($0, $3)], joinType=[full])\n" +
				"      +- LogicalTableScan(table=[[default_catalog, default_database, s]])\n" +
				"      +- LogicalTableScan(table=[[default_catalog, default_database, users]])\n"},
		{"SELECT * FROM comp",
			"LogicalProject(a=[$0], b=[$1], c=[$2], d=[$3])\n" +
				"   +- LogicalProject(a=[$0], b=[$1], c=[+($0, $1)], d=[UPPER(CAST($0 AS STRING))])\n" +
				"      +- LogicalTableScan(table=[[default_catalog, default_database, comp]])\n"},
		{"SELECT * FROM (SELECT a FROM s ORDER BY a) AS q",
			"LogicalProject(a=[$0])\n" +
				"   +- LogicalProject(a=[$0])\n" +
				"      +- LogicalTableScan(table=[[default_catalog, default_database, s]])\n"},
		{"SELECT a, (SELECT name FROM users u WHERE u.user_id = s.a) FROM s",
			"LogicalProject(a=[$0], EXPR$1=[$4])\n" +
				"   +- LogicalJoin(condition=[=($0, $3)], joinType=[left])\n" +
				"      +- LogicalTableScan(table=[[default_catalog, default_database, s]])\n" +
				"      +- LogicalAggregate(group=[{0}], $v=[SINGLE_VALUE($1)])\n" +
				"         +- LogicalProject($k0=[$0], $v=[$1])\n" +
				"            +- LogicalTableScan(table=[[default_catalog, default_database, users]])\n"},
		{"SELECT a FROM s WHERE a BETWEEN 1 AND 3",
			"LogicalProject(a=[$0])\n" +
				"   +- LogicalFilter(condition=[AND(>=($0, 1), <=($0, 3))])\n" +
				"      +- LogicalTableScan(table=[[default_catalog, default_database, s]])\n"},
		{"SELECT a FROM s WHERE a NOT IN (1, 2)",
			"LogicalProject(a=[$0])\n" +
				"   +- LogicalFilter(condition=[NOT(IN($0, 1, 2))])\n" +
				"      +- LogicalTableScan(table=[[default_catalog, default_database, s]])\n"},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			n, err := plan(t, v, tc.sql)
			require.NoError(t, err)
			require.Equal(t, tc.plan, logical.Explain(n))
			checkRefs(t, n)
		})
	}
}

func TestNotInIsNullAware(t *testing.T) {
	v := newTestValidator(t)
	n, err := plan(t, v, "SELECT a FROM s WHERE a NOT IN (SELECT user_id FROM users)")
	require.NoError(t, err)
	j := n.(*logical.Project).Input.(*logical.Join)
	require.Equal(t, logical.AntiJoin, j.Kind)
	require.True(t, j.NullAwareAnti)
	n, err = plan(t, v, "SELECT a FROM s WHERE NOT EXISTS (SELECT user_id FROM users)")
	require.NoError(t, err)
	j = n.(*logical.Project).Input.(*logical.Join)
	require.Equal(t, logical.AntiJoin, j.Kind)
	require.False(t, j.NullAwareAnti)
	require.Nil(t, j.Cond)
}

func TestQueryErrors(t *testing.T) {
	v := newTestValidator(t)
	tests := []struct {
		sql, err string
	}{
		{"SELECT x FROM t", "From line 1, column 8 to line 1, column 8: Column 'x' not found in any table"},
		{"SELECT a FROM nope", "From line 1, column 15 to line 1, column 18: Object 'nope' not found within 'default_catalog.default_database'"},
		{"SELECT user_id FROM orders, users", "Column 'user_id' is ambiguous"},
		{"SELECT t.zz FROM t", "Column 'zz' not found in table 't'"},
		{"SELECT q.a FROM t", "Table 'q' not found"},
		{"SELECT a, b FROM t GROUP BY a", "From line 1, column 11 to line 1, column 11: Expression 'b' is not being grouped"},
		{"SELECT * FROM t GROUP BY a", "Expression 'b' is not being grouped"},
		{"SELECT a FROM t GROUP BY a ORDER BY b", "Expression 'b' is not being grouped"},
		{"SELECT foo(a) FROM t", "No match found for function signature foo(<NUMERIC>)"},
		{"SELECT foo(qty, product, ts) FROM orders", "No match found for function signature foo(<NUMERIC>, <CHARACTER>, <TIMESTAMP>)"},
		{"SELECT CAST(arr AS INT) FROM t", "Cast function cannot convert value of type ARRAY<INT> to type INT"},
		{"SELECT a FROM t WHERE SUM(a) > 1", "Aggregate expression is illegal in WHERE clause"},
		{"SELECT a FROM t GROUP BY SUM(a)", "Aggregate expression is illegal in GROUP BY clause"},
		{"SELECT SUM(COUNT(a)) FROM t", "Aggregate expressions cannot be nested"},
		{"SELECT a FROM t UNION SELECT a, b FROM t", "Column count mismatch in UNION"},
		{"SELECT a FROM t UNION SELECT arr FROM t", "Type mismatch in column 1 of UNION"},
		{"VALUES (1), (1, 2)", "same number of columns"},
		{"SELECT a FROM t WHERE a", "WHERE clause must be a boolean expression"},
		{"SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE))", "Unknown identifier 'ts'"}, // window.go: t has no column ts
		{"SELECT a, SUM(a) OVER (ORDER BY a RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t", "not supported yet: OVER frames"},
		{"SELECT a + 'x' FROM t", "Cannot apply '+'"},
		{"SELECT DISTINCT a FROM t ORDER BY b", "Expression 'b' is not in the select clause"},
		{"SELECT a FROM t ORDER BY 5", "Ordinal out of range"},
		{"SELECT * FROM t AS x(a)", "List of column aliases must have same degree as table"},
		{"SELECT * FROM s JOIN users USING (zz)", "Column 'zz' not found in left table"},
		{"SELECT SUM(c) FROM t", "Cannot apply 'SUM'"},
		{"SELECT x.* FROM t", "Unknown identifier 'x'"},
		{"SELECT a FROM t WHERE a IN (SELECT a, b FROM s)", "exactly one column"},
		{"SELECT (SELECT a, b FROM s) FROM t", "exactly one column"},
		{"SELECT a FROM t WHERE EXISTS (SELECT 1 FROM s WHERE s.a > t.a GROUP BY b)", "not supported yet: correlated subquery"},
		{"SELECT (SELECT s.a FROM s WHERE s.b > t.b) FROM t", "not supported yet: correlated scalar subquery"},
		{"SELECT DATE '2020-13-01'", "Illegal DATE literal '2020-13-01'"},
		{"SELECT TIMESTAMP '2020-01-01 25:00:00'", "Illegal TIMESTAMP literal"},
		{"SELECT r.zz FROM t", "Unknown field 'zz'"},
		{"SELECT * FROM s FOR SYSTEM_TIME AS OF TIMESTAMP '2020-01-01 00:00:00'", "not supported yet: FOR SYSTEM_TIME AS OF"},
		{"SELECT CASE WHEN a > 1 THEN 1 ELSE 'x' END FROM t", "Illegal mixing of types in CASE or COALESCE statement"},
		{"SELECT CASE WHEN a > 1 THEN NULL END FROM t", "ELSE clause or at least one THEN clause must be non-NULL"},
		{"SELECT a FROM s LIMIT a", "not supported yet"},
		{"WITH x AS (SELECT * FROM x) SELECT * FROM x", "Object 'x' not found"},
		{"WITH x AS (SELECT * FROM y), y AS (SELECT a FROM s) SELECT * FROM x", "Object 'y' not found"},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			_, err := plan(t, v, tc.sql)
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.err)
		})
	}
}
