package core

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/logical"
	"github.com/tablerun/tablerun/planner/physical"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/build"
	"github.com/tablerun/tablerun/vectorized/ops"
)

// spillConfig returns the memory budget, spill directory and compression
// of batch operators (tablerun.exec.spill.memory-budget, io.tmp.dirs,
// table.exec.spill-compression.enabled).
func (e *TableEnvironment) spillConfig() ops.SpillConfig {
	return ops.SpillConfig{Budget: e.cfg.SpillMemoryBudget(), Dir: e.cfg.SpillDir(), Uncompressed: !e.cfg.SpillCompression()}
}

// Analyzed is the outcome of running a statement with statistics: the
// physical plan that ran and what each of its nodes did.
type Analyzed struct {
	// Plan is the physical plan that ran.
	Plan physical.Node
	// Stats holds the per-node statistics; Stats.Total is the run's wall
	// time.
	Stats *build.Stats
}

// String prints the plan with the statistics of each node (EXPLAIN
// ANALYZE's text).
func (a *Analyzed) String() string {
	var b strings.Builder
	b.WriteString("== Physical Plan With Runtime Statistics ==\n")
	b.WriteString(build.ExplainAnalyze(a.Plan, a.Stats))
	fmt.Fprintf(&b, "\n== Total ==\ntime=%s\n", build.FormatDuration(a.Stats.Total))
	return b.String()
}

// ExecuteWithStats runs the query to the end, as Execute does, and also
// returns the physical plan that ran with per-operator statistics (rows
// and batches in and out, busy time, peak state, spills): EXPLAIN ANALYZE
// from Go. In streaming mode the query must be bounded (it runs to its
// end) and the result is its changelog; every operator runs as one
// instance, whatever the parallelism, so its statistics are whole.
func (t *Table) ExecuteWithStats(ctx context.Context) (res *TableResult, an *Analyzed, err error) {
	t.env.mu.Lock()
	defer t.env.mu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			res, an, err = nil, nil, recovered(r)
		}
	}()
	start := t.env.now()
	res, an, err = t.env.runAnalyzed(ctx, t.plan, start)
	if err != nil {
		return nil, nil, err
	}
	res.elapsed = time.Since(start)
	return res, an, nil
}

// runAnalyzed optimizes and runs a query or sink plan with statistics.
// A query's rows are collected into the result.
func (e *TableEnvironment) runAnalyzed(ctx context.Context, plan logical.Node, now time.Time) (*TableResult, *Analyzed, error) {
	_, phys, err := e.optimize(plan, now)
	if err != nil {
		return nil, nil, err
	}
	_, isSink := plan.(*logical.Sink)
	schema := plan.Schema()
	env := e.buildEnv(now)
	env.Stats = build.NewStats()
	var rows [][]any
	var kinds []changelog.RowKind
	t0 := time.Now()
	err = build.Run(ctx, phys, env, func(b vectorized.Batch) error {
		if b.Rec == nil || isSink {
			return nil
		}
		rows = append(rows, types.RecordRows(b.Rec, schema)...)
		for i := 0; i < b.NumRows(); i++ {
			kinds = append(kinds, b.Kind(i))
		}
		return nil
	})
	env.Stats.Total = time.Since(t0)
	if err != nil {
		return nil, nil, classify(KindExecution, err)
	}
	an := &Analyzed{Plan: phys, Stats: env.Stats}
	if isSink {
		return &TableResult{kind: SuccessWithContent, dml: true, rows: [][]any{{int64(-1)}},
			schema: types.Schema{{Name: "sink", Type: types.BigIntT}}}, an, nil
	}
	var ch *changes
	if e.streaming() {
		// The changelog of a (bounded) streaming query, already complete.
		ch = &changes{kinds: kinds, start: t0, end: time.Now()}
	}
	return &TableResult{
		changes:  ch,
		kind:     SuccessWithContent,
		schema:   schema,
		rows:     rows,
		query:    true,
		loc:      e.cfg.LocalTimeZone(),
		maxWidth: e.cfg.MaxColumnWidth(),
	}, an, nil
}

// executeExplainAnalyze runs EXPLAIN ANALYZE: the query or INSERT runs to
// the end (an INSERT writes its rows), and the result is the plan with
// each node's statistics, in one STRING column as EXPLAIN's.
func (e *TableEnvironment) executeExplainAnalyze(ctx context.Context, s *ast.Explain, now time.Time) (*TableResult, error) {
	if s.PlanFor {
		return nil, unsupported("EXPLAIN ANALYZE PLAN FOR")
	}
	if len(s.Details) > 0 {
		return nil, unsupported("EXPLAIN ANALYZE with %s", strings.Join(s.Details, ", "))
	}
	var plan logical.Node
	var err error
	switch inner := s.Statement.(type) {
	case *ast.QueryStmt:
		plan, err = e.validator(now).Query(inner.Query)
	case *ast.Insert:
		var sink *logical.Sink
		sink, err = e.validator(now).Insert(inner)
		plan = sink
	default:
		return nil, unsupported("EXPLAIN ANALYZE %s", statementName(s.Statement))
	}
	if err != nil {
		return nil, classify(KindValidation, err)
	}
	_, an, err := e.runAnalyzed(ctx, plan, now)
	if err != nil {
		return nil, err
	}
	return stringResult("result", []string{an.String()}), nil
}
