package duckdb

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core"
)

// The queries of issue 20's table: shapes nobody tuned for, over a fact
// table f (10 M rows) and a dimension d (100 K rows).
//
//	f(k BIGINT: dense dimension id 0..DimRows-1, r BIGINT: a random 63-bit
//	  dimension id, s STRING: one of StrKeys values, v BIGINT: 0..1e9-1)
//	d(id BIGINT: 0..DimRows-1, rid BIGINT: random 63-bit, g BIGINT: 0..99)
const (
	DimRows = 100_000
	StrKeys = 10_000
)

// mixedQuery is one query of the table, with the DuckDB spelling where
// the two dialects differ (AVG of a BIGINT is a BIGINT in Flink).
type mixedQuery struct {
	name, flink, duck string
}

var mixedQueries = []mixedQuery{
	{name: "topn", flink: "SELECT v FROM f ORDER BY v DESC LIMIT 10"},
	{name: "join-dense", flink: "SELECT d.g, COUNT(*), SUM(f.v) FROM f JOIN d ON f.k = d.id GROUP BY d.g"},
	{name: "join-random", flink: "SELECT d.g, COUNT(*), SUM(f.v) FROM f JOIN d ON f.r = d.rid GROUP BY d.g"},
	{name: "groupby-string", flink: "SELECT s, SUM(v) FROM f GROUP BY s"},
	{name: "distinct-filter",
		flink: "SELECT COUNT(DISTINCT k), AVG(v), MIN(v), MAX(v) FROM f WHERE v % 7 = 3",
		duck:  "SELECT COUNT(DISTINCT k), CAST(TRUNC(AVG(v)) AS BIGINT), MIN(v), MAX(v) FROM f WHERE v % 7 = 3"},
}

// mixedData is the generated fact and dimension tables, as Arrow batches
// for tablerun and as CSV files for DuckDB.
type mixedData struct {
	fact, dim         []arrow.RecordBatch
	factCSV, dimCSV   string
	factRows, dimRows int
}

var (
	mixedOnce sync.Once
	mixed     *mixedData
	mixedErr  error
)

// mixedTables generates the tables once per process (seeded, so every run
// sees the same rows).
func mixedTables(tb testing.TB, factRows int) *mixedData {
	tb.Helper()
	mixedOnce.Do(func() { mixed, mixedErr = genMixed(factRows) })
	if mixedErr != nil {
		tb.Fatal(mixedErr)
	}
	return mixed
}

// genMixedSmall is genMixed with a 200 K-row fact table in its own files.
func genMixedSmall() (*mixedData, error) {
	dir, err := osTempDir()
	if err != nil {
		return nil, err
	}
	dir = filepath.Join(dir, "small")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return genMixedIn(dir, 200_000)
}

func genMixed(factRows int) (*mixedData, error) {
	dir, err := osTempDir()
	if err != nil {
		return nil, err
	}
	return genMixedIn(dir, factRows)
}

