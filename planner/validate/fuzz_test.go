package validate

import (
	"testing"

	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/parser"
)

// FuzzValidate checks that no parsable statement makes the validator panic.
func FuzzValidate(f *testing.F) {
	seeds := []string{
		"SELECT a, b + 1 FROM t WHERE a > 1 ORDER BY c LIMIT 2",
		"SELECT user_id, COUNT(DISTINCT product) FILTER (WHERE qty > 1) FROM orders GROUP BY user_id HAVING SUM(qty) > 1",
		"SELECT * FROM orders o JOIN users u USING (user_id) WHERE EXISTS (SELECT 1 FROM s WHERE s.a = o.qty)",
		"SELECT id, (SELECT COUNT(*) FROM users u WHERE u.user_id = o.user_id) FROM orders o",
		"WITH x AS (SELECT a FROM t) SELECT * FROM x UNION SELECT a FROM s",
		"VALUES (1, 'a'), (NULL, 'b')",
		"SELECT CASE a WHEN 1 THEN r.x END, arr[1], m['k'], CAST(c AS INT) FROM t",
		"INSERT INTO sink1 (a, c) SELECT a, c FROM s",
		"CREATE TABLE x (a INT, b AS a + 1, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND, PRIMARY KEY (a) NOT ENFORCED)",
		"CREATE VIEW v AS SELECT a FROM s WHERE a IN (SELECT user_id FROM users)",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		st, err := parser.ParseStatement(sql)
		if err != nil {
			return
		}
		v := newTestValidator(t)
		switch s := st.(type) {
		case *ast.QueryStmt:
			_, _ = v.Query(s.Query)
			_, _ = v.ExpandQuery(s.Query)
		case *ast.Insert:
			_, _ = v.Insert(s)
		case *ast.CreateTable:
			_, _, _ = v.CreateTable(s)
		case *ast.CreateView:
			_, _, _ = v.CreateView(s)
		}
	})
}
