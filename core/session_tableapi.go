package core

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tablerun/tablerun/core/catalog"
)

// Expr is an expression of the Table API, built with Col, Lit, Call and
// the methods below; it stands for SQL text, so everything SQL can do is
// reachable (SQLExpr).
type Expr struct{ sql string }

// Col refers to a column by name.
func Col(name string) Expr { return Expr{catalog.Quote(name)} }

// SQLExpr is an expression written in SQL, e.g. SQLExpr("UPPER(name)").
func SQLExpr(sql string) Expr { return Expr{"(" + sql + ")"} }

// Lit is a literal: nil (NULL), bool, integers, floats (DOUBLE), string,
// time.Time (TIMESTAMP(6), the wall clock in its location).
func Lit(v any) Expr {
	switch x := v.(type) {
	case nil:
		return Expr{"NULL"}
	case bool:
		if x {
			return Expr{"TRUE"}
		}
		return Expr{"FALSE"}
	case string:
		return Expr{quoteString(x)}
	case int, int8, int16, int32, int64, uint8, uint16, uint32:
		return Expr{fmt.Sprint(x)}
	case float32:
		return Expr{"CAST(" + strconv.FormatFloat(float64(x), 'E', -1, 32) + " AS FLOAT)"}
	case float64:
		return Expr{strconv.FormatFloat(x, 'E', -1, 64)}
	case time.Time:
		return Expr{"TIMESTAMP '" + x.Format("2006-01-02 15:04:05.000000") + "'"}
	}
	return Expr{quoteString(fmt.Sprint(v))}
}

// Call calls a function by name, e.g. Call("UPPER", Col("s")).
func Call(fn string, args ...Expr) Expr {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = a.sql
	}
	return Expr{fn + "(" + strings.Join(parts, ", ") + ")"}
}

// String returns the SQL text of the expression.
func (e Expr) String() string { return e.sql }

func (e Expr) bin(op string, o Expr) Expr { return Expr{"(" + e.sql + " " + op + " " + o.sql + ")"} }

// Plus is e + o.
func (e Expr) Plus(o Expr) Expr { return e.bin("+", o) }

// Minus is e - o.
func (e Expr) Minus(o Expr) Expr { return e.bin("-", o) }

// Times is e * o.
func (e Expr) Times(o Expr) Expr { return e.bin("*", o) }

// Div is e / o.
func (e Expr) Div(o Expr) Expr { return e.bin("/", o) }

// Mod is MOD(e, o).
func (e Expr) Mod(o Expr) Expr { return Call("MOD", e, o) }

// IsEqual is e = o.
func (e Expr) IsEqual(o Expr) Expr { return e.bin("=", o) }

// IsNotEqual is e <> o.
func (e Expr) IsNotEqual(o Expr) Expr { return e.bin("<>", o) }

// IsLess is e < o.
func (e Expr) IsLess(o Expr) Expr { return e.bin("<", o) }

// IsLessOrEqual is e <= o.
func (e Expr) IsLessOrEqual(o Expr) Expr { return e.bin("<=", o) }

// IsGreater is e > o.
func (e Expr) IsGreater(o Expr) Expr { return e.bin(">", o) }

// IsGreaterOrEqual is e >= o.
func (e Expr) IsGreaterOrEqual(o Expr) Expr { return e.bin(">=", o) }

// And is e AND o.
func (e Expr) And(o Expr) Expr { return e.bin("AND", o) }

// Or is e OR o.
func (e Expr) Or(o Expr) Expr { return e.bin("OR", o) }

// Not is NOT e.
func (e Expr) Not() Expr { return Expr{"(NOT " + e.sql + ")"} }

// IsNull is e IS NULL.
func (e Expr) IsNull() Expr { return Expr{"(" + e.sql + " IS NULL)"} }

// IsNotNull is e IS NOT NULL.
func (e Expr) IsNotNull() Expr { return Expr{"(" + e.sql + " IS NOT NULL)"} }

// Like is e LIKE pattern.
func (e Expr) Like(pattern string) Expr {
	return Expr{"(" + e.sql + " LIKE " + quoteString(pattern) + ")"}
}

// Cast is CAST(e AS sqlType), e.g. Cast("BIGINT").
func (e Expr) Cast(sqlType string) Expr { return Expr{"CAST(" + e.sql + " AS " + sqlType + ")"} }

// As names the expression's column.
func (e Expr) As(name string) Expr { return Expr{e.sql + " AS " + catalog.Quote(name)} }