func genMixedIn(dir string, factRows int) (*mixedData, error) {
	r := rand.New(rand.NewPCG(Seed, 20))
	rids := make([]int64, DimRows)
	seen := map[int64]bool{}
	for i := range rids {
		for {
			x := int64(r.Uint64() >> 1)
			if !seen[x] {
				seen[x] = true
				rids[i] = x
				break
			}
		}
	}
	mem := memory.DefaultAllocator
	md := &mixedData{factRows: factRows, dimRows: DimRows,
		factCSV: filepath.Join(dir, "f.csv"), dimCSV: filepath.Join(dir, "d.csv")}

	dimSchema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "rid", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "g", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	df, err := os.Create(md.dimCSV)
	if err != nil {
		return nil, err
	}
	dw := bufio.NewWriterSize(df, 1<<20)
	ib := array.NewInt64Builder(mem)
	rb := array.NewInt64Builder(mem)
	gb := array.NewInt64Builder(mem)
	for i := 0; i < DimRows; i++ {
		g := int64(r.IntN(100))
		ib.Append(int64(i))
		rb.Append(rids[i])
		gb.Append(g)
		fmt.Fprintf(dw, "%d,%d,%d\n", i, rids[i], g)
	}
	md.dim = []arrow.RecordBatch{array.NewRecordBatch(dimSchema, []arrow.Array{ib.NewArray(), rb.NewArray(), gb.NewArray()}, DimRows)}
	if err := dw.Flush(); err != nil {
		return nil, err
	}
	if err := df.Close(); err != nil {
		return nil, err
	}

	factSchema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "r", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	}, nil)
	strs := make([]string, StrKeys)
	for i := range strs {
		strs[i] = "key-" + strconv.Itoa(i*7919%1_000_003)
	}
	ff, err := os.Create(md.factCSV)
	if err != nil {
		return nil, err
	}
	fw := bufio.NewWriterSize(ff, 1<<20)
	kb := array.NewInt64Builder(mem)
	rb = array.NewInt64Builder(mem)
	sb := array.NewStringBuilder(mem)
	vb := array.NewInt64Builder(mem)
	var line []byte
	for i := 0; i < factRows; i++ {
		k := r.IntN(DimRows)
		s := strs[r.IntN(StrKeys)]
		v := r.Int64N(1_000_000_000)
		kb.Append(int64(k))
		rb.Append(rids[k])
		sb.Append(s)
		vb.Append(v)
		line = strconv.AppendInt(line[:0], int64(k), 10)
		line = append(line, ',')
		line = strconv.AppendInt(line, rids[k], 10)
		line = append(line, ',')
		line = append(line, s...)
		line = append(line, ',')
		line = strconv.AppendInt(line, v, 10)
		line = append(line, '\n')
		if _, err := fw.Write(line); err != nil {
			return nil, err
		}
		if kb.Len() == BatchSize || i == factRows-1 {
			n := int64(kb.Len())
			md.fact = append(md.fact, array.NewRecordBatch(factSchema,
				[]arrow.Array{kb.NewArray(), rb.NewArray(), sb.NewArray(), vb.NewArray()}, n))
		}
	}
	if err := fw.Flush(); err != nil {
		return nil, err
	}
	return md, ff.Close()
}

// mixedDuck loads the tables into a fresh one-thread DuckDB.
func mixedDuck(tb testing.TB, md *mixedData) *sql.DB {
	tb.Helper()
	db := openDuckDB(tb)
	for _, s := range []string{
		fmt.Sprintf("CREATE TABLE f AS SELECT * FROM read_csv('%s', header = false, columns = {'k': 'BIGINT', 'r': 'BIGINT', 's': 'VARCHAR', 'v': 'BIGINT'})", md.factCSV),
		fmt.Sprintf("CREATE TABLE d AS SELECT * FROM read_csv('%s', header = false, columns = {'id': 'BIGINT', 'rid': 'BIGINT', 'g': 'BIGINT'})", md.dimCSV),
	} {
		if _, err := db.Exec(s); err != nil {
			tb.Fatal(err)
		}
	}
	return db
}

// mixedEngine registers the tables in a fresh batch-mode session.
func mixedEngine(tb testing.TB, md *mixedData) *core.TableEnvironment {
	tb.Helper()
	env := core.NewTableEnvironment(core.InBatchMode())
	if err := env.FromRecords("f", md.fact[0].Schema(), md.fact); err != nil {
		tb.Fatal(err)
	}
	if err := env.FromRecords("d", md.dim[0].Schema(), md.dim); err != nil {
		tb.Fatal(err)
	}
	return env
}

// checksum is what both engines' answers must agree on: the row count and
// the sum of every numeric value and of every string's length.
type checksum struct {
	rows int
	sum  float64
}

func (c checksum) agrees(o checksum) bool {
	return c.rows == o.rows && closeEnough(c.sum, o.sum)
}

