package core

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	arrowmem "github.com/apache/arrow-go/v18/arrow/memory"

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
func (t *Table) ExecuteArrow(ctx context.Context, fn func(rec arrow.RecordBatch) error) error {
	err := t.ExecuteArrowChanges(ctx, func(rec arrow.RecordBatch, kinds []changelog.RowKind) error {
		for _, k := range kinds {
			if k != changelog.Insert {
				return fmt.Errorf("ExecuteArrow delivers insert-only results, but the query produces update changes (%s); use TableResult.Changes or ToChangelogStream", k)
			}
		}
		return fn(rec)
	})
	var e *Error
	if err != nil && !errors.As(err, &e) {
		return classify(KindExecution, err)
	}
	return err
}

// ExecuteArrowChanges runs the query in the session's runtime mode and
// hands each non-empty batch of its result to fn as the job's last
// operator emitted it: an Arrow record batch with the query's columns
// (types.ArrowSchema of Schema: its names, types and nullability) and the
// row kind of every row (kinds is nil when all rows are +I, always so in
// batch mode). Nothing is kept: a streaming query over an unbounded
// source runs, in the memory of its state, until ctx ends or fn fails
// (whose error comes back unchanged; a cancelled ctx gives an error for
// which IsCanceled holds). A batch is valid until fn returns unless fn
// retains it; kinds belongs to the caller. This is the Arrow path of
// servers (Flight SQL): batches pass through without becoming rows.
func (t *Table) ExecuteArrowChanges(ctx context.Context, fn func(rec arrow.RecordBatch, kinds []changelog.RowKind) error) (err error) {
	if t.err != nil {
		return t.err
	}
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
	schema := t.plan.Schema()
	as, err := types.ArrowSchema(schema)
	if err != nil {
		return classify(KindPlanner, err)
	}
	mem := arrowmem.NewGoAllocator()
	var fnErr error
	err = build.Run(ctx, phys, e.buildEnv(now), func(b vectorized.Batch) error {
		if b.Rec == nil || b.Rec.NumRows() == 0 {
			return nil
		}
		rec, err := conformRecord(mem, b.Rec, as, schema)
		if err != nil {
			return err
		}
		var kinds []changelog.RowKind
		if b.Kinds != nil {
			kinds = append([]changelog.RowKind(nil), b.Kinds...)
		}
		fnErr = fn(rec, kinds)
		rec.Release()
		return fnErr
	})
	if err != nil {
		if fnErr != nil && err == fnErr {
			return err
		}
		return classify(KindExecution, err)
	}
	return nil
}

// conformRecord returns rec as a record of as: the same columns under the
// result's names when their types are as's (the usual case: no copy), else
// rebuilt from its values. The caller releases the result.
func conformRecord(mem arrowmem.Allocator, rec arrow.RecordBatch, as *arrow.Schema, schema types.Schema) (arrow.RecordBatch, error) {
	same := int(rec.NumCols()) == as.NumFields()
	for i := 0; same && i < as.NumFields(); i++ {
		same = arrow.TypeEqual(rec.Column(i).DataType(), as.Field(i).Type)
	}
	if same {
		return array.NewRecordBatch(as, rec.Columns(), rec.NumRows()), nil
	}
	return types.BuildRecord(mem, schema, types.RecordRows(rec, schema))
}
