package validate

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRoundDecimalResultType(t *testing.T) {
	v := newTestValidator(t)
	cases := []struct {
		sql, want string
	}{
		{"SELECT ROUND(2.567, 2)", "EXPR$0 DECIMAL(4, 2) NOT NULL"},
		{"SELECT ROUND(-2.5, 0)", "EXPR$0 DECIMAL(2, 0) NOT NULL"},
		{"SELECT ROUND(-2.5)", "EXPR$0 DECIMAL(2, 0) NOT NULL"},
		{"SELECT TRUNCATE(2.567, 1)", "EXPR$0 DECIMAL(3, 1) NOT NULL"},
		{"SELECT ROUND(123.45, -1)", "EXPR$0 DECIMAL(4, 0) NOT NULL"},
		{"SELECT ROUND(2.567, 5)", "EXPR$0 DECIMAL(4, 3) NOT NULL"},
		{"SELECT ROUND(amount, 1) FROM orders", "EXPR$0 DECIMAL(10, 1)"},
		{"SELECT ROUND(amount, qty) FROM orders", "EXPR$0 DECIMAL(10, 2)"},
		{"SELECT ROUND(d, 1) FROM t", "EXPR$0 DOUBLE"},
	}
	for _, c := range cases {
		t.Run(c.sql, func(t *testing.T) {
			n, err := plan(t, v, c.sql)
			require.NoError(t, err)
			require.Equal(t, c.want, schemaString(n.Schema()))
		})
	}
}

func TestModResultType(t *testing.T) {
	v := newTestValidator(t)
	cases := []struct {
		sql, want string
	}{
		{"SELECT MOD(7, 3)", "EXPR$0 INT NOT NULL"},
		{"SELECT MOD(b, a) FROM t", "EXPR$0 INT"},
		{"SELECT b % a FROM t", "EXPR$0 INT"},
		{"SELECT MOD(a, b) FROM t", "EXPR$0 BIGINT"},
		{"SELECT MOD(b, CAST(2 AS TINYINT)) FROM t", "EXPR$0 TINYINT"},
		{"SELECT MOD(CAST(7 AS DECIMAL(20, 0)), 3)", "EXPR$0 INT NOT NULL"},
		{"SELECT MOD(7.5, 2)", "EXPR$0 DECIMAL(2, 1) NOT NULL"},
		{"SELECT MOD(amount, 7) FROM orders", "EXPR$0 DECIMAL(10, 2)"},
	}
	for _, c := range cases {
		t.Run(c.sql, func(t *testing.T) {
			n, err := plan(t, v, c.sql)
			require.NoError(t, err)
			require.Equal(t, c.want, schemaString(n.Schema()))
		})
	}
}

func TestSubqueryValues(t *testing.T) {
	v := newTestValidator(t)
	cases := []struct {
		sql, want, err string
	}{
		{sql: "SELECT a IN (SELECT a FROM s) FROM t", want: "EXPR$0 BOOLEAN"},
		{sql: "SELECT a NOT IN (SELECT a FROM s) AS x, EXISTS (SELECT 1 FROM s) AS y FROM t", want: "x BOOLEAN, y BOOLEAN NOT NULL"},
		{sql: "SELECT id IN (SELECT CAST(b AS BIGINT) FROM s WHERE s.a = orders.user_id) FROM orders", want: "EXPR$0 BOOLEAN"},
		{sql: "SELECT EXISTS (SELECT 1 FROM s WHERE s.a = t.a AND s.b > 1) FROM t", want: "EXPR$0 BOOLEAN NOT NULL"},
		{sql: "SELECT a FROM t WHERE a = 1 OR a IN (SELECT a FROM s)", want: "a INT"},
		{sql: "SELECT a IN (SELECT a, b FROM s) FROM t", err: "exactly one column"},
		{sql: "SELECT EXISTS (SELECT 1 FROM s WHERE s.a > t.a) FROM t", err: "not supported yet: correlated IN/EXISTS subquery used as a value"},
		{sql: "SELECT c, COUNT(*) AS n FROM t GROUP BY c HAVING COUNT(*) IN (SELECT a FROM s)", want: "c STRING, n BIGINT NOT NULL"},
		{sql: "SELECT c, EXISTS (SELECT 1 FROM s WHERE s.c = t.c) AS e FROM t GROUP BY c", want: "c STRING, e BOOLEAN NOT NULL"},
		{sql: "SELECT c, EXISTS (SELECT 1 FROM s WHERE s.a = t.a) FROM t GROUP BY c", err: "not being grouped"},
		{sql: "SELECT b, (SELECT MAX(s.a) FROM s WHERE s.b = t.b) AS m FROM t GROUP BY b", want: "b BIGINT, m INT"},
		{sql: "SELECT b, (SELECT COUNT(*) FROM s WHERE s.b = t.b) AS n FROM t GROUP BY b HAVING (SELECT COUNT(*) FROM s WHERE s.b = t.b) > 1", want: "b BIGINT, n BIGINT NOT NULL"},
	}
	for _, c := range cases {
		t.Run(c.sql, func(t *testing.T) {
			n, err := plan(t, v, c.sql)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.want, schemaString(n.Schema()))
		})
	}
}