// Sum is SUM(e).
func (e Expr) Sum() Expr { return Call("SUM", e) }

// Count is COUNT(e).
func (e Expr) Count() Expr { return Call("COUNT", e) }

// CountDistinct is COUNT(DISTINCT e).
func (e Expr) CountDistinct() Expr { return Expr{"COUNT(DISTINCT " + e.sql + ")"} }

// Avg is AVG(e).
func (e Expr) Avg() Expr { return Call("AVG", e) }

// Min is MIN(e).
func (e Expr) Min() Expr { return Call("MIN", e) }

// Max is MAX(e).
func (e Expr) Max() Expr { return Call("MAX", e) }

// CountStar is COUNT(*).
func CountStar() Expr { return Expr{"COUNT(*)"} }

// Asc orders by e ascending (OrderBy).
func (e Expr) Asc() Expr { return Expr{e.sql + " ASC"} }

// Desc orders by e descending (OrderBy).
func (e Expr) Desc() Expr { return Expr{e.sql + " DESC"} }

func exprList(es []Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.sql
	}
	return strings.Join(parts, ", ")
}

// SQL returns the query the table stands for.
func (t *Table) SQL() string { return t.text }

// Err returns the error of the Table API call that made t, if any.
func (t *Table) Err() error { return t.err }

// derive validates a query over t (planned lazily like SQL: nothing runs
// until Execute); a failure is kept in the result (Err).
func (t *Table) derive(sql string) *Table {
	if t.err != nil {
		return t
	}
	if t.text == "" {
		return &Table{env: t.env, err: unsupported("Table API calls on a table not made from SQL")}
	}
	nt, err := t.env.SQLQuery(sql)
	if err != nil {
		return &Table{env: t.env, err: err, text: sql}
	}
	return nt
}

func (t *Table) from() string { return "(" + t.text + ") AS `$t`" }

// Select projects expressions (use As to name them).
func (t *Table) Select(es ...Expr) *Table {
	return t.derive("SELECT " + exprList(es) + " FROM " + t.from())
}

// Filter keeps the rows where cond is TRUE.
func (t *Table) Filter(cond Expr) *Table {
	return t.derive("SELECT * FROM " + t.from() + " WHERE " + cond.sql)
}

// Where is Filter.
func (t *Table) Where(cond Expr) *Table { return t.Filter(cond) }

// Distinct removes duplicate rows.
func (t *Table) Distinct() *Table {
	return t.derive("SELECT DISTINCT * FROM " + t.from())
}

// GroupedTable is a table grouped by keys; Select aggregates it.
type GroupedTable struct {
	t    *Table
	keys []Expr
}

// GroupBy groups the rows by the key expressions.
func (t *Table) GroupBy(keys ...Expr) *GroupedTable { return &GroupedTable{t: t, keys: keys} }

// Select computes the keys and aggregates of each group.
func (g *GroupedTable) Select(es ...Expr) *Table {
	return g.t.derive("SELECT " + exprList(es) + " FROM " + g.t.from() + " GROUP BY " + exprList(g.keys))
}

func (t *Table) join(kind string, right *Table, cond Expr) *Table {
	if right.err != nil {
		return right
	}
	return t.derive("SELECT * FROM (" + t.text + ") AS `$l` " + kind + " (" + right.text + ") AS `$r` ON " + cond.sql)
}

// Join is an inner join with right on cond; the column names of both
// sides must differ.
func (t *Table) Join(right *Table, cond Expr) *Table { return t.join("JOIN", right, cond) }

// LeftOuterJoin is a left outer join with right on cond.
func (t *Table) LeftOuterJoin(right *Table, cond Expr) *Table {
	return t.join("LEFT JOIN", right, cond)
}

// OrderBy sorts the rows (use Asc / Desc).
func (t *Table) OrderBy(keys ...Expr) *Table {
	nt := t.derive("SELECT * FROM " + t.from() + " ORDER BY " + exprList(keys))
	nt.sorted = nt.err == nil
	return nt
}

// Limit keeps the first n rows (of the order of OrderBy when it came
// right before).
func (t *Table) Limit(n int64) *Table {
	if t.sorted {
		return t.derive(t.text + fmt.Sprintf(" LIMIT %d", n))
	}
	return t.derive("SELECT * FROM " + t.from() + fmt.Sprintf(" LIMIT %d", n))
}