func duckChecksum(tb testing.TB, db *sql.DB, query string) checksum {
	tb.Helper()
	rows, err := db.Query(query)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		tb.Fatal(err)
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var c checksum
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			tb.Fatal(err)
		}
		c.rows++
		for _, v := range vals {
			c.sum += anyNumber(tb, v)
		}
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return c
}

func anyNumber(tb testing.TB, v any) float64 {
	switch x := v.(type) {
	case nil:
		return 0
	case int64:
		return float64(x)
	case int32:
		return float64(x)
	case float64:
		return x
	case string:
		return float64(len(x))
	case *big.Int:
		f, _ := x.Float64()
		return f
	}
	tb.Fatalf("unexpected DuckDB value %T", v)
	return 0
}

func engineChecksum(tb testing.TB, env *core.TableEnvironment, query string) checksum {
	tb.Helper()
	q, err := env.SQLQuery(query)
	if err != nil {
		tb.Fatal(err)
	}
	var c checksum
	err = q.ExecuteArrow(context.Background(), func(rec arrow.RecordBatch) error {
		n := int(rec.NumRows())
		c.rows += n
		for _, col := range rec.Columns() {
			for i := 0; i < n; i++ {
				if col.IsNull(i) {
					continue
				}
				switch a := col.(type) {
				case *array.Int64:
					c.sum += float64(a.Value(i))
				case *array.Int32:
					c.sum += float64(a.Value(i))
				case *array.Float64:
					c.sum += a.Value(i)
				case *array.String:
					c.sum += float64(len(a.Value(i)))
				default:
					return fmt.Errorf("unexpected column %T", col)
				}
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// BenchmarkSideBySideMixed runs each query of issue 20's table on both
// engines alternately inside every iteration (DuckDB threads=1, tablerun
// one thread), checks that the answers agree, and reports the ratio
// engine-vs-duckdb (DuckDB time ÷ tablerun time: > 1 means tablerun is
// faster). MIXED_ROWS overrides the fact table's 10 M rows; MIXED_QUERY
// picks one query by name.
func BenchmarkSideBySideMixed(b *testing.B) {
	rows := Rows
	if s := os.Getenv("MIXED_ROWS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatal(err)
		}
		rows = n
	}
	md := mixedTables(b, rows)
	db := mixedDuck(b, md)
	env := mixedEngine(b, md)
	for _, mq := range mixedQueries {
		if q := os.Getenv("MIXED_QUERY"); q != "" && q != mq.name {
			continue
		}
		b.Run(mq.name, func(b *testing.B) {
			duck := mq.duck
			if duck == "" {
				duck = mq.flink
			}
			var dd, de time.Duration
			b.ResetTimer()
			for range b.N {
				t0 := time.Now()
				dc := duckChecksum(b, db, duck)
				t1 := time.Now()
				ec := engineChecksum(b, env, mq.flink)
				de += time.Since(t1)
				dd += t1.Sub(t0)
				if !dc.agrees(ec) {
					b.Fatalf("answers differ: duckdb %+v, tablerun %+v", dc, ec)
				}
			}
			b.ReportMetric(float64(dd.Milliseconds())/float64(b.N), "duckdb-ms")
			b.ReportMetric(float64(de.Milliseconds())/float64(b.N), "engine-ms")
			b.ReportMetric(dd.Seconds()/de.Seconds(), "engine-vs-duckdb")
		})
	}
}

// TestMixedMatchesDuckDB checks on a small fact table that both engines
// answer every query of BenchmarkSideBySideMixed alike.
func TestMixedMatchesDuckDB(t *testing.T) {
	md, err := genMixedSmall()
	if err != nil {
		t.Fatal(err)
	}
	db := mixedDuck(t, md)
	env := mixedEngine(t, md)
	for _, mq := range mixedQueries {
		duck := mq.duck
		if duck == "" {
			duck = mq.flink
		}
		dc, ec := duckChecksum(t, db, duck), engineChecksum(t, env, mq.flink)
		if !dc.agrees(ec) || dc.rows == 0 {
			t.Errorf("%s: duckdb %+v, tablerun %+v", mq.name, dc, ec)
		}
	}
}
