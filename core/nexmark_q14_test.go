package core

import (
	"context"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/connectors/nexmark"
	"github.com/tablerun/tablerun/core/types"
)

// q14CreateFunction replaces q14's Java class with the shipped Python
// module function (modules/text.py, declared there by its "# sql:" line).
const q14CreateFunction = "CREATE FUNCTION count_char AS 'text.count_char' LANGUAGE PYTHON"

// q14Script returns the statements of Nexmark q14 with count_char as a
// script UDF found on the script path ../modules.
func q14Script(t *testing.T, events int) []string {
	t.Helper()
	stmts := nexmarkScript(t, "q14", events)
	found := false
	for i, s := range stmts {
		if strings.Contains(s, "com.github.nexmark.flink.udf.CountChar") {
			stmts[i] = q14CreateFunction
			found = true
		}
	}
	require.True(t, found, "q14.sql no longer creates count_char")
	return stmts
}

// q14Expected computes q14 in Go over the generator's rows: bids with
// 1,000,000 < 0.908 * price < 50,000,000, the price scaled by 0.908 (as
// thousandths), the hour class of the bid time and the count of 'c' in
// extra. Rows are formatted like q14Row.
func q14Expected(t *testing.T, events int) []string {
	t.Helper()
	cfg, err := nexmark.ParseConfig(map[string]string{
		"first-event.rate": "10000000", "next-event.rate": "10000000", "events.num": fmt.Sprint(events),
		"person.proportion": "1", "auction.proportion": "3", "bid.proportion": "46",
	})
	require.NoError(t, err)
	schema := nexmark.Schema()
	src, err := nexmark.NewSource(cfg, schema, nil, 1000)
	require.NoError(t, err)
	var out []string
	for first := int64(0); first < int64(events); first += 1000 {
		rec := src.Generate(first, int(min(1000, int64(events)-first)))
		for _, row := range types.RecordRows(rec, schema) {
			if row[0].(int32) != nexmark.KindBid {
				continue
			}
			bid := row[3].([]any) // auction, bidder, price, channel, url, dateTime, extra
			price := bid[2].(int64)
			scaled := 908 * price // DECIMAL(23, 3) in thousandths
			if scaled <= 1_000_000_000 || scaled >= 50_000_000_000 {
				continue
			}
			micros := bid[5].(int64)
			hour := time.UnixMicro(micros).UTC().Hour()
			class := "otherTime"
			switch {
			case hour >= 8 && hour <= 18:
				class = "dayTime"
			case hour <= 6 || hour >= 20:
				class = "nightTime"
			}
			extra := bid[6].(string)
			out = append(out, fmt.Sprintf("%d|%d|%d|%s|%d|%s|%d", bid[0], bid[1], scaled, class, micros, extra, strings.Count(extra, "c")))
		}
		rec.Release()
	}
	sort.Strings(out)
	return out
}

// q14Row formats a result row of q14 like q14Expected.
func q14Row(t *testing.T, row []any) string {
	t.Helper()
	require.Len(t, row, 7)
	price, ok := row[2].(decimal128.Num)
	require.True(t, ok, "price is %T", row[2])
	var micros int64
	switch v := row[4].(type) {
	case int64:
		micros = v
	case time.Time:
		micros = v.UnixMicro()
	default:
		t.Fatalf("dateTime is %T", row[4])
	}
	cnt := fmt.Sprint(row[6])
	return fmt.Sprintf("%d|%d|%s|%s|%d|%s|%s", row[0], row[1], price.BigInt().String(), row[3], micros, row[5], cnt)
}

// TestNexmarkQ14 runs Nexmark q14 with count_char from modules/text.py in
// batch and streaming mode and checks every row against a Go computation
// of the query over the generator's events; the verbatim INSERT into the
// blackhole sink runs too.
func TestNexmarkQ14(t *testing.T) {
	const events = 5000
	want := q14Expected(t, events)
	require.Greater(t, len(want), 100)
	counts := big.NewInt(0)
	for _, w := range want {
		var n int64
		_, err := fmt.Sscan(w[strings.LastIndex(w, "|")+1:], &n)
		require.NoError(t, err)
		counts.Add(counts, big.NewInt(n))
	}
	require.Positive(t, counts.Sign(), "no 'c' in any extra: the check of count_char would be vacuous")
	t.Logf("q14 over %d events: %d rows, %s 'c' characters counted", events, len(want), counts)
	for _, mode := range []string{"batch", "streaming"} {
		t.Run(mode, func(t *testing.T) {
			settings := InBatchMode()
			if mode == "streaming" {
				settings = InStreamingMode()
			}
			e := NewTableEnvironment(settings)
			e.SetScriptPath("../modules")
			stmts := q14Script(t, events)
			query := runNexmark(t, e, stmts)
			res, err := e.ExecuteSQL(context.Background(), query)
			require.NoError(t, err)
			var got []string
			for k, row := range res.Changes() {
				require.Equal(t, "+I", k.String())
				got = append(got, q14Row(t, row))
			}
			require.NoError(t, res.Err())
			sort.Strings(got)
			require.Equal(t, want, got)

			// the INSERT of q14.sql itself
			for _, s := range stmts {
				if insertSelect.MatchString(s) {
					_, err := e.ExecuteSQL(context.Background(), s)
					require.NoError(t, err)
				}
			}
		})
	}
}
