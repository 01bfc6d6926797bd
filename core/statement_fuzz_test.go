package core

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// fuzzTables are the tables the statement fuzzers query: bounded, small.
var fuzzTables = []string{
	"CREATE TABLE t (a INT, b STRING, c DOUBLE, d DECIMAL(10, 2), ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen', 'number-of-rows' = '50', 'fields.a.min' = '-5', 'fields.a.max' = '5', 'fields.b.length' = '3')",
	"CREATE TABLE s (k INT, v BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '20', 'fields.k.min' = '0', 'fields.k.max' = '4')",
	"CREATE TABLE snk (a INT, b STRING) WITH ('connector' = 'blackhole')",
}

var fuzzSeeds = []string{
	"SELECT a, b, c + 1 FROM t WHERE a > 1 ORDER BY a LIMIT 3",
	"SELECT a, COUNT(*), SUM(c), MAX(b) FROM t GROUP BY a HAVING COUNT(*) > 1",
	"SELECT t.a, s.v FROM t JOIN s ON t.a = s.k",
	"SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY window_start, window_end",
	"INSERT INTO snk SELECT a, b FROM t",
	"SELECT CAST(b AS INT), TRY_CAST(b AS DATE), 'AQID' BETWEEN TIME '00:00:00' AND '' FROM t",
	"SELECT a, ROW_NUMBER() OVER (PARTITION BY a ORDER BY ts) FROM t",
	"EXPLAIN SELECT * FROM t WHERE a IN (SELECT k FROM s)",
	"SHOW TABLES", "DESCRIBE t", "SET 'table.optimizer.disabled-rules' = '*'",
}

// fuzzStatement runs one statement in a fresh session of the mode: it may
// fail with an error, but never panic (ExecuteSQL turns a panic into an
// internal error, which the fuzzer reports) nor hang.
func fuzzStatement(t *testing.T, settings EnvironmentSettings, sql string) {
	e := NewTableEnvironment(settings.WithOption("tablerun.udf.timeout", "1 s"))
	e.SetOutput(io.Discard, io.Discard)
	defer e.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, d := range fuzzTables {
		if _, err := e.ExecuteSQL(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	res, err := e.ExecuteSQL(ctx, sql)
	if err == nil && res != nil {
		n := 0
		for range res.Collect() {
			if n++; n > 1000 {
				break
			}
		}
		err = res.Err()
	}
	if errors.Is(err, ErrInternal) || (err != nil && strings.Contains(err.Error(), "internal error")) {
		t.Fatalf("%s: %v", sql, err)
	}
}

// FuzzStatementBatch runs arbitrary statements in batch mode.
func FuzzStatementBatch(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) { fuzzStatement(t, InBatchMode(), sql) })
}

// FuzzStatementStreaming runs arbitrary statements in streaming mode.
func FuzzStatementStreaming(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) { fuzzStatement(t, InStreamingMode(), sql) })
}
