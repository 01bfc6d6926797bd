package flinkdiff

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// The random query generator (in the spirit of SQLancer and SQLsmith):
// two tables of every common type with NULLs, DECIMALs, timestamps and
// Unicode strings, and seeded random queries over them: projections,
// filters, CASE, casts, built-in functions, joins of every kind, GROUP BY
// with aggregates, DISTINCT, HAVING, ORDER BY/LIMIT, set operations and
// IN/EXISTS/scalar subqueries. A query that differs is shrunk (Shrink) by
// dropping clauses and replacing expressions with their operands while
// the difference stays.

// kind is the type class of a generated expression.
type kind uint8

const (
	kNum kind = iota
	kStr
	kBool
	kDec
	kTime
)

// column is a column of a generated table.
type column struct {
	name string
	sql  string // SQL type
	k    kind
}

var genColumns = []column{
	{"k", "INT", kNum},
	{"i", "BIGINT", kNum},
	{"d", "DECIMAL(10, 2)", kDec},
	{"f", "DOUBLE", kNum},
	{"s", "STRING", kStr},
	{"b", "BOOLEAN", kBool},
	{"ts", "TIMESTAMP(3)", kTime},
}

var genStrings = []string{"", "a", "abc", "Ab C", "é", "日本語", "ß", "x y z", "  pad  ", "Zürich", "0"}

// GenSchema returns the statements that create the generator's tables t1
// and t2 (temporary views over VALUES, every value cast to its column's
// type) for a seed.
func GenSchema(seed uint64) []string {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	var out []string
	for _, t := range []string{"t1", "t2"} {
		var rows []string
		n := 4 + rng.IntN(6)
		for r := 0; r < n; r++ {
			var vals []string
			for _, c := range genColumns {
				vals = append(vals, fmt.Sprintf("CAST(%s AS %s)", genValue(rng, c), c.sql))
			}
			rows = append(rows, "("+strings.Join(vals, ", ")+")")
		}
		var names []string
		for _, c := range genColumns {
			names = append(names, c.name)
		}
		out = append(out, fmt.Sprintf("CREATE TEMPORARY VIEW %s(%s) AS VALUES %s", t, strings.Join(names, ", "), strings.Join(rows, ", ")))
	}
	return out
}

func genValue(rng *rand.Rand, c column) string {
	if rng.IntN(6) == 0 {
		return "NULL"
	}
	switch c.name {
	case "k":
		return fmt.Sprint(rng.IntN(7) - 2)
	case "i":
		return fmt.Sprint([]int64{0, 1, -1, 42, 1 << 40, -(1 << 33), 7}[rng.IntN(7)])
	case "d":
		return fmt.Sprintf("%d.%02d", rng.IntN(2000)-1000, rng.IntN(100))
	case "f":
		return []string{"0.0", "1.5", "-2.25", "1e10", "0.1", "3.0", "-0.5"}[rng.IntN(7)]
	case "s":
		return "'" + genStrings[rng.IntN(len(genStrings))] + "'"
	case "b":
		return []string{"TRUE", "FALSE"}[rng.IntN(2)]
	case "ts":
		return fmt.Sprintf("'2024-0%d-1%d %02d:%02d:%02d.%03d'", 1+rng.IntN(9), rng.IntN(10), rng.IntN(24), rng.IntN(60), rng.IntN(60), rng.IntN(1000))
	}
	return "NULL"
}

// expr is a generated expression: its SQL is format with the operands'
// SQL in place of each %s.
type expr struct {
	format string
	args   []*expr
	k      kind
	agg    bool
}

func (e *expr) String() string {
	if len(e.args) == 0 {
		return e.format
	}
	as := make([]any, len(e.args))
	for i, a := range e.args {
		as[i] = a.String()
	}
	return fmt.Sprintf(e.format, as...)
}

type gen struct {
	rng    *rand.Rand
	tables []string // qualifiers in scope
}

