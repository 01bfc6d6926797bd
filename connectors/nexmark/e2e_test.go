package nexmark_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/connectors/nexmark"
	"github.com/tablerun/tablerun/core"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// queriesDir holds the verbatim Nexmark files (outside the repository).
var queriesDir = filepath.Join("..", "..", "..", "shared", "nexmark", "queries")

func readQuery(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(queriesDir, name))
	if err != nil {
		t.Skipf("nexmark query files not available: %v", err)
	}
	r := strings.NewReplacer("${TPS}", "10000", "${EVENTS_NUM}", "20000", "${PERSON_PROPORTION}", "1",
		"${AUCTION_PROPORTION}", "3", "${BID_PROPORTION}", "46", "${NEXMARK_TABLE}", "datagen")
	return r.Replace(string(b))
}

// statements splits a file at the semicolons that end a line.
func statements(script string) []string {
	var out []string
	for _, s := range strings.Split(script, ";") {
		lines := strings.Split(s, "\n")
		var keep []string
		for _, l := range lines {
			if !strings.HasPrefix(strings.TrimSpace(l), "--") {
				keep = append(keep, l)
			}
		}
		if st := strings.TrimSpace(strings.Join(keep, "\n")); st != "" {
			out = append(out, st)
		}
	}
	return out
}

type collector struct{ rows [][]any }

func (c *collector) Emit(ctx context.Context, b vectorized.Batch) error {
	c.rows = append(c.rows, types.RecordRows(b.Rec, nexmark.Schema())...)
	return nil
}
func (c *collector) EmitMarker(context.Context, vectorized.Marker) error { return nil }

// bids returns the bid rows of the first 20,000 events straight from the
// generator.
func bids(t *testing.T) [][]any {
	cfg, err := nexmark.ParseConfig(map[string]string{"events.num": "20000"})
	require.NoError(t, err)
	src, err := nexmark.NewSource(cfg, nexmark.Schema(), nil, 0)
	require.NoError(t, err)
	c := &collector{}
	require.NoError(t, src.Run(context.Background(), c))
	var out [][]any
	for _, r := range c.rows {
		if r[0].(int32) == nexmark.KindBid {
			out = append(out, r[3].([]any))
		}
	}
	return out
}

// TestNexmarkBatchQueries runs ddl_gen.sql, ddl_views.sql and q0–q2 (both
// the verbatim INSERT into blackhole and its SELECT) in batch mode, and
// checks the SELECT results against the generator.
func TestNexmarkBatchQueries(t *testing.T) {
	ctx := context.Background()
	env := core.NewTableEnvironment(core.InBatchMode())
	for _, f := range []string{"ddl_gen.sql", "ddl_views.sql"} {
		for _, st := range statements(readQuery(t, f)) {
			_, err := env.ExecuteSQL(ctx, st)
			require.NoError(t, err, st)
		}
	}
	want := bids(t)
	require.Len(t, want, 18400)
	for _, q := range []string{"q0", "q1", "q2"} {
		t.Run(q, func(t *testing.T) {
			sts := statements(readQuery(t, q+".sql"))
			require.Len(t, sts, 2)
			for _, st := range sts {
				_, err := env.ExecuteSQL(ctx, st)
				require.NoError(t, err, st)
			}
			sel := sts[1][strings.Index(sts[1], "SELECT"):]
			res, err := env.ExecuteSQL(ctx, sel)
			require.NoError(t, err)
			got := res.Rows()
			var exp [][]any
			for _, b := range want {
				switch q {
				case "q0":
					exp = append(exp, []any{b[0], b[1], b[2], b[5], b[6]})
				case "q1":
					// 0.908 * price: DECIMAL(23, 3) = price × 908 unscaled.
					exp = append(exp, []any{b[0], b[1], decimal128.FromI64(b[2].(int64) * 908), b[5], b[6]})
				case "q2":
					if b[0].(int64)%123 == 0 {
						exp = append(exp, []any{b[0], b[2]})
					}
				}
			}
			require.Equal(t, len(exp), len(got))
			for i := range exp {
				require.Equal(t, fmt.Sprint(exp[i]), fmt.Sprint(got[i]), "row %d", i)
			}
			if q == "q2" {
				require.NotEmpty(t, exp)
			}
		})
	}
	// An unbounded nexmark table cannot be read in batch mode.
	_, err := env.ExecuteSQL(ctx, "CREATE TABLE nx_unbounded (event_type INT) WITH ('connector' = 'nexmark')")
	require.NoError(t, err)
	_, err = env.ExecuteSQL(ctx, "SELECT * FROM nx_unbounded")
	require.ErrorContains(t, err, "Querying an unbounded table 'default_catalog.default_database.nx_unbounded' in batch mode is not allowed")
	// Unknown options are rejected with Flink's message.
	_, err = env.ExecuteSQL(ctx, "CREATE TABLE nx_bad (event_type INT) WITH ('connector' = 'nexmark', 'events.num' = '10', 'foo' = '1')")
	require.NoError(t, err)
	_, err = env.ExecuteSQL(ctx, "SELECT * FROM nx_bad")
	require.ErrorContains(t, err, "Unsupported options found for 'nexmark'")
}

// benchQuery runs a verbatim query file's INSERT in batch mode over
// 1,000,000 events per iteration and reports events per CPU second of the
// process (generator and engine together).
func benchQuery(b *testing.B, q string) {
	ctx := context.Background()
	read := func(name string) string {
		bs, err := os.ReadFile(filepath.Join(queriesDir, name))
		if err != nil {
			b.Skipf("nexmark query files not available: %v", err)
		}
		return strings.NewReplacer("${TPS}", "10000000", "${EVENTS_NUM}", "1000000", "${PERSON_PROPORTION}", "1",
			"${AUCTION_PROPORTION}", "3", "${BID_PROPORTION}", "46", "${NEXMARK_TABLE}", "datagen").Replace(string(bs))
	}
	env := core.NewTableEnvironment(core.InBatchMode())
	var insert string
	for _, f := range []string{"ddl_gen.sql", "ddl_views.sql", q + ".sql"} {
		for _, st := range statements(read(f)) {
			if strings.HasPrefix(st, "INSERT") {
				insert = st
				continue
			}
			if _, err := env.ExecuteSQL(ctx, st); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		if _, err := env.ExecuteSQL(ctx, insert); err != nil {
			b.Fatal(err)
		}
	}
	cpu := cpuTime() - cpu0
	b.ReportMetric(float64(b.N)*1e6/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(b.N)*1e6/cpu.Seconds(), "events/cpu-s")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkQ0Batch(b *testing.B) { benchQuery(b, "q0") }
func BenchmarkQ1Batch(b *testing.B) { benchQuery(b, "q1") }
func BenchmarkQ2Batch(b *testing.B) { benchQuery(b, "q2") }
