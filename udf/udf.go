// Package udf is the bridge between the engine and script user-defined
// functions (Python through gpython in udf/python, JavaScript through goja
// in udf/js): the declaration of a script function (Spec), the extra
// interfaces a script function exposes beyond function.Definition (table
// rows, aggregate accumulators, chunked scalar calls), interpreter pools
// and error reporting.
//
// A runtime's Compile(spec) returns a *function.Definition. Scalar
// definitions work everywhere a built-in does (their Eval converts the
// canonical Go values of core/types to script values, calls the script and
// converts the result back, checking it against the declared type). Table
// and aggregate definitions carry no usable Eval; the operators reach
// their implementation through TableImpl and AggregateImpl. Scalar
// definitions also offer BatchImpl, which calls the script once per chunk
// of rows, and ArrowImpl, which does so straight from and to Arrow arrays
// (arrow.go); table functions also implement TableChunkFunc.
//
// Interpreters are not safe for concurrent use, so every definition keeps
// a pool of interpreters made from one compiled program; a call borrows one
// for its duration. Module-level state of a script is therefore per
// interpreter, never shared between goroutines.
package udf

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
)

// DefaultTimeout is the per-call time limit of a script call when
// Spec.Timeout is zero.
const DefaultTimeout = 5 * time.Second

// Spec declares one script function.
type Spec struct {
	// Name is the SQL name of the function (declared case).
	Name string
	// Kind is function.Scalar, function.Table or function.Aggregate.
	Kind function.Kind
	// Params are the declared parameters. Calls are checked against them
	// and arguments are implicitly cast to their types.
	Params []types.Field
	// Returns is the result type; for a table function a ROW type whose
	// fields are the output columns.
	Returns types.Type
	// Body is the inline source ($$ … $$). It defines a function (scalar,
	// table) or a class (aggregate) named Name.
	Body string
	// File is the path of the script file for the AS 'file.func' form
	// (used when Body is empty).
	File string
	// Func is the name of the function or class inside File (defaults to
	// Name).
	Func string
	// SourceName names the source in error messages (defaults to File or
	// "inline body of <Name>").
	SourceName string
	// Timeout limits one call into the script (DefaultTimeout when zero,
	// no limit when negative).
	Timeout time.Duration
	// MemoryLimit bounds the memory one call into the script may take, in
	// bytes (DefaultMemoryLimit when zero, no limit when negative): see
	// Watch.
	MemoryLimit int64
}

// Source returns the name of the source used in error messages.
func (s Spec) Source() string {
	if s.SourceName != "" {
		return s.SourceName
	}
	if s.Body == "" && s.File != "" {
		return s.File
	}
	return "inline body of " + s.Name
}

// Entry returns the name of the script function or class to call.
func (s Spec) Entry() string {
	if s.Body == "" && s.Func != "" {
		return s.Func
	}
	return s.Name
}

// DefaultMemoryLimit is the memory limit of a script call when
// Spec.MemoryLimit is zero (tablerun.udf.memory-limit's default).
const DefaultMemoryLimit = 256 << 20

// CallMemoryLimit returns the effective per-call memory limit in bytes
// (0 = none).
func (s Spec) CallMemoryLimit() int64 {
	switch {
	case s.MemoryLimit == 0:
		return DefaultMemoryLimit
	case s.MemoryLimit < 0:
		return 0
	}
	return s.MemoryLimit
}

// CallTimeout returns the effective per-call timeout (0 = none).
func (s Spec) CallTimeout() time.Duration {
	switch {
	case s.Timeout == 0:
		return DefaultTimeout
	case s.Timeout < 0:
		return 0
	}
	return s.Timeout
}

// ParamTypes returns the declared parameter types.
func (s Spec) ParamTypes() []types.Type {
	out := make([]types.Type, len(s.Params))
	for i, p := range s.Params {
		out[i] = p.Type
	}
	return out
}

// TableFunc produces the rows of a table function call.
type TableFunc interface {
	// Rows calls the function with one row of arguments (canonical Go
	// values, nil for NULL) and calls emit once per produced row, whose
	// values follow the fields of Spec.Returns. An error from emit stops
	// the iteration and is returned.
	Rows(ctx *function.EvalContext, args []any, emit func(row []any) error) error
}

// AggregateFunc is a script aggregate function.
type AggregateFunc interface {
	// NewInstance returns an instance bound to one interpreter, for use by
	// one goroutine (one operator instance). Accumulators are only valid
	// in the instance that created them, except through Export/Import.
	// ctx (may be nil: UTC) supplies the session time zone for
	// TIMESTAMP_LTZ conversions.
	NewInstance(ctx *function.EvalContext) (AggInstance, error)
	// CanRetract reports whether the script defines retract.
	CanRetract() bool
	// CanMerge reports whether the script defines merge.
	CanMerge() bool
	// ResultType is the declared result type.
	ResultType() types.Type
}

// Acc is an opaque accumulator handle of an AggInstance.
type Acc any