func (g *gen) col(k kind) *expr {
	var cs []column
	for _, c := range genColumns {
		if c.k == k {
			cs = append(cs, c)
		}
	}
	c := cs[g.rng.IntN(len(cs))]
	return &expr{format: g.tables[g.rng.IntN(len(g.tables))] + "." + c.name, k: k}
}

func (g *gen) lit(k kind) *expr {
	switch k {
	case kNum:
		return &expr{format: fmt.Sprint(g.rng.IntN(10) - 3), k: k}
	case kDec:
		return &expr{format: fmt.Sprintf("CAST(%d.%d AS DECIMAL(5, 1))", g.rng.IntN(100), g.rng.IntN(10)), k: k}
	case kStr:
		return &expr{format: "'" + genStrings[g.rng.IntN(len(genStrings))] + "'", k: k}
	case kBool:
		return &expr{format: []string{"TRUE", "FALSE", "CAST(NULL AS BOOLEAN)"}[g.rng.IntN(3)], k: k}
	}
	return &expr{format: "TIMESTAMP '2024-05-15 12:00:00.000'", k: k}
}

func (g *gen) expr(k kind, depth int) *expr {
	if depth <= 0 || g.rng.IntN(3) == 0 {
		if g.rng.IntN(4) == 0 {
			return g.lit(k)
		}
		return g.col(k)
	}
	d := depth - 1
	e := func(format string, ks ...kind) *expr {
		x := &expr{format: format, k: k}
		for _, ak := range ks {
			x.args = append(x.args, g.expr(ak, d))
		}
		return x
	}
	switch k {
	case kNum:
		switch g.rng.IntN(9) {
		case 0:
			return e("(%s + %s)", kNum, kNum)
		case 1:
			return e("(%s - %s)", kNum, kNum)
		case 2:
			return e("(%s * %s)", kNum, kNum)
		case 3:
			return e("ABS(%s)", kNum)
		case 4:
			return e("CHAR_LENGTH(%s)", kStr)
		case 5:
			return e("CASE WHEN %s THEN %s ELSE %s END", kBool, kNum, kNum)
		case 6:
			return e("COALESCE(%s, %s)", kNum, kNum)
		case 7:
			return e("CAST(%s AS BIGINT)", kDec)
		default:
			return e("EXTRACT(HOUR FROM %s)", kTime)
		}
	case kDec:
		switch g.rng.IntN(4) {
		case 0:
			return e("(%s + %s)", kDec, kDec)
		case 1:
			return e("(%s * %s)", kDec, kNum)
		case 2:
			return e("ROUND(%s, 1)", kDec)
		default:
			return e("CASE WHEN %s THEN %s ELSE %s END", kBool, kDec, kDec)
		}
	case kStr:
		switch g.rng.IntN(7) {
		case 0:
			return e("UPPER(%s)", kStr)
		case 1:
			return e("LOWER(%s)", kStr)
		case 2:
			return e("CONCAT(%s, %s)", kStr, kStr)
		case 3:
			return e("SUBSTRING(%s FROM 1 FOR 2)", kStr)
		case 4:
			return e("TRIM(%s)", kStr)
		case 5:
			return e("CAST(%s AS STRING)", kNum)
		default:
			return e("COALESCE(%s, %s)", kStr, kStr)
		}
	case kBool:
		switch g.rng.IntN(9) {
		case 0:
			return e("(%s AND %s)", kBool, kBool)
		case 1:
			return e("(%s OR %s)", kBool, kBool)
		case 2:
			return e("(NOT %s)", kBool)
		case 3:
			return e("(%s IS NULL)", []kind{kNum, kStr, kDec, kTime}[g.rng.IntN(4)])
		case 4:
			return e("(%s < %s)", kNum, kNum)
		case 5:
			return e("(%s = %s)", kStr, kStr)
		case 6:
			return e("(%s >= %s)", kDec, kDec)
		case 7:
			return e("(%s LIKE 'a%%')", kStr)
		default:
			return e("(%s BETWEEN %s AND %s)", kNum, kNum, kNum)
		}
	}
	switch g.rng.IntN(2) {
	case 0:
		return e("TIMESTAMPADD(DAY, 1, %s)", kTime)
	}
	return e("CAST(%s AS TIMESTAMP(3))", kTime)
}

