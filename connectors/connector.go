// Package connectors holds the table connectors ('connector' = '…') and the
// factory registry the executor uses to open sources and sinks.
package connectors

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/vectorized"
)

// Context is what a connector may read from the session.
type Context struct {
	// Loc is table.local-time-zone.
	Loc *time.Location
	// Stdout receives the print connector's lines (os.Stdout in the CLI,
	// a buffer in tests).
	Stdout io.Writer
	// Stderr receives print lines with 'standard-error' = 'true'.
	Stderr io.Writer
	// Parallelism is the sink's parallelism (print prefixes depend on it).
	Parallelism int
	// BatchSize is the number of rows a source aims for per batch.
	BatchSize int
	// Bounded is true in batch mode: every source must be bounded.
	Bounded bool
}

// SourceSpec describes one scan of a table.
type SourceSpec struct {
	Table *catalog.ResolvedTable
	// Projection lists the physical columns to produce, as indexes into
	// Table.PhysicalSchema(); nil means all in order. The emitted batches'
	// schema is exactly the projected columns.
	Projection []int
	// ReadFields tells, for projected column i of ROW type, which of its
	// top-level fields are read downstream: ReadFields[i][f] is false when
	// nothing reads field f of that column. A nil ReadFields, a nil entry
	// or an entry of the wrong length means all fields are read. A source
	// MAY leave the unread fields NULL (the emitted column keeps its full
	// type) to save generating or decoding them, or ignore ReadFields.
	ReadFields [][]bool
	// Filters are the predicates the source accepted from the planner
	// (catalog.Abilities.ApplyFilters), in the order it was offered them;
	// their field references index Table.PhysicalSchema(). The planner
	// still evaluates the ones the source named remaining, so a source
	// that applies a filter only partially (to skip files or partitions)
	// may let rows through that fail it; for the others it must not.
	Filters []catalog.Expression
	// Limit, when positive, is the number of rows the plan reads at most
	// (catalog.Abilities.LimitPushDown): the source may stop after it.
	Limit int64
}

// SinkSpec describes one write into a table. The input batches have the
// table's physical schema.
type SinkSpec struct {
	Table     *catalog.ResolvedTable
	Overwrite bool
	// Subtask is this instance's index among the sink's parallel
	// instances (print prefixes "Subtask+1>" when there are several).
	Subtask int
}

// Sink consumes the batches written into a table. Open is called once;
// Write once per batch, in order; Finish once at the end of a successful
// input (it flushes and commits); Close always, last (it releases files and
// discards uncommitted data if Finish was not called).
type Sink interface {
	Open(ctx context.Context) error
	Write(ctx context.Context, b vectorized.Batch) error
	Finish(ctx context.Context) error
	Close() error
}

// TwoPhaseSink is a Sink that gives exactly-once output under
// checkpointing (Flink's TwoPhaseCommittingSink): data written between two
// checkpoints becomes visible only when the later checkpoint completes.
//
// PreCommit is called on the sink's goroutine when checkpoint id's barrier
// reaches the sink: the sink closes what it has in progress, makes it
// durable but invisible (pending), and records through w what Commit will
// need (the committables). Commit is called once checkpoint id is complete,
// possibly from another goroutine and concurrently with Write: it
// publishes the pending data of every checkpoint up to id. RestoreState is
// called after Open and before the first Write when the job restarts from
// a checkpoint: the sink publishes the committables recorded in it (they
// may or may not have been published before the crash: it is idempotent)
// and discards data written after it (in-progress and pending leftovers).
// Finish at the end of a bounded input publishes everything.
type TwoPhaseSink interface {
	Sink
	PreCommit(ctx context.Context, checkpointID int64, w vectorized.StateWriter) error
	Commit(ctx context.Context, checkpointID int64) error
	RestoreState(ctx context.Context, r vectorized.StateReader) error
}

// FinalCheckpointSink is a TwoPhaseSink whose rows after the last
// checkpoint are published only by a checkpoint taken after its input
// ended (Flink's final checkpoint, FLIP-147), so that a crash after the
// end of the input and before the job finished cannot publish them twice
// (a sink whose commits cannot be undone: Kafka transactions). Under
// checkpointing, at the end of the input the executor calls
// PreCommitFinal on the sink's goroutine, writing into the task's final
// state (what RestoreState will get), before Finish; Finish then waits
// until Commit published that state (the next checkpoint completed).
// Without checkpointing PreCommitFinal is not called and Finish publishes
// at once.
type FinalCheckpointSink interface {
	TwoPhaseSink
	PreCommitFinal(ctx context.Context, w vectorized.StateWriter) error
}

// FlushingSink is a Sink that buffers rows and writes them out when a
// checkpoint barrier reaches it (at-least-once, as Flink's SinkWriter#
// flush before a checkpoint): Flush is called on the sink's goroutine,
// before the checkpoint is acknowledged; its error fails the job.
type FlushingSink interface {
	Sink
	Flush(ctx context.Context) error
}

// LookupFactory is a Factory whose tables answer key lookups for
// processing-time temporal joins (catalog.Abilities.LookupFunction):
// CreateLookup returns the function, and the partial cache the table's
// options ask for in front of it (nil: none).
type LookupFactory interface {
	Factory
	CreateLookup(cx *Context, spec LookupSpec) (vectorized.LookupFunction, *vectorized.LookupCache, error)
}

