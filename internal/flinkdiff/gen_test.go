package flinkdiff

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tablerun/tablerun/core"
)

var genQueries = flag.Int("flinkdiff.queries", 300, "generated queries to compare (the full run: 20000)")

// TestGenDeterministic checks the generator without Flink: a seed gives
// the same schema and queries, tablerun runs them (none is malformed:
// each either runs or fails with a clean error), and every shrunk form is
// shorter.
func TestGenDeterministic(t *testing.T) {
	if a, b := GenSchema(7), GenSchema(7); strings.Join(a, ";") != strings.Join(b, ";") {
		t.Fatal("GenSchema is not deterministic")
	}
	env := core.NewTableEnvironment(core.InBatchMode())
	ctx := context.Background()
	for _, s := range GenSchema(7) {
		if _, err := env.ExecuteSQL(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	ok := 0
	for n := 0; n < 200; n++ {
		q := GenQuery(7, n)
		if q.String() != GenQuery(7, n).String() {
			t.Fatalf("query %d is not deterministic", n)
		}
		res, err := env.ExecuteSQL(ctx, q.String())
		if err == nil {
			ok++
			for range res.Changes() {
			}
		} else {
			var ce *core.Error
			if !errors.As(err, &ce) || ce.Kind == core.KindInternal {
				t.Errorf("query %d: %s: %v", n, q, err)
			}
		}
		for _, s := range Shrink(q) {
			if len(s.String()) >= len(q.String()) {
				t.Errorf("shrunk form not shorter:\n%s\n%s", q, s)
			}
		}
	}
	if ok < 150 {
		t.Errorf("only %d of 200 generated queries run on tablerun", ok)
	}
}

// TestRandomQueries compares -flinkdiff.queries generated queries (seeded
// by the day, or FLINKDIFF_SEED) in batch mode; a query that differs is
// shrunk to a minimal form that still differs; a difference not explained
// in docs/flink-differences.md fails the test.
func TestRandomQueries(t *testing.T) {
	r := newRunner(t)
	seed := uint64(time.Now().UTC().YearDay())
	if s := os.Getenv("FLINKDIFF_SEED"); s != "" {
		n, _ := strconv.Atoi(s)
		seed = uint64(n)
	}
	t.Logf("generator seed %d (FLINKDIFF_SEED=%d reproduces it), %d queries", seed, seed, *genQueries)
	schema := GenSchema(seed)
	props := Options{Properties: map[string]string{"execution.runtime-mode": "batch"}}
	ctx := context.Background()
	ty := &tally{corpus: "generated", long: *genQueries > 1000}
	const chunk = 100
	for start := 0; start < *genQueries; start += chunk {
		stmts := append([]string(nil), schema...)
		var qs []*Query
		for n := start; n < start+chunk && n < *genQueries; n++ {
			q := GenQuery(seed, n)
			qs = append(qs, q)
			stmts = append(stmts, q.String())
		}
		rep, err := r.RunStatements(ctx, "generated", stmts, nil, props)
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range rep.Statements[len(schema):] {
			if s.Outcome == Differ {
				small := shrink(ctx, r, schema, qs[i], s.Detail, props)
				rep.Statements[len(schema)+i].Detail += "\n  shrunk to: " + small.String()
			}
		}
		rep.Statements = rep.Statements[len(schema):]
		ty.add(t, rep)
		if *genQueries > chunk {
			// progress of a long run, readable while it goes on
			t.Logf("after %d queries: %d equal, %d known, %d unsupported, %d differ, %d skipped", min(start+chunk, *genQueries),
				ty.counts[Equal], ty.counts[Known], ty.counts[Unsupported], ty.counts[Differ], ty.counts[Skipped])
		}
	}
	ty.report(t)
}

var sigRE = regexp.MustCompile(`c[0-9]+|[0-9]+`)

// signature is a difference's kind: its detail without numbers and column
// names ("column c is DECIMAL(#, #), Flink's DECIMAL(#, #)").
func signature(detail string) string {
	detail, _, _ = strings.Cut(detail, ":")
	return sigRE.ReplaceAllString(detail, "#")
}

// shrink reduces a differing query while it still differs the same way
// (at most 40 comparisons).
func shrink(ctx context.Context, r *Runner, schema []string, q *Query, detail string, opts Options) *Query {
	want := signature(detail)
	budget := 40
	for budget > 0 {
		progress := false
		for _, c := range Shrink(q) {
			if budget--; budget < 0 {
				break
			}
			rep, err := r.RunStatements(ctx, "shrink", append(append([]string(nil), schema...), c.String()), nil, opts)
			if err != nil {
				return q
			}
			if last := rep.Statements[len(rep.Statements)-1]; last.Outcome == Differ && signature(last.Detail) == want {
				q, progress = c, true
				break
			}
		}
		if !progress {
			break
		}
	}
	return q
}

var streamQueries = flag.Int("flinkdiff.stream-queries", 100, "generated streaming queries to compare")

// TestRandomStreamQueries compares -flinkdiff.stream-queries generated
// streaming queries (window TVFs, OVER, Top-N, deduplication, updating
// GROUP BY) over the watermarked table w (GenStreamData in a csv file
// both engines read) by their final tables.
func TestRandomStreamQueries(t *testing.T) {
	r := newRunner(t)
	seed := uint64(time.Now().UTC().YearDay())
	if s := os.Getenv("FLINKDIFF_SEED"); s != "" {
		n, _ := strconv.Atoi(s)
		seed = uint64(n)
	}
	t.Logf("generator seed %d (FLINKDIFF_SEED=%d reproduces it), %d streaming queries", seed, seed, *streamQueries)
	dir := t.TempDir()
	path := filepath.Join(dir, "w.csv")
	if err := os.WriteFile(path, []byte(GenStreamData(seed)), 0o644); err != nil {
		t.Fatal(err)
	}
	schema := GenStreamSchema(path)
	ty := &tally{corpus: "generated streaming"}
	const chunk = 50
	for start := 0; start < *streamQueries; start += chunk {
		stmts := []string{schema}
		for n := start; n < start+chunk && n < *streamQueries; n++ {
			stmts = append(stmts, GenStreamQuery(seed, n))
		}
		rep, err := r.RunStatements(context.Background(), "generated streaming", stmts, nil, Options{Shared: []string{dir}})
		if err != nil {
			t.Fatal(err)
		}
		rep.Statements = rep.Statements[1:]
		ty.add(t, rep)
	}
	ty.report(t)
}

// TestGenStreamRuns checks the streaming generator without Flink: a seed
// gives the same data and queries, and tablerun runs nearly all of them
// (the others fail with a clean error).
func TestGenStreamRuns(t *testing.T) {
	if GenStreamData(7) != GenStreamData(7) || GenStreamQuery(7, 3) != GenStreamQuery(7, 3) {
		t.Fatal("the streaming generator is not deterministic")
	}
	path := filepath.Join(t.TempDir(), "w.csv")
	if err := os.WriteFile(path, []byte(GenStreamData(7)), 0o644); err != nil {
		t.Fatal(err)
	}
	env := core.NewTableEnvironment(core.InStreamingMode())
	ctx := context.Background()
	if _, err := env.ExecuteSQL(ctx, GenStreamSchema(path)); err != nil {
		t.Fatal(err)
	}
	ok, kinds := 0, map[string]bool{}
	for n := 0; n < 60; n++ {
		q := GenStreamQuery(7, n)
		for _, k := range []string{"TUMBLE(", "HOP(", "CUMULATE(", " OVER (PARTITION", "WHERE rn <=", "WHERE rn = 1"} {
			if strings.Contains(q, k) {
				kinds[k] = true
			}
		}
		res, err := env.ExecuteSQL(ctx, q)
		if err != nil {
			var ce *core.Error
			if !errors.As(err, &ce) || ce.Kind == core.KindInternal {
				t.Errorf("query %d: %s: %v", n, q, err)
			}
			t.Logf("query %d: %s: %v", n, q, err)
			continue
		}
		rows := 0
		for range res.Changes() {
			rows++
		}
		if res.Err() == nil {
			ok++
		} else {
			t.Logf("query %d: %s: %v", n, q, res.Err())
		}
	}
	if ok < 50 {
		t.Errorf("only %d of 60 generated streaming queries run on tablerun", ok)
	}
	if len(kinds) != 6 {
		t.Errorf("the generator made only %v", kinds)
	}
}