func (g *gen) agg() *expr {
	switch g.rng.IntN(7) {
	case 0:
		return &expr{format: "COUNT(*)", k: kNum, agg: true}
	case 1:
		return &expr{format: "COUNT(%s)", args: []*expr{g.expr(kStr, 1)}, k: kNum, agg: true}
	case 2:
		return &expr{format: "SUM(%s)", args: []*expr{g.expr(kNum, 1)}, k: kNum, agg: true}
	case 3:
		return &expr{format: "MIN(%s)", args: []*expr{g.expr(kStr, 1)}, k: kStr, agg: true}
	case 4:
		return &expr{format: "MAX(%s)", args: []*expr{g.expr(kDec, 1)}, k: kDec, agg: true}
	case 5:
		return &expr{format: "COUNT(DISTINCT %s)", args: []*expr{g.expr(kNum, 1)}, k: kNum, agg: true}
	}
	return &expr{format: "SUM(%s)", args: []*expr{g.expr(kDec, 1)}, k: kDec, agg: true}
}

// Query is a generated query in parts, so that Shrink can drop them.
type Query struct {
	Distinct bool
	Select   []*expr
	From     string
	Where    *expr
	GroupBy  []*expr
	Having   *expr
	OrderBy  bool // ORDER BY every output column
	Limit    int  // 0: none
	// SetOp combines this query with Other (same column count and kinds).
	SetOp string
	Other *Query
}

func (q *Query) String() string {
	var b strings.Builder
	q.write(&b)
	if q.SetOp != "" && q.Other != nil {
		b.WriteString(" " + q.SetOp + " ")
		q.Other.write(&b)
	}
	return b.String()
}

func (q *Query) write(b *strings.Builder) {
	b.WriteString("SELECT ")
	if q.Distinct {
		b.WriteString("DISTINCT ")
	}
	for i, e := range q.Select {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(b, "%s AS c%d", e, i)
	}
	b.WriteString(" FROM " + q.From)
	if q.Where != nil {
		b.WriteString(" WHERE " + q.Where.String())
	}
	if len(q.GroupBy) > 0 {
		b.WriteString(" GROUP BY ")
		for i, e := range q.GroupBy {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(e.String())
		}
	}
	if q.Having != nil {
		b.WriteString(" HAVING " + q.Having.String())
	}
	if q.SetOp == "" && q.OrderBy {
		b.WriteString(" ORDER BY ")
		for i := range q.Select {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(b, "c%d", i)
		}
		if q.Limit > 0 {
			fmt.Fprintf(b, " LIMIT %d", q.Limit)
		}
	}
}

// GenQuery returns the n-th query of a seed.
func GenQuery(seed uint64, n int) *Query {
	g := &gen{rng: rand.New(rand.NewPCG(seed, uint64(n)))}
	q := g.query(2)
	if g.rng.IntN(6) == 0 {
		kinds := make([]kind, len(q.Select))
		for i, e := range q.Select {
			kinds[i] = e.k
		}
		o := g.simple(kinds)
		q.SetOp = []string{"UNION", "UNION ALL", "INTERSECT", "EXCEPT"}[g.rng.IntN(4)]
		q.Other = o
		q.OrderBy = false
	}
	return q
}

func (g *gen) from() string {
	switch g.rng.IntN(4) {
	case 0, 1:
		g.tables = []string{"t1"}
		return "t1"
	case 2:
		g.tables = []string{"t1", "t2"}
		j := []string{"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"}[g.rng.IntN(4)]
		return "t1 " + j + " t2 ON t1.k = t2.k"
	}
	g.tables = []string{"t1", "t2"}
	return "t1 CROSS JOIN t2"
}