// LookupSpec describes the lookups of one temporal join.
type LookupSpec struct {
	Table *catalog.ResolvedTable
	// Projection lists the physical columns the lookup returns, as
	// indexes into Table.PhysicalSchema(); nil means all in order.
	Projection []int
	// Keys are the physical columns looked up, in the join's key order.
	Keys []int
	// Filters are predicates the source accepted
	// (catalog.Abilities.ApplyFilters) that the returned rows must meet.
	Filters []catalog.Expression
}

// SinkSpec and Context carry the sink's subtask: SinkSpec.Subtask is the
// index of this instance among Context.Parallelism instances (0-based);
// sinks that write files put it in their file names.

// SplittableFactory is a Factory whose sources can run as several
// parallel instances, each reading its share (its split) of the table:
// the executor then runs the scan with the job's parallelism and calls
// SetSplit(subtask, parallelism) on each instance's source before Open.
type SplittableFactory interface {
	Factory
	Splittable(spec SourceSpec) bool
}

// SplitSource is a source that reads one split of its table (see
// SplittableFactory).
type SplitSource interface {
	vectorized.Source
	SetSplit(index, count int) error
}

// SchemaInferringFactory is a Factory that gives a table declared
// without columns the columns of its data (tablerun's extension; the
// filesystem connector reads them from the first file,
// connectors/filesystem/infer.go). The facade asks it when CREATE TABLE
// declares no column and CanInferSchema holds, and stores the answer as
// the table's columns.
type SchemaInferringFactory interface {
	Factory
	CanInferSchema(options map[string]string) bool
	InferSchema(options map[string]string) (types.Schema, error)
}

// AbilitiesFactory is a Factory whose tables can do more than a plain scan
// and an insert-only write (Flink's source and sink ability interfaces):
// Abilities says what, for one table (its options may matter: datagen is
// bounded with 'number-of-rows'). The facade asks it when a statement
// resolves the table and hands the answer to the planner
// (catalog.ResolvedTable.Abilities). It must not fail: an invalid option
// is reported when the table is opened.
type AbilitiesFactory interface {
	Factory
	Abilities(t *catalog.ResolvedTable) catalog.Abilities
}

// AbilitiesOf returns what f can do for table t: its declaration when f is
// an AbilitiesFactory, the zero Abilities (a plain unbounded source, an
// insert-only sink) otherwise.
func AbilitiesOf(f Factory, t *catalog.ResolvedTable) catalog.Abilities {
	if af, ok := f.(AbilitiesFactory); ok {
		return af.Abilities(t)
	}
	return catalog.Abilities{}
}

// Factory creates sources and sinks for one connector identifier.
type Factory interface {
	// Identifier is the value of the 'connector' option, e.g. "datagen".
	Identifier() string
	// RequiredOptions and OptionalOptions list the option keys the
	// connector accepts (patterns like "fields.#.kind" use # for a field
	// name). Keys outside both are rejected with Flink's message.
	RequiredOptions() []string
	OptionalOptions() []string
	// CreateSource opens a source; connectors that cannot read return an
	// error naming the connector.
	CreateSource(cx *Context, spec SourceSpec) (vectorized.Source, error)
	// CreateSink opens a sink; connectors that cannot write return an
	// error naming the connector.
	CreateSink(cx *Context, spec SinkSpec) (Sink, error)
}

// Registry maps connector identifiers to factories. It is safe for
// concurrent use.
type Registry struct {
	mu        sync.RWMutex
	factories map[string]Factory
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{factories: map[string]Factory{}} }

// Register adds a factory, replacing one with the same identifier.
func (r *Registry) Register(f Factory) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.factories[f.Identifier()] = f
}

// RegisterNew adds a factory whose identifier is not registered yet; one
// that is gets Flink's error for two factories of one identifier (iface
// is the factory interface the message names).
func (r *Registry) RegisterNew(f Factory, iface string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	id := f.Identifier()
	if _, ok := r.factories[id]; ok {
		return fmt.Errorf("Multiple factories for identifier '%s' that implement '%s' found in the classpath.", id, iface)
	}
	r.factories[id] = f
	return nil
}

// Abilities returns what the connector of t can do, or nil when t names
// no known connector (the error is reported when the table is opened).
func (r *Registry) Abilities(t *catalog.ResolvedTable) *catalog.Abilities {
	if t == nil || t.Table == nil {
		return nil
	}
	f, err := r.Lookup(t)
	if err != nil {
		return nil
	}
	a := AbilitiesOf(f, t)
	return &a
}

// Lookup finds the factory of a table from its 'connector' option, with
// Flink's errors for a missing or unknown connector.
func (r *Registry) Lookup(t *catalog.ResolvedTable) (Factory, error) {
	if isLegacy(t) { // legacy.go
		lt, err := translateLegacy(t)
		if err != nil {
			return nil, err
		}
		f, err := r.Lookup(lt)
		if err != nil {
			return nil, err
		}
		return legacyFactory{f}, nil
	}
	id, ok := t.Table.Options["connector"]
	if !ok {
		return nil, fmt.Errorf("Table options do not contain an option key 'connector' for discovering a connector. Therefore, Flink assumes a managed table. However, a managed table factory that implements org.apache.flink.table.factories.ManagedTableFactory is not in the classpath.")
	}
	r.mu.RLock()
	f, ok := r.factories[id]
	var ids []string
	if !ok {
		for k := range r.factories {
			ids = append(ids, k)
		}
	}
	r.mu.RUnlock()
	if !ok {
		sort.Strings(ids)
		return nil, fmt.Errorf("Could not find any factory for identifier '%s' that implements 'org.apache.flink.table.factories.DynamicTableFactory' in the classpath.\n\nAvailable factory identifiers are:\n\n%s", id, strings.Join(ids, "\n"))
	}
	return f, nil
}
