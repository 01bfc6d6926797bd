package validate

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/planner/logical"
)

func TestOverPlans(t *testing.T) {
	v := newTestValidator(t)
	tests := []struct {
		sql, want, schema string
	}{
		{"SELECT a, ROW_NUMBER() OVER (PARTITION BY c ORDER BY b DESC) AS rn FROM s",
			"LogicalProject(a=[$0], rn=[$3])\n" +
				"   +- LogicalWindow(window#0=[window(partition {2} order by [1 DESC] rang between unbounded preceding and current row aggs [ROW_NUMBER()])])\n" +
				"      +- LogicalTableScan(table=[[default_catalog, default_database, s]])\n",
			"a INT, rn BIGINT NOT NULL"},
		{"SELECT a, SUM(b) OVER w1, COUNT(*) OVER (PARTITION BY a ORDER BY b ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM s WINDOW w1 AS (ORDER BY b)", "", ""},
		{"SELECT a, SUM(b) OVER (PARTITION BY a ORDER BY b ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS s1, COUNT(*) OVER (PARTITION BY a ORDER BY b ROWS UNBOUNDED PRECEDING) AS c1, MAX(a + 1) OVER (ORDER BY b) AS m FROM s",
			"LogicalProject(a=[$0], s1=[$4], c1=[$5], m=[$6])\n" +
				"   +- LogicalWindow(window#0=[window(partition {} order by [1 ASC] rang between unbounded preceding and current row aggs [MAX($3)])])\n" +
				"      +- LogicalWindow(window#0=[window(partition {0} order by [1 ASC] rows between unbounded preceding and current row aggs [SUM($1), COUNT()])])\n" +
				"         +- LogicalProject(a=[$0], b=[$1], c=[$2], $3=[+($0, 1)])\n" +
				"            +- LogicalTableScan(table=[[default_catalog, default_database, s]])\n",
			"a INT, s1 BIGINT, c1 BIGINT NOT NULL, m INT"},
		{"SELECT * FROM (SELECT a, RANK() OVER (ORDER BY b) AS r, DENSE_RANK() OVER (ORDER BY b) AS d FROM s) WHERE r <= 3",
			"", "a INT, r BIGINT NOT NULL, d BIGINT NOT NULL"},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			n, err := plan(t, v, tc.sql)
			if tc.want == "" && tc.schema == "" {
				require.ErrorContains(t, err, "not supported yet")
				return
			}
			require.NoError(t, err)
			if tc.want != "" {
				require.Equal(t, tc.want, logical.Explain(n))
			}
			require.Equal(t, tc.schema, schemaString(n.Schema()))
		})
	}
}

func TestOverErrors(t *testing.T) {
	v := newTestValidator(t)
	tests := []struct{ sql, err string }{
		{"SELECT ROW_NUMBER() OVER (PARTITION BY a) FROM s", "Function 'ROW_NUMBER' requires an ORDER BY clause"},
		{"SELECT RANK(a) OVER (ORDER BY a) FROM s", "Was expecting 0 arguments"},
		{"SELECT ROW_NUMBER() OVER (ORDER BY a ROWS UNBOUNDED PRECEDING) FROM s", "ROW/RANGE not allowed with RANK, DENSE_RANK or ROW_NUMBER functions"},
		{"SELECT SUM(a) OVER (PARTITION BY a ROWS UNBOUNDED PRECEDING) FROM s", "must contain an ORDER BY clause"},
		{"SELECT SUM(a) OVER (ORDER BY a RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM s", "not supported yet: OVER frames"},
		{"SELECT SUM(c) OVER (ORDER BY a) FROM s", "Cannot apply 'SUM'"},
		{"SELECT NTILE(2) OVER (ORDER BY a) FROM s", "not supported yet: window function NTILE"},
		{"SELECT a, COUNT(*) OVER (ORDER BY a) FROM s GROUP BY a", "not supported yet: OVER windows in this context"},
		{"SELECT SUM(ROW_NUMBER() OVER (ORDER BY a)) FROM s", "not supported yet"},
	}
	for _, tc := range tests {
		t.Run(tc.sql, func(t *testing.T) {
			_, err := plan(t, v, tc.sql)
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.err)
		})
	}
}
