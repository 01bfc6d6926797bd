package planner

import (
	"flag"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/planner/parser"
	"github.com/tablerun/tablerun/planner/physical"
	"github.com/tablerun/tablerun/planner/rules"
	"github.com/tablerun/tablerun/planner/validate"
)

// interp is a naive row-at-a-time interpreter of logical plans: the oracle
// that checks the rules do not change query results.
type interp struct {
	data map[string][][]any
	reg  *function.Registry
	ctx  *function.EvalContext
}

func (in *interp) run(n logical.Node) ([][]any, error) {
	switch x := n.(type) {
	case *logical.Scan:
		var out [][]any
		for _, r := range in.data[x.Table.ID.Object] {
			if x.Projection == nil {
				out = append(out, r)
				continue
			}
			row := make([]any, len(x.Projection))
			for i, p := range x.Projection {
				row[i] = r[p]
			}
			out = append(out, row)
		}
		return out, nil
	case *logical.Values:
		var out [][]any
		for _, r := range x.Rows {
			row, err := in.evalAll(r, nil)
			if err != nil {
				return nil, err
			}
			out = append(out, row)
		}
		return out, nil
	case *logical.Project:
		rows, err := in.run(x.Input)
		if err != nil {
			return nil, err
		}
		out := make([][]any, 0, len(rows))
		for _, r := range rows {
			row, err := in.evalAll(x.Exprs, r)
			if err != nil {
				return nil, err
			}
			out = append(out, row)
		}
		return out, nil
	case *logical.Filter:
		rows, err := in.run(x.Input)
		if err != nil {
			return nil, err
		}
		var out [][]any
		for _, r := range rows {
			v, err := logical.Eval(in.ctx, in.reg, x.Cond, r)
			if err != nil {
				return nil, err
			}
			if v == true {
				out = append(out, r)
			}
		}
		return out, nil
	case *logical.Aggregate:
		return in.aggregate(x)
	case *logical.Join:
		return in.join(x)
	case *logical.Sort:
		rows, err := in.run(x.Input)
		if err != nil {
			return nil, err
		}
		s := x.Input.Schema()
		sort.SliceStable(rows, func(i, j int) bool {
			for _, k := range x.Keys {
				a, b := rows[i][k.Index], rows[j][k.Index]
				if a == nil || b == nil {
					if (a == nil) == (b == nil) {
						continue
					}
					return (a == nil) == k.NullsFirst
				}
				c := function.CompareValues(a, b, s[k.Index].Type)
				if c != 0 {
					return (c < 0) != k.Desc
				}
			}
			return false
		})
		return rows, nil
	case *logical.Limit:
		rows, err := in.run(x.Input)
		if err != nil {
			return nil, err
		}
		if x.Offset >= int64(len(rows)) {
			return nil, nil
		}
		rows = rows[x.Offset:]
		if x.Fetch >= 0 && x.Fetch < int64(len(rows)) {
			rows = rows[:x.Fetch]
		}
		return rows, nil
	case *logical.Union:
		var out [][]any
		for _, c := range x.Inputs {
			rows, err := in.run(c)
			if err != nil {
				return nil, err
			}
			out = append(out, rows...)
		}
		return out, nil
	case *logical.SetOp:
		l, err := in.run(x.Left)
		if err != nil {
			return nil, err
		}
		r, err := in.run(x.Right)
		if err != nil {
			return nil, err
		}
		counts := map[string]int{}
		for _, row := range r {
			counts[key(row)]++
		}
		var out [][]any
		seen := map[string]bool{}
		for _, row := range l {
			k := key(row)
			keep := counts[k] > 0
			if x.Kind == logical.Except {
				keep = !keep
			}
			if x.All {
				if x.Kind == logical.Intersect && counts[k] > 0 || x.Kind == logical.Except && counts[k] > 0 {
					counts[k]--
				}
			} else {
				if seen[k] {
					continue
				}
				seen[k] = keep || seen[k]
			}
			if keep {
				out = append(out, row)
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("interp: %T", n)
}

func (in *interp) evalAll(es []logical.Expr, row []any) ([]any, error) {
	out := make([]any, len(es))
	for i, e := range es {
		v, err := logical.Eval(in.ctx, in.reg, e, row)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func key(row []any) string { return fmt.Sprintf("%#v", row) }

func (in *interp) aggregate(x *logical.Aggregate) ([][]any, error) {
	rows, err := in.run(x.Input)
	if err != nil {
		return nil, err
	}
	type group struct {
		keys []any
		rows [][]any
	}
	var order []string
	groups := map[string]*group{}
	for _, r := range rows {
		keys := make([]any, len(x.GroupKeys))
		for i, k := range x.GroupKeys {
			keys[i] = r[k]
		}
		k := key(keys)
		g, ok := groups[k]
		if !ok {
			g = &group{keys: keys}
			groups[k] = g
			order = append(order, k)
		}
		g.rows = append(g.rows, r)
	}
	if len(x.GroupKeys) == 0 && len(groups) == 0 {
		groups[""] = &group{}
		order = append(order, "")
	}
	var out [][]any
	for _, k := range order {
		g := groups[k]
		row := append([]any{}, g.keys...)
		for _, a := range x.Aggs {
			var vals []any
			seen := map[string]bool{}
			for _, r := range g.rows {
				if a.Filter >= 0 && r[a.Filter] != true {
					continue
				}
				if len(a.Args) == 0 {
					vals = append(vals, true)
					continue
				}
				v := r[a.Args[0]]
				if v == nil {
					continue
				}
				if a.Distinct {
					if seen[key([]any{v})] {
						continue
					}
					seen[key([]any{v})] = true
				}
				vals = append(vals, v)
			}
			var res any
			switch a.Name {
			case "COUNT":
				res = int64(len(vals))
			case "SUM":
				for _, v := range vals {
					res = addNum(res, v)
				}
			case "MIN", "MAX":
				for _, v := range vals {
					if res == nil {
						res = v
						continue
					}
					c := function.CompareValues(v, res, a.T)
					if (a.Name == "MIN") == (c < 0) && c != 0 {
						res = v
					}
				}
			case "SINGLE_VALUE":
				if len(vals) > 1 {
					return nil, fmt.Errorf("more than one row")
				}
				if len(vals) == 1 {
					res = vals[0]
				}
			case "AVG":
				for _, v := range vals {
					res = addNum(res, v)
				}
				switch sum := res.(type) {
				case int32:
					res = sum / int32(len(vals))
				case int64:
					res = sum / int64(len(vals))
				case float64:
					res = sum / float64(len(vals))
				}
			default:
				return nil, fmt.Errorf("interp: aggregate %s", a.Name)
			}
			row = append(row, res)
		}
		out = append(out, row)
	}
	return out, nil
}

func addNum(acc, v any) any {
	if acc == nil {
		return v
	}
	switch a := acc.(type) {
	case int32:
		return a + v.(int32)
	case int64:
		return a + v.(int64)
	case float64:
		return a + v.(float64)
	}
	panic(fmt.Sprintf("addNum %T", acc))
}

func (in *interp) join(x *logical.Join) ([][]any, error) {
	l, err := in.run(x.Left)
	if err != nil {
		return nil, err
	}
	r, err := in.run(x.Right)
	if err != nil {
		return nil, err
	}
	nl, nr := len(x.Left.Schema()), len(x.Right.Schema())
	nulls := func(n int) []any { return make([]any, n) }
	matchR := make([]bool, len(r))
	var out [][]any
	for _, lr := range l {
		matched, unknown := false, false
		for j, rr := range r {
			row := append(append([]any{}, lr...), rr...)
			var v any = true
			if x.Cond != nil {
				v, err = logical.Eval(in.ctx, in.reg, x.Cond, row)
				if err != nil {
					return nil, err
				}
			}
			if v == nil {
				unknown = true
			}
			if v != true {
				continue
			}
			matched = true
			matchR[j] = true
			if x.Kind != logical.SemiJoin && x.Kind != logical.AntiJoin {
				out = append(out, row)
			}
		}
		switch x.Kind {
		case logical.LeftJoin, logical.FullJoin:
			if !matched {
				out = append(out, append(append([]any{}, lr...), nulls(nr)...))
			}
		case logical.SemiJoin:
			if matched {
				out = append(out, lr)
			}
		case logical.AntiJoin:
			if !matched && !(x.NullAwareAnti && unknown) {
				out = append(out, lr)
			}
		}
	}
	if x.Kind == logical.RightJoin || x.Kind == logical.FullJoin {
		for j, rr := range r {
			if !matchR[j] {
				out = append(out, append(nulls(nl), rr...))
			}
		}
	}
	return out, nil
}

func sortedKeys(rows [][]any) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = key(r)
	}
	sort.Strings(out)
	return out
}

var oracleDDL = []string{
	"CREATE TABLE emp (id INT NOT NULL, name STRING, dept INT, salary INT, mgr INT) WITH ('connector' = 'values')",
	"CREATE TABLE dept (did INT, dname STRING, budget INT) WITH ('connector' = 'values')",
}

var oracleData = map[string][][]any{
	"emp": {
		{int32(1), "ann", int32(10), int32(100), nil},
		{int32(2), "bob", int32(10), int32(80), int32(1)},
		{int32(3), "cy", int32(20), int32(90), int32(1)},
		{int32(4), "dee", nil, int32(50), int32(2)},
		{int32(5), "ed", int32(30), nil, int32(3)},
		{int32(6), nil, int32(20), int32(70), int32(3)},
	},
	"dept": {
		{int32(10), "eng", int32(1000)},
		{int32(20), "ops", int32(500)},
		{int32(40), "hr", nil},
		{nil, "none", int32(1)},
	},
}

var oracleQueries = []string{
	"SELECT name, salary + 1 FROM emp WHERE salary > 10 * 7",
	"SELECT * FROM emp WHERE 1 = 1 AND dept = 10",
	"SELECT * FROM emp WHERE 1 = 0",
	"SELECT name FROM (SELECT name, salary * 2 AS s FROM emp) WHERE s > 150",
	"SELECT e.name, d.dname FROM emp e, dept d WHERE e.dept = d.did AND d.budget > 600",
	"SELECT e.name, d.dname FROM emp e JOIN dept d ON e.dept = d.did AND e.salary > 60 AND d.budget < 900",
	"SELECT e.name, d.dname FROM emp e LEFT JOIN dept d ON e.dept = d.did AND d.budget > 600 AND e.salary > 60",
	"SELECT e.name, d.dname FROM emp e LEFT JOIN dept d ON e.dept = d.did WHERE d.dname IS NULL OR e.salary > 85",
	"SELECT e.name, d.dname FROM emp e RIGHT JOIN dept d ON e.dept = d.did WHERE d.budget > 100",
	"SELECT e.name, d.dname FROM emp e FULL JOIN dept d ON e.dept = d.did AND e.salary > 60 WHERE e.id > 1 OR d.did > 10",
	"SELECT dept, COUNT(*), SUM(salary), MAX(name) FROM emp GROUP BY dept HAVING dept > 10 AND COUNT(*) > 1",
	"SELECT COUNT(*) FROM emp WHERE 1 = 0",
	"SELECT dept, COUNT(DISTINCT salary) FROM emp WHERE salary IS NOT NULL GROUP BY dept",
	"SELECT name FROM emp WHERE dept IN (SELECT did FROM dept WHERE budget > 600)",
	"SELECT name FROM emp WHERE dept NOT IN (SELECT did FROM dept WHERE budget > 600)",
	"SELECT name FROM emp WHERE EXISTS (SELECT * FROM dept WHERE did = emp.dept)",
	"SELECT * FROM (SELECT name, dept FROM emp UNION ALL SELECT dname, did FROM dept) WHERE dept > 10",
	"SELECT dept FROM emp UNION SELECT did FROM dept",
	"SELECT dept FROM emp INTERSECT SELECT did FROM dept",
	"SELECT dept FROM emp EXCEPT SELECT did FROM dept",
	"SELECT name, CASE WHEN 1 > 2 THEN 'x' WHEN salary > 80 THEN 'high' ELSE 'low' END FROM emp",
	"SELECT DISTINCT dept FROM emp WHERE dept IS NOT NULL",
	"SELECT a.name, b.name FROM emp a JOIN emp b ON a.mgr = b.id WHERE b.salary + 0 > 70",
	"SELECT name, s FROM (SELECT name, salary AS s FROM emp ORDER BY salary DESC LIMIT 3) WHERE s > 85",
	"SELECT COUNT(*) FROM emp e, dept d",
	"SELECT e.name FROM emp e JOIN dept d ON e.dept + 0 = d.did - 0",
	"SELECT e.name FROM emp e JOIN dept d ON e.dept = d.did OR e.salary > 95",
	"SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS t(x, y) WHERE x > 1",
	"SELECT name FROM emp WHERE salary / 0 > 1 AND 1 = 0",
	"SELECT name FROM emp e WHERE NOT EXISTS (SELECT * FROM dept d WHERE d.did = e.dept AND d.budget > 600)",
	"SELECT name FROM emp e WHERE EXISTS (SELECT * FROM dept d WHERE d.did = e.dept AND e.salary > 85)",
	"SELECT name, (SELECT MAX(budget) FROM dept) FROM emp WHERE id < 3",
	"SELECT name FROM emp WHERE salary > (SELECT AVG(salary) FROM emp)",
	"SELECT d, c FROM (SELECT dept + 1 AS d, COUNT(*) AS c FROM emp GROUP BY dept + 1) WHERE d > 11 AND c > 0",
	"SELECT * FROM (SELECT dept, SUM(salary) AS s FROM emp GROUP BY dept) t JOIN dept ON t.dept = dept.did WHERE t.s > 100 AND dept.budget IS NOT NULL",
	"SELECT name FROM emp ORDER BY salary DESC NULLS LAST LIMIT 2 OFFSET 1",
	"SELECT e.name FROM emp e LEFT JOIN dept d ON e.dept = d.did WHERE d.budget > 600",
	"SELECT a.name, b.dept FROM emp a JOIN emp b USING (id) WHERE b.dept > 10",
	"SELECT COALESCE(d.dname, 'x'), COUNT(e.id) FROM dept d LEFT JOIN emp e ON e.dept = d.did GROUP BY COALESCE(d.dname, 'x')",
	"SELECT a.name FROM emp a, emp b, dept c WHERE a.mgr = b.id AND b.dept = c.did AND c.budget > 100 AND a.salary < b.salary",
	"SELECT name FROM emp WHERE dept IN (10, 30) AND NOT (salary < 60)",
	"SELECT x FROM (SELECT salary + 0 AS x FROM emp UNION ALL SELECT budget FROM dept) WHERE x IS NOT NULL AND x < 600",
	"SELECT DISTINCT name FROM (SELECT name FROM emp INTERSECT ALL SELECT dname FROM dept)",
	"SELECT dept, MIN(salary) FILTER (WHERE salary > 60) FROM emp GROUP BY dept",
	"SELECT e.name, d.dname FROM emp e FULL JOIN dept d ON e.dept = d.did WHERE d.budget > 100",
	"SELECT e.name, d.dname FROM emp e FULL JOIN dept d ON e.dept = d.did WHERE e.salary + d.budget > 100",
	"SELECT e.name, d.dname FROM emp e RIGHT JOIN dept d ON e.dept = d.did WHERE e.name IS NULL OR e.salary > 80",
	"SELECT e.name, d.dname FROM emp e LEFT JOIN dept d ON e.dept = d.did WHERE COALESCE(d.budget, 0) = 0",
}

var showPlans = flag.Bool("show", false, "log the EXPLAIN of each oracle query")

func TestRulesAgreeWithOracle(t *testing.T) {
	reg := function.Builtins()
	ctx := &function.EvalContext{Loc: time.UTC, Now: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)}
	cat := catalog.NewManager("default_catalog", "default_database")
	v := validate.New(cat, reg, validate.Options{Loc: time.UTC, Now: ctx.Now})
	for _, ddl := range oracleDDL {
		st, err := parser.ParseStatement(ddl)
		require.NoError(t, err, ddl)
		id, tbl, err := v.CreateTable(st.(*ast.CreateTable))
		require.NoError(t, err, ddl)
		require.NoError(t, cat.CreateObject(id, tbl, false, false))
	}
	in := &interp{data: oracleData, reg: reg, ctx: ctx}
	for _, sql := range oracleQueries {
		t.Run(sql, func(t *testing.T) {
			st, err := parser.ParseStatement(sql)
			require.NoError(t, err)
			qs, ok := st.(*ast.QueryStmt)
			require.True(t, ok)
			plan, err := v.Query(qs.Query)
			if err != nil {
				t.Skipf("validator: %v", err)
			}
			want, wantErr := in.run(plan)
			opt, phys, err := Optimize(plan, reg, ctx, Options{})
			require.NoError(t, err)
			got, err := in.run(opt)
			require.NoError(t, err)
			if wantErr != nil {
				// Folding may remove a run-time error (FALSE AND 1/0),
				// as in Flink; it must never add one.
				t.Logf("unoptimized plan fails: %v", wantErr)
				return
			}
			require.Equal(t, sortedKeys(want), sortedKeys(got), "before:\n%s\nafter:\n%s", ExplainLogical(plan), ExplainLogical(opt))
			back, err := toLogical(phys)
			require.NoError(t, err)
			gotPhys, err := in.run(back)
			require.NoError(t, err)
			require.Equal(t, sortedKeys(want), sortedKeys(gotPhys), "physical:\n%s", physical.Explain(phys))
			requireSchema(t, plan.Schema(), opt.Schema())
			// The optimized plan is a fixed point: no rule fires again.
			for _, r := range rules.All(reg, ctx) {
				_, changed, err := r.Apply(opt)
				require.NoError(t, err)
				require.False(t, changed, "%s fires on the optimized plan\n%s", r.Name(), ExplainLogical(opt))
			}
			require.NotEmpty(t, physical.Explain(phys))
			if *showPlans {
				t.Logf("\n%s", Explain(plan, phys, nil))
			}
			_, physOff, err := Optimize(plan, reg, ctx, AllRulesOff())
			require.NoError(t, err, ExplainLogical(plan))
			backOff, err := toLogical(physOff)
			require.NoError(t, err)
			gotOff, err := in.run(backOff)
			require.NoError(t, err)
			require.Equal(t, sortedKeys(want), sortedKeys(gotOff), "rules off, physical:\n%s", physical.Explain(physOff))
			require.Equal(t, plan.Schema().Names(), physOff.Schema().Names())
		})
	}
}

func requireSchema(t *testing.T, want, got types.Schema) {
	t.Helper()
	require.Equal(t, want.Names(), got.Names())
	for i := range want {
		require.True(t, want[i].Type.Equal(got[i].Type), "column %s: %s vs %s", want[i].Name, want[i].Type, got[i].Type)
	}
}

// toLogical rewrites a physical plan back into logical nodes with the same
// meaning, so that the interpreter can run it: the oracle then checks the
// translation (Calc fusion, join keys, computed key columns) too.
func toLogical(p physical.Node) (logical.Node, error) {
	ch := p.Children()
	in := make([]logical.Node, len(ch))
	for i, c := range ch {
		var err error
		if in[i], err = toLogical(c); err != nil {
			return nil, err
		}
	}
	switch x := p.(type) {
	case *physical.TableSourceScan:
		return &logical.Scan{Table: x.Table, Projection: x.Projection, Out: x.Out}, nil
	case *physical.Values:
		rows := make([][]logical.Expr, len(x.Rows))
		for i, r := range x.Rows {
			rows[i] = make([]logical.Expr, len(r))
			for j, v := range r {
				rows[i][j] = &logical.Literal{Value: v, T: x.Out[j].Type}
			}
		}
		return &logical.Values{Rows: rows, Out: x.Out}, nil
	case *physical.Calc:
		var n logical.Node = in[0]
		if x.Condition != nil {
			n = &logical.Filter{Input: n, Cond: x.Condition}
		}
		return &logical.Project{Input: n, Exprs: x.Projection, Out: x.Out}, nil
	case *physical.HashAggregate:
		return &logical.Aggregate{Input: in[0], GroupKeys: x.GroupKeys, Aggs: x.Aggs, Out: x.Out}, nil
	case *physical.HashJoin:
		nLeft := len(x.Left.Schema())
		ls, rs := x.Left.Schema(), x.Right.Schema()
		var conds []logical.Expr
		for i := range x.LeftKeys {
			l, r := x.LeftKeys[i], x.RightKeys[i]
			conds = append(conds, logical.NewCall(function.OpEquals, types.BooleanT,
				&logical.ColumnRef{Index: l, T: ls[l].Type}, &logical.ColumnRef{Index: nLeft + r, T: rs[r].Type}))
		}
		conds = append(conds, x.Extra)
		return &logical.Join{Left: in[0], Right: in[1], Kind: x.Kind, Cond: logical.And(conds...), NullAwareAnti: x.NullAwareAnti, Out: x.Out}, nil
	case *physical.NestedLoopJoin:
		return &logical.Join{Left: in[0], Right: in[1], Kind: x.Kind, Cond: x.Cond, NullAwareAnti: x.NullAwareAnti, Out: x.Out}, nil
	case *physical.Sort:
		return &logical.Sort{Input: in[0], Keys: x.Keys}, nil
	case *physical.SortLimit:
		return &logical.Limit{Input: &logical.Sort{Input: in[0], Keys: x.Keys}, Offset: x.Offset, Fetch: x.Fetch}, nil
	case *physical.Limit:
		return &logical.Limit{Input: in[0], Offset: x.Offset, Fetch: x.Fetch}, nil
	case *physical.Union:
		return &logical.Union{Inputs: in, Out: x.Out}, nil
	case *physical.SetOp:
		return &logical.SetOp{Left: in[0], Right: in[1], Kind: x.Kind, All: x.All}, nil
	}
	return nil, fmt.Errorf("toLogical: %T", p)
}