// AggInstance runs the accumulator methods of an aggregate function in one
// interpreter. It is not safe for concurrent use.
type AggInstance interface {
	// CreateAccumulator returns a new, empty accumulator.
	CreateAccumulator() (Acc, error)
	// Accumulate adds one row of arguments (canonical Go values).
	Accumulate(acc Acc, args []any) error
	// Retract removes one row of arguments; an error starting with
	// "not supported yet: " when the script has no retract.
	Retract(acc Acc, args []any) error
	// Merge merges other into acc; an error when the script has no merge.
	Merge(acc, other Acc) error
	// GetValue returns the current result (canonical Go value of the
	// result type, nil for NULL). It does not change acc.
	GetValue(acc Acc) (any, error)
	// Export converts acc into a plain Go value (nil, bool, int64,
	// float64, string, []byte, []any, map[string]any) that Import of any
	// instance of the same function turns back into an accumulator — for
	// two-phase aggregation and state snapshots.
	Export(acc Acc) (any, error)
	// Import is the inverse of Export.
	Import(v any) (Acc, error)
	// Close returns the interpreter to the pool; the instance and its
	// accumulators must not be used afterwards.
	Close()
}

// BatchFunc calls a scalar script function on a chunk of rows at once.
type BatchFunc interface {
	// CallBatch calls the function for n rows; args[i][r] is the value
	// of argument i in row r (canonical Go values, nil for NULL). It
	// returns n results.
	CallBatch(ctx *function.EvalContext, args [][]any, n int) ([]any, error)
}

var (
	implMu sync.RWMutex
	impls  = map[*function.Definition]any{}
)

// Register associates an implementation (TableFunc, AggregateFunc,
// BatchFunc) with a definition. Runtimes call it from Compile.
func Register(def *function.Definition, impl any) {
	if a, ok := impl.(AggregateFunc); ok {
		// two phases move exported accumulators between operators as
		// bytes: only runtimes whose exports encode (not Go functions,
		// whose accumulators export as themselves)
		_, local := impl.(interface{ ExportsInProcessOnly() })
		def.Mergeable = a.CanMerge() && !local
	}
	implMu.Lock()
	impls[def] = impl
	implMu.Unlock()
}

// Release forgets the implementation of a dropped definition and closes
// its idle interpreters (implementations with a Close method).
func Release(def *function.Definition) {
	implMu.Lock()
	impl := impls[def]
	delete(impls, def)
	implMu.Unlock()
	// outside the lock: a generic definition's Close releases its
	// instances (poly.go)
	if c, ok := impl.(interface{ Close() }); ok {
		c.Close()
	}
}

func lookup(def *function.Definition) any {
	implMu.RLock()
	defer implMu.RUnlock()
	return impls[def]
}

// TableImpl returns the row producer of a script table function.
func TableImpl(def *function.Definition) (TableFunc, bool) {
	t, ok := lookup(def).(TableFunc)
	return t, ok
}

// AggregateImpl returns the accumulator implementation of a script
// aggregate function.
func AggregateImpl(def *function.Definition) (AggregateFunc, bool) {
	a, ok := lookup(def).(AggregateFunc)
	return a, ok
}

// BatchImpl returns the chunked-call implementation of a script scalar
// function.
func BatchImpl(def *function.Definition) (BatchFunc, bool) {
	b, ok := lookup(def).(BatchFunc)
	return b, ok
}

// IsScript reports whether def was made by a script runtime.
func IsScript(def *function.Definition) bool { return lookup(def) != nil }

// Error is a failure of a script function: a syntax error at CREATE time
// or an exception, wrong result or timeout during a call.
type Error struct {
	// Lang is "Python" or "JavaScript".
	Lang string
	// Func is the SQL name of the function.
	Func string
	// Source names the script (file path or "inline body of f").
	Source string
	// Line is the 1-based line in Source (0 when unknown).
	Line int
	// Col is the 1-based column (0 when unknown).
	Col int
	// Msg is the error text ("ZeroDivisionError: division by zero").
	Msg string
	// Input is the argument row of the failing call, formatted, or "".
	Input string
	// Trace is the script's stack trace, if any.
	Trace string
}

// Error formats the error on one line, e.g.
// "Python UDF 'f' failed at inline body of f, line 3: ZeroDivisionError:
// division by zero (input: 1, 0)".
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s UDF '%s'", e.Lang, e.Func)
	if e.Source != "" {
		b.WriteString(" failed at ")
		b.WriteString(e.Source)
		if e.Line > 0 {
			fmt.Fprintf(&b, ", line %d", e.Line)
			if e.Col > 0 {
				fmt.Fprintf(&b, ", column %d", e.Col)
			}
		}
	} else {
		b.WriteString(" failed")
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	if e.Input != "" {
		b.WriteString(" (input row: ")
		b.WriteString(e.Input)
		b.WriteString(")")
	}
	return b.String()
}

// FormatInput renders an argument row for error messages.
func FormatInput(args []any, ts []types.Type) string {
	parts := make([]string, len(args))
	for i, a := range args {
		if a == nil {
			parts[i] = "NULL"
			continue
		}
		if i < len(ts) {
			parts[i] = types.FormatValue(a, ts[i], time.UTC)
			continue
		}
		parts[i] = fmt.Sprint(a)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// ValidateSpec checks the parts of a spec common to every runtime.
func ValidateSpec(s Spec) error {
	if s.Name == "" {
		return fmt.Errorf("script function without a name")
	}
	if s.Body == "" && s.File == "" {
		return fmt.Errorf("function '%s' has neither an inline body nor a script file", s.Name)
	}
	if s.Kind == function.Table && s.Returns.Kind != types.Row {
		return fmt.Errorf("table function '%s' must return a ROW type of its columns, not %s", s.Name, s.Returns)
	}
	return nil
}