func (g *gen) query(depth int) *Query {
	q := &Query{From: g.from()}
	if g.rng.IntN(3) == 0 {
		// GROUP BY: grouping keys first, then aggregates
		nk := 1 + g.rng.IntN(2)
		for i := 0; i < nk; i++ {
			k := []kind{kNum, kStr, kBool, kDec}[g.rng.IntN(4)]
			key := g.expr(k, 1)
			q.GroupBy = append(q.GroupBy, key)
			q.Select = append(q.Select, key)
		}
		for i := 0; i < 1+g.rng.IntN(2); i++ {
			q.Select = append(q.Select, g.agg())
		}
		if g.rng.IntN(3) == 0 {
			q.Having = &expr{format: "(%s > 1)", args: []*expr{{format: "COUNT(*)", k: kNum, agg: true}}, k: kBool}
		}
	} else {
		for i := 0; i < 1+g.rng.IntN(3); i++ {
			q.Select = append(q.Select, g.expr([]kind{kNum, kStr, kBool, kDec, kTime}[g.rng.IntN(5)], depth))
		}
		q.Distinct = g.rng.IntN(5) == 0
	}
	if g.rng.IntN(2) == 0 {
		q.Where = g.expr(kBool, depth)
		if g.rng.IntN(4) == 0 {
			q.Where = &expr{format: "(%s AND " + g.subquery() + ")", args: []*expr{q.Where}, k: kBool}
		}
	}
	if g.rng.IntN(4) == 0 {
		q.OrderBy = true
		if g.rng.IntN(2) == 0 {
			q.Limit = 1 + g.rng.IntN(4)
		}
	}
	return q
}

func (g *gen) subquery() string {
	outer := g.tables[0]
	switch g.rng.IntN(3) {
	case 0:
		return outer + ".k IN (SELECT k FROM t2 WHERE k IS NOT NULL AND b)"
	case 1:
		return "EXISTS (SELECT 1 FROM t2 AS u WHERE u.k = " + outer + ".k)"
	}
	return outer + ".i > (SELECT MIN(i) FROM t2)"
}

// simple returns a plain SELECT over t2 whose columns have the kinds.
func (g *gen) simple(kinds []kind) *Query {
	g.tables = []string{"t2"}
	q := &Query{From: "t2"}
	for _, k := range kinds {
		q.Select = append(q.Select, g.expr(k, 1))
	}
	if g.rng.IntN(2) == 0 {
		q.Where = g.expr(kBool, 1)
	}
	return q
}

// Shrink returns smaller forms of q, most reducing first: without a
// clause, without a select item (outside GROUP BY and set operations), or
// with one expression replaced by one of its operands of the same kind.
func Shrink(q *Query) []*Query {
	var out []*Query
	cp := func() *Query { c := *q; c.Select = append([]*expr(nil), q.Select...); return &c }
	if q.Other != nil {
		c := cp()
		c.SetOp, c.Other = "", nil
		out = append(out, c)
	}
	if q.Where != nil {
		c := cp()
		c.Where = nil
		out = append(out, c)
	}
	if q.Having != nil {
		c := cp()
		c.Having = nil
		out = append(out, c)
	}
	if q.Distinct {
		c := cp()
		c.Distinct = false
		out = append(out, c)
	}
	if q.OrderBy {
		c := cp()
		c.OrderBy, c.Limit = false, 0
		out = append(out, c)
	}
	if len(q.Select) > 1 && len(q.GroupBy) == 0 && q.Other == nil {
		for i := range q.Select {
			c := cp()
			c.Select = append(append([]*expr(nil), q.Select[:i]...), q.Select[i+1:]...)
			out = append(out, c)
		}
	}
	if len(q.GroupBy) == 0 {
		for i, e := range q.Select {
			for _, a := range e.args {
				if a.k == e.k && !e.agg {
					c := cp()
					c.Select[i] = a
					out = append(out, c)
				}
			}
		}
	}
	if q.Where != nil {
		for _, a := range q.Where.args {
			if a.k == kBool {
				c := cp()
				c.Where = a
				out = append(out, c)
			}
		}
	}
	return out
}
