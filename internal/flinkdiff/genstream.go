package flinkdiff

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// The generator's streaming queries: a watermarked table w (a csv file
// both engines read, with the columns of t1/t2 and strictly increasing,
// never NULL event times, so that no row is late and every order is
// total) and queries over it in streaming mode: window TVFs (TUMBLE, HOP,
// CUMULATE) with GROUP BY window and keys, OVER aggregates (ROWS and
// RANGE frames), Top-N, deduplication (first and last row) and updating
// GROUP BY, each with generated filters and aggregates. They compare by
// the final table of the changelog.

// GenStreamData returns the csv rows of w for a seed.
func GenStreamData(seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 0x57ea))
	var b strings.Builder
	n := 20 + rng.IntN(30)
	ms := int64(0)
	for r := 0; r < n; r++ {
		ms += 1 + int64(rng.IntN(2500))
		var vals []string
		for _, c := range genColumns {
			if c.name == "ts" {
				vals = append(vals, fmt.Sprintf("2024-05-15 %02d:%02d:%02d.%03d", 12+ms/3_600_000, ms/60_000%60, ms/1000%60, ms%1000))
				continue
			}
			v := genValue(rng, c)
			switch {
			case v == "NULL":
				// 'csv.null-literal' = 'NULL'
			case c.name == "s":
				v = strings.Trim(v, "'")
				if v == "" || strings.ContainsAny(v, " ,") {
					// csv: an empty field is NULL, keep strings plain
					v = "x"
				}
			case c.name == "b":
				v = strings.ToLower(v)
			}
			vals = append(vals, v)
		}
		b.WriteString(strings.Join(vals, ",") + "\n")
	}
	return b.String()
}

// GenStreamSchema returns the CREATE TABLE of w over the csv file path.
func GenStreamSchema(path string) string {
	var cols []string
	for _, c := range genColumns {
		cols = append(cols, c.name+" "+c.sql)
	}
	return fmt.Sprintf("CREATE TABLE w (%s, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = '%s', 'format' = 'csv', 'csv.null-literal' = 'NULL')",
		strings.Join(cols, ", "), path)
}

// GenStreamQuery returns the n-th streaming query of a seed.
func GenStreamQuery(seed uint64, n int) string {
	g := &gen{rng: rand.New(rand.NewPCG(seed^0x57ea, uint64(n))), tables: []string{"x"}}
	where := ""
	if g.rng.IntN(2) == 0 {
		where = " WHERE " + g.expr(kBool, 1).String()
	}
	switch g.rng.IntN(6) {
	case 0, 1:
		size := []int{2, 5, 10}[g.rng.IntN(3)]
		var tvf string
		switch g.rng.IntN(3) {
		case 0:
			tvf = fmt.Sprintf("TUMBLE(TABLE w, DESCRIPTOR(ts), INTERVAL '%d' SECOND)", size)
		case 1:
			tvf = fmt.Sprintf("HOP(TABLE w, DESCRIPTOR(ts), INTERVAL '%d' SECOND, INTERVAL '%d' SECOND)", size, 2*size)
		default:
			tvf = fmt.Sprintf("CUMULATE(TABLE w, DESCRIPTOR(ts), INTERVAL '%d' SECOND, INTERVAL '%d' SECOND)", size, 3*size)
		}
		sel := []string{"x.window_start AS c0", "x.window_end AS c1"}
		group := "x.window_start, x.window_end"
		if g.rng.IntN(2) == 0 {
			key := []string{"x.k", "x.s", "x.b"}[g.rng.IntN(3)]
			sel = append(sel, key+" AS c2")
			group += ", " + key
		}
		for i := 0; i < 1+g.rng.IntN(2); i++ {
			sel = append(sel, fmt.Sprintf("%s AS c%d", g.agg(), len(sel)))
		}
		return fmt.Sprintf("SELECT %s FROM TABLE(%s) AS x%s GROUP BY %s", strings.Join(sel, ", "), tvf, where, group)
	case 2:
		aggs := []string{"COUNT(*)", "SUM(x.d)", "MIN(x.s)", "MAX(x.i)", "SUM(x.k)", "COUNT(x.s)"}
		frame := fmt.Sprintf("ROWS BETWEEN %d PRECEDING AND CURRENT ROW", g.rng.IntN(4))
		if g.rng.IntN(2) == 0 {
			frame = fmt.Sprintf("RANGE BETWEEN INTERVAL '%d' SECOND PRECEDING AND CURRENT ROW", 1+g.rng.IntN(5))
		}
		part := []string{"x.k", "x.s", "x.b"}[g.rng.IntN(3)]
		return fmt.Sprintf("SELECT %s AS c0, x.ts AS c1, %s OVER (PARTITION BY %s ORDER BY x.ts %s) AS c2 FROM w AS x%s",
			part, aggs[g.rng.IntN(len(aggs))], part, frame, where)
	case 3:
		part := []string{"x.k", "x.s", "x.b"}[g.rng.IntN(3)]
		order := []string{"x.d DESC, x.ts", "x.i, x.ts", "x.s, x.ts DESC"}[g.rng.IntN(3)]
		return fmt.Sprintf("SELECT c0, c1, c2, rn FROM (SELECT %s AS c0, x.s AS c1, x.d AS c2, ROW_NUMBER() OVER (PARTITION BY %s ORDER BY %s) AS rn FROM w AS x%s) WHERE rn <= %d",
			part, part, order, where, 1+g.rng.IntN(3))
	case 4:
		part := []string{"x.k", "x.s", "x.b"}[g.rng.IntN(3)]
		dir := []string{"ASC", "DESC"}[g.rng.IntN(2)]
		return fmt.Sprintf("SELECT c0, c1, c2 FROM (SELECT %s AS c0, x.i AS c1, x.ts AS c2, ROW_NUMBER() OVER (PARTITION BY %s ORDER BY x.ts %s) AS rn FROM w AS x%s) WHERE rn = 1",
			part, part, dir, where)
	}
	key := g.expr([]kind{kNum, kStr, kBool}[g.rng.IntN(3)], 1)
	return fmt.Sprintf("SELECT %s AS c0, %s AS c1, %s AS c2 FROM w AS x%s GROUP BY %s", key, g.agg(), g.agg(), where, key)
}
