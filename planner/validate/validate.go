// Package validate is the validator and binder: it resolves the names of a
// parsed statement (planner/ast) through the catalog manager and the
// function registry, checks and coerces types with Flink's rules, and
// produces a typed logical plan (planner/logical).
package validate

import (
	"errors"
	"fmt"
	"time"

	"github.com/tablerun/tablerun/core/catalog"
	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/logical"
)

// Options configure a Validator.
type Options struct {
	// Loc is the session time zone (table.local-time-zone); it interprets
	// TIMESTAMP_LTZ literals. nil means UTC.
	Loc *time.Location
	// Now is the statement's start instant.
	Now time.Time
	// Streaming is set in streaming mode (not used yet: the streaming issue
	// adds its checks).
	Streaming bool
	// Functions resolves functions called by name with Flink's rules
	// (temporary system functions, the used modules, temporary catalog and
	// catalog functions); nil looks names up in the registry only.
	Functions FunctionResolver
	// Abilities returns what the connector of a table can do (the facade
	// asks the table's connector factory); the validator stores the
	// answer in every ResolvedTable it makes, where the planner reads it.
	// nil, or a nil answer, leaves the zero catalog.Abilities.
	Abilities func(t *catalog.ResolvedTable) *catalog.Abilities
}

// Validator turns statements into typed logical plans. It is not safe for
// concurrent use.
type Validator struct {
	cat  *catalog.Manager
	fns  *function.Registry
	opts Options
	// expanding holds the views being expanded, to detect cycles.
	expanding map[catalog.ObjectIdentifier]bool
}

// New returns a Validator resolving tables through cat and functions
// through fns.
func New(cat *catalog.Manager, fns *function.Registry, opts Options) *Validator {
	if opts.Loc == nil {
		opts.Loc = time.UTC
	}
	return &Validator{cat: cat, fns: fns, opts: opts, expanding: map[catalog.ObjectIdentifier]bool{}}
}

// resolved returns the ResolvedTable of a table object with its
// connector's abilities.
func (v *Validator) resolved(id catalog.ObjectIdentifier, t *catalog.Table, temp bool) *catalog.ResolvedTable {
	rt := &catalog.ResolvedTable{ID: id, Table: t, Temporary: temp}
	if v.opts.Abilities != nil {
		rt.Abilities = v.opts.Abilities(rt)
	}
	return rt
}

// Query validates a query (SELECT, VALUES, WITH, set operations, ORDER BY,
// LIMIT) and returns its logical plan.
func (v *Validator) Query(q ast.Query) (logical.Node, error) {
	n, err := v.planQuery(q, &env{})
	if err != nil {
		return nil, err
	}
	return n, nil
}

// ResolveTableName qualifies name with the current catalog and database
// and looks the object up. It returns an error with Flink's wording when
// the object does not exist.
func (v *Validator) ResolveTableName(name ast.ObjectName) (catalog.ObjectIdentifier, catalog.Object, bool, error) {
	id, err := v.cat.Qualify(name.Parts)
	if err != nil {
		return catalog.ObjectIdentifier{}, nil, false, err
	}
	obj, temp, err := v.cat.Lookup(id)
	if err != nil {
		if errors.Is(err, catalog.ErrNotFound) {
			return id, nil, false, fmt.Errorf("Object '%s' not found within '%s.%s'", id.Object, id.Catalog, id.Database)
		}
		return id, nil, false, err
	}
	return id, obj, temp, nil
}

// Error is a validation error found by Calcite's validator in Flink: an
// unknown column or function, a type mismatch, an ungrouped expression….
// Msg is the bare message, which Flink's SQL client prints as the cause
// ("org.apache.calcite.sql.validate.SqlValidatorException: " + Msg); Error()
// adds Calcite's position prefix ("From line 1, column 8 to line 1, column
// 10: " or "At line 1, column 8: ").
type Error struct {
	// Line and Col are the 1-based start position (0 when unknown).
	Line, Col int
	// EndLine and EndCol are the end position of a range (0 for a point).
	EndLine, EndCol int
	Msg             string
	// Hint is advice beyond Calcite's message, such as "Did you mean
	// 'amount'?" for an unknown name (see Suggest); clients print it
	// after the error, never inside Flink's message.
	Hint string
}

// withHint sets the hint of a validation error built by posErr or
// rangeErr; other errors and an empty hint leave err as it is.
func withHint(err error, hint string) error {
	if e, ok := err.(*Error); ok && hint != "" {
		e.Hint = hint
	}
	return err
}

// Error implements error.
func (e *Error) Error() string {
	switch {
	case e.Line <= 0:
		return e.Msg
	case e.EndLine > 0:
		return fmt.Sprintf("From line %d, column %d to line %d, column %d: %s", e.Line, e.Col, e.EndLine, e.EndCol, e.Msg)
	}
	return fmt.Sprintf("At line %d, column %d: %s", e.Line, e.Col, e.Msg)
}

// posErr returns an error at a position: "At line 1, column 8: msg".
func posErr(p ast.Pos, format string, args ...any) error {
	return &Error{Line: p.Line, Col: p.Col, Msg: fmt.Sprintf(format, args...)}
}

// rangeErr returns an error spanning width characters from p: "From line
// 1, column 8 to line 1, column 10: msg".
func rangeErr(p ast.Pos, width int, format string, args ...any) error {
	if width < 1 {
		width = 1
	}
	return &Error{Line: p.Line, Col: p.Col, EndLine: p.Line, EndCol: p.Col + width - 1, Msg: fmt.Sprintf(format, args...)}
}

// unsupported returns a "not supported yet" error.
func unsupported(format string, args ...any) error {
	return fmt.Errorf("not supported yet: "+format, args...)
}
