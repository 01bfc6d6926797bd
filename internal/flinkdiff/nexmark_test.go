package flinkdiff

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/tablerun/tablerun/internal/bench"
)

// nexmarkEvents is the size of the events file of TestNexmark: 10,000
// events at 100 events/s of event time (100 s: every window of the
// queries opens and closes many times).
var nexmarkEvents = bench.EventsSpec{Events: 10_000, TPS: 100}

// TestNexmark compares Nexmark q0–q23 on the same bounded events: the
// generator's events are written once to a JSON file (bench.WriteEvents)
// that both engines read through a filesystem table with ddl_gen.sql's
// columns, computed column and watermark; each query's INSERT is compared
// as its SELECT, in streaming mode (the final table of the changelog) and,
// with -flinkdiff.full, in batch mode too.
func TestNexmark(t *testing.T) {
	r := newRunner(t)
	r.MaxRows = 100_000
	dir := t.TempDir()
	path, err := bench.WriteEvents(context.Background(), "", filepath.Join(dir, "events"), nexmarkEvents)
	if err != nil {
		t.Fatal(err)
	}
	home, err := bench.NexmarkHome()
	if err != nil {
		t.Fatal(err)
	}
	shared := []string{filepath.Join(dir, "events"), home}
	modes := []string{"streaming"}
	if *full {
		modes = append(modes, "batch")
	}
	for _, mode := range modes {
		ty := &tally{corpus: "nexmark " + mode}
		for q := 0; q <= 23; q++ {
			name := fmt.Sprintf("q%d", q)
			stmts, err := bench.FileScript("", name, path, filepath.Join(dir, mode, name))
			if err != nil {
				t.Fatal(err)
			}
			queries := 0
			for i, s := range stmts {
				if sel, ok := bench.AsQuery(s); ok {
					stmts[i] = sel
					queries++
				}
			}
			if queries == 0 {
				t.Fatalf("%s: no INSERT to compare", name)
			}
			rep, err := r.RunStatements(context.Background(), "nexmark/"+name+" ("+mode+")", stmts, nil,
				Options{Properties: map[string]string{"execution.runtime-mode": mode}, Shared: shared})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range rep.Statements {
				switch {
				case s.Query && s.Outcome == Equal:
					t.Logf("%s (%s): %d rows equal", name, mode, len(s.ours.rows))
				case s.Outcome == Equal && isQuery(s.SQL):
					// both refuse it the same way (upstream's q6 refers to
					// a column of its own SELECT in its WHERE)
					t.Logf("%s (%s): both engines refuse it:\n  tablerun: %s\n  Flink: %s", name, mode, s.Ours, s.Flink)
				}
			}
			ty.add(t, rep)
		}
		ty.report(t)
	}
}
