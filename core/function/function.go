// Package function holds the definitions of built-in and user-defined
// functions: names, type inference, a row-at-a-time reference
// implementation and a doc record. Vectorized kernels live in
// vectorized/expr and are looked up by the same canonical name; a function
// without a kernel runs through its Eval, row by row.
package function

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tablerun/tablerun/core/types"
)

// Kind is the kind of function.
type Kind uint8

// Function kinds.
const (
	Scalar Kind = iota
	Aggregate
	Table
)

// Doc is the documentation record that feeds SHOW FUNCTIONS, DESCRIBE
// FUNCTION and the docs.
type Doc struct {
	Summary string
	Args    string // e.g. "string1, string2"
	Example string // e.g. "UPPER('a') → 'A'"
}

// EvalContext carries the session values a function may read.
type EvalContext struct {
	// Loc is table.local-time-zone.
	Loc *time.Location
	// Now is the statement's start instant (CURRENT_TIMESTAMP is constant
	// within a batch statement, as in Flink's batch mode).
	Now time.Time
	// Catalog and Database are the session's current catalog and database
	// (CURRENT_CATALOG, CURRENT_DATABASE); empty where no session set them.
	Catalog, Database string
	// Done, when not nil, is closed when the statement is cancelled:
	// long-running script calls stop at it (udf.Watch.SetDone).
	Done <-chan struct{}
}

// CallTypes gives an implementation the argument types (after coercion)
// and the result type of one call site.
type CallTypes struct {
	Args   []types.Type
	Result types.Type
}

// InferFunc computes the result type of a call from its argument types. It
// may ask for arguments to be cast first by returning argTypes (nil or an
// entry equal to the argument's type means no cast). Errors are validation
// errors shown to the user ("Cannot apply 'UPPER' to arguments of type
// 'UPPER(<INTEGER>)'…").
type InferFunc func(args []types.Type) (result types.Type, argTypes []types.Type, err error)

// EvalFunc is the row-at-a-time reference implementation. Arguments are in
// their canonical Go representation (see core/types); a NULL is nil. It is
// called with NULL arguments too: functions that are NULL on a NULL input
// check for it (see Definition.NullOnNull).
type EvalFunc func(ctx *EvalContext, ct CallTypes, args []any) (any, error)

// Definition is one function.
type Definition struct {
	// Name is the canonical name: upper case for built-ins ("UPPER",
	// "+", "IS NULL"); user functions keep their declared case.
	Name string
	Kind Kind
	// Infer computes result types.
	Infer InferFunc
	// Eval is the reference implementation (scalar functions).
	Eval EvalFunc
	// NullOnNull: the result is NULL whenever any argument is NULL, and
	// Eval is never called with a NULL argument.
	NullOnNull bool
	// Nondeterministic marks RAND, NOW, UUID, …: never constant-folded.
	Nondeterministic bool
	// Doc is the documentation record shown by SHOW/DESCRIBE FUNCTION.
	Doc Doc
	// AggResult types a built-in aggregate (Kind Aggregate): the result
	// type over the argument types; grouped is false for a global
	// aggregate (no GROUP BY). Read it through AggregateResultType.
	AggResult func(args []types.Type, grouped bool) (types.Type, error)
	// MinArgs and MaxArgs bound a built-in aggregate's argument count
	// (COUNT(*) counts as zero).
	MinArgs, MaxArgs int
	// Mergeable marks a user-defined aggregate function whose partial
	// accumulators merge (it defines merge): it may run in two phases
	// (LocalGroupAggregate → GlobalGroupAggregate), as Flink's rule for
	// AggregateFunction#merge.
	Mergeable bool
}

// Registry maps case-insensitive names to definitions.
type Registry struct {
	// mu guards defs: running jobs look definitions up while statements
	// register them.
	mu   sync.RWMutex
	defs map[string]*Definition
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{defs: map[string]*Definition{}} }

// Register adds or replaces a definition.
func (r *Registry) Register(d *Definition) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.defs[strings.ToUpper(d.Name)] = d
}

// Lookup finds a definition by name, case-insensitively.
func (r *Registry) Lookup(name string) (*Definition, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	d, ok := r.defs[strings.ToUpper(name)]
	return d, ok
}

// Names returns all registered names in lower case, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.defs))
	for _, d := range r.defs {
		out = append(out, strings.ToLower(d.Name))
	}
	sort.Strings(out)
	return out
}

// CallError formats Flink's error for a call whose arguments do not fit:
// "Cannot apply 'UPPER' to arguments of type 'UPPER(<INTEGER>)'."
//
// Argument types are spelled as Calcite prints them (INTEGER, CHAR(1),
// VARCHAR(2147483647), DECIMAL(3, 2), TIMESTAMP(6)…), without NOT NULL.
func CallError(name string, args []types.Type) error {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = "<" + calciteTypeName(a) + ">"
	}
	return fmt.Errorf("Cannot apply '%s' to arguments of type '%s(%s)'.", name, name, strings.Join(parts, ", "))
}

// calciteTypeName spells t as Calcite's RelDataType.toString does.
func calciteTypeName(t types.Type) string {
	switch t.Kind {
	case types.Int:
		return "INTEGER"
	case types.VarChar:
		return fmt.Sprintf("VARCHAR(%d)", t.Precision)
	case types.VarBinary:
		return fmt.Sprintf("VARBINARY(%d)", t.Precision)
	case types.TimestampLTZ:
		return fmt.Sprintf("TIMESTAMP_WITH_LOCAL_TIME_ZONE(%d)", t.Precision)
	case types.IntervalDayTime, types.IntervalYearMonth:
		unit := t.Unit
		if unit == "" {
			unit = map[bool]string{true: "DAY TO SECOND", false: "YEAR TO MONTH"}[t.Kind == types.IntervalDayTime]
		}
		return "INTERVAL " + unit
	case types.Array:
		if t.Elem != nil {
			return calciteTypeName(*t.Elem) + " ARRAY"
		}
	case types.Map:
		if t.Elem != nil && t.Value != nil {
			return "(" + calciteTypeName(*t.Elem) + ", " + calciteTypeName(*t.Value) + ") MAP"
		}
	case types.Row:
		parts := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			parts[i] = calciteTypeName(f.Type) + " " + f.Name
		}
		return "RecordType(" + strings.Join(parts, ", ") + ")"
	}
	return t.SummaryString()
}
