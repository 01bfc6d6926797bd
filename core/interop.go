package core

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tablerun/tablerun/connectors/memory"
	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/changelog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/parser"
	"github.com/tablerun/tablerun/vectorized"
	"github.com/tablerun/tablerun/vectorized/build"
)

// FromRecords registers in-memory Arrow record batches as a temporary table
// at path (a 1-, 2- or 3-part name completed from the current catalog and
// database), the Go counterpart of Flink's createTemporaryView over a
// DataStream. The batches are read zero-copy by every query of the table
// and must all have the given schema; column types map back from Arrow as
// types.FromArrow documents. At parallelism P the scan runs as P instances
// that take the batches round-robin (batch order is kept within an
// instance). Like any temporary table it vanishes with the session.
func (e *TableEnvironment) FromRecords(path string, schema *arrow.Schema, records []arrow.RecordBatch) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.fromRecords(path, schema, records)
}

// fromRecords is FromRecords under e.mu.
func (e *TableEnvironment) fromRecords(path string, schema *arrow.Schema, records []arrow.RecordBatch) error {
	x, err := parser.ParseExpression(path)
	if err != nil {
		return classify(KindParse, err)
	}
	ident, ok := x.(*ast.Identifier)
	if !ok {
		return classify(KindValidation, fmt.Errorf("%q is not a table name", path))
	}
	id, err := e.cat.Qualify(ident.Parts)
	if err != nil {
		return classify(KindValidation, err)
	}
	for i, r := range records {
		if !r.Schema().Equal(schema) {
			return classify(KindValidation, fmt.Errorf("record batch %d has schema %s, want %s", i, r.Schema(), schema))
		}
	}
	tbl := &catalog.Table{Options: map[string]string{"connector": "memory", "id": id.String()}}
	for _, f := range schema.Fields() {
		t, err := types.FromArrow(f.Type, f.Nullable)
		if err != nil {
			return classify(KindValidation, fmt.Errorf("column %q: %w", f.Name, err))
		}
		tbl.Columns = append(tbl.Columns, catalog.Column{Name: f.Name, Type: t})
	}
	if err := e.cat.CreateObject(id, tbl, true, false); err != nil {
		return classify(KindValidation, err)
	}
	if e.mem == nil {
		e.mem = memory.NewFactory()
		e.conns.Register(e.mem)
	}
	e.mem.Put(id.String(), records)
	return nil
}

// ExecuteArrow runs the query to the end and hands each result batch to fn
// in order, as Arrow record batches of the query's schema, without turning
// them into rows: the interop path for Go programs and benchmarks. A batch
// is valid until fn returns unless fn retains it. Batches carry no row
// kinds, so a streaming query that produces updates fails with an error
// instead of passing them off as inserts.
func (t *Table) ExecuteArrow(ctx context.Context, fn func(rec arrow.RecordBatch) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = recovered(r)
		}
	}()
	e := t.env
	now := time.Now()
	_, phys, err := e.optimize(t.plan, now)
	if err != nil {
		return err
	}
	err = build.Run(ctx, phys, e.buildEnv(now), func(b vectorized.Batch) error {
		if b.Rec == nil {
			return nil
		}
		for _, k := range b.Kinds {
			if k != changelog.Insert {
				return fmt.Errorf("ExecuteArrow delivers insert-only results, but the query produces update changes (%s); use TableResult.Changes or ToChangelogStream", k)
			}
		}
		return fn(b.Rec)
	})
	if err != nil {
		return classify(KindExecution, err)
	}
	return nil
}
