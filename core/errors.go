package core

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/tablerun/tablerun/planner/parser"
	"github.com/tablerun/tablerun/planner/validate"
	"github.com/tablerun/tablerun/vectorized/build"
)

// Java exception classes used to report errors the way Flink's SQL client
// does ("<class>: <message>").
const (
	ClassParse            = "org.apache.flink.sql.parser.impl.ParseException"
	ClassValidation       = "org.apache.flink.table.api.ValidationException"
	ClassTable            = "org.apache.flink.table.api.TableException"
	ClassCatalog          = "org.apache.flink.table.catalog.exceptions.CatalogException"
	ClassTableExists      = "org.apache.flink.table.catalog.exceptions.TableAlreadyExistException"
	ClassTableNotExist    = "org.apache.flink.table.catalog.exceptions.TableNotExistException"
	ClassDatabaseExists   = "org.apache.flink.table.catalog.exceptions.DatabaseAlreadyExistException"
	ClassDatabaseNotExist = "org.apache.flink.table.catalog.exceptions.DatabaseNotExistException"
	ClassDatabaseNotEmpty = "org.apache.flink.table.catalog.exceptions.DatabaseNotEmptyException"
	ClassSQLExecution     = "org.apache.flink.table.gateway.service.utils.SqlExecutionException"
	// ClassRuntime is the class of a job failure that has no more precise
	// Flink class. It is Flink's TableException rather than Java's bare
	// RuntimeException: no message names a java.lang class unless Flink
	// prints that very class for the same failure (the conformance files
	// quote IllegalArgumentException, NumberFormatException…).
	ClassRuntime = "org.apache.flink.table.api.TableException"
	// ClassSQLValidator is the root cause of Calcite's validation errors
	// (the ones with a position: "From line 1, column 8 to …: msg"); Flink's
	// client prints the root cause, without the position.
	ClassSQLValidator = "org.apache.calcite.sql.validate.SqlValidatorException"
)

// ErrorKind says in which step a statement failed.
type ErrorKind uint8

// Error kinds, from the earliest step to the last.
const (
	// KindParse: the SQL text is not valid syntax.
	KindParse ErrorKind = iota
	// KindValidation: names, types or options are wrong (planning time).
	KindValidation
	// KindCatalog: a catalog operation failed (exists / does not exist…).
	KindCatalog
	// KindUnsupported: valid Flink SQL that tablerun does not run yet.
	KindUnsupported
	// KindPlanner: the optimizer or the physical translation failed.
	KindPlanner
	// KindExecution: the job failed while running.
	KindExecution
	// KindInternal: a bug in tablerun (a recovered panic); see ErrInternal.
	KindInternal
)

// Error is the error returned by TableEnvironment for a failed statement.
// Class is the Java exception class Flink reports for the same failure and
// Error() is the message Flink prints after "<class>: ".
type Error struct {
	Kind  ErrorKind
	Class string
	Err   error
	// Stack is the goroutine stack of a recovered panic (KindInternal).
	Stack string
}

// Error returns the message without the class name.
func (e *Error) Error() string { return message(e.Err) }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Reason returns "<class>: <message>", the line the SQL client prints after
// "[ERROR] Could not execute SQL statement. Reason:".
func (e *Error) Reason() string { return e.Class + ": " + e.Error() }

// Operator returns the name of the physical node a runtime error came from
// ("Calc", "HashAggregate", …), or "" when the error is not attributed to
// one. Flink's client prints the bare cause, so Error and Reason leave the
// node out; verbose output can add it.
func (e *Error) Operator() string {
	var oe *build.OperatorError
	if errors.As(e.Err, &oe) {
		return oe.Node
	}
	return ""
}

// Detail returns the full message with what Flink's client leaves out of
// Reason: the position of a validation error ("From line 1, column 8 to
// line 1, column 10: …") and the operator of a runtime error ("Calc: …").
// Verbose output can print it.
func (e *Error) Detail() string {
	msg := e.Err.Error()
	var ve *validate.Error
	if errors.As(e.Err, &ve) && ve.Line > 0 && !strings.Contains(msg, ve.Error()) {
		// errors that print the bare message (validate.NoMatchError)
		msg = strings.Replace(msg, ve.Msg, ve.Error(), 1)
	}
	return msg
}

// javaClasser is implemented by errors that know their Flink exception class.
type javaClasser interface{ JavaClass() string }

// ErrInternal is matched by the error a statement returns when tablerun
// panicked while running it: a bug, never the user's fault. The panic is
// recovered so that a session (and the CLI) survives it.
var ErrInternal = errors.New("internal error")

// recovered turns a panic value into a KindInternal error.
func recovered(r any) *Error {
	return &Error{Kind: KindInternal, Class: ClassTable, Err: fmt.Errorf("%w: %v", ErrInternal, r), Stack: string(debug.Stack())}
}

// ErrNotSupported is matched by errors for features tablerun does not
// support yet; their messages start with "not supported yet: ".
var ErrNotSupported = errors.New("not supported yet")

func unsupported(format string, args ...any) error {
	return &Error{Kind: KindUnsupported, Class: ClassTable, Err: fmt.Errorf("%w: "+format, append([]any{ErrNotSupported}, args...)...)}
}

// Reason formats any error returned by this package as "<class>: <message>".
func Reason(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason()
	}
	return classify(KindExecution, err).Reason()
}

// classify wraps err as an *Error of the given step, choosing the Java class
// from the error itself where it knows better.
func classify(kind ErrorKind, err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var pe *parser.Error
	if errors.As(err, &pe) {
		if pe.Unsupported {
			return &Error{Kind: KindUnsupported, Class: ClassTable, Err: err}
		}
		return &Error{Kind: KindParse, Class: ClassParse, Err: err}
	}
	var ve *validate.Error
	if errors.As(err, &ve) && ve.Line > 0 {
		// Calcite's CalciteContextException (with the position) wraps a
		// SqlValidatorException (without it); the client prints the latter.
		return &Error{Kind: KindValidation, Class: ClassSQLValidator, Err: err}
	}
	var jc javaClasser
	if errors.As(err, &jc) {
		return &Error{Kind: kind, Class: jc.JavaClass(), Err: err}
	}
	msg := err.Error()
	if errors.Is(err, ErrNotSupported) || errors.Is(err, parser.ErrNotSupported) || strings.HasPrefix(msg, "not supported yet") {
		return &Error{Kind: KindUnsupported, Class: ClassTable, Err: err}
	}
	// catalog errors carry their Flink class themselves (*catalog.Error,
	// handled above as javaClasser)
	switch {
	case strings.Contains(msg, "Could not find any factory for identifier"),
		strings.Contains(msg, "Unsupported options found for"),
		strings.Contains(msg, "Missing required options are"),
		strings.Contains(msg, "Table options do not contain an option key 'connector'"):
		// Connector discovery and option validation happen when the job is
		// built, but Flink reports them as planning (validation) errors.
		return &Error{Kind: KindValidation, Class: ClassValidation, Err: err}
	}
	switch kind {
	case KindParse:
		return &Error{Kind: kind, Class: ClassParse, Err: err}
	case KindValidation, KindCatalog:
		return &Error{Kind: kind, Class: ClassValidation, Err: err}
	case KindPlanner:
		return &Error{Kind: kind, Class: ClassTable, Err: err}
	}
	return &Error{Kind: kind, Class: ClassRuntime, Err: err}
}

// message is the text Flink would print: parse errors without the
// "SQL parse failed. " prefix.
func message(err error) string {
	if err == nil {
		return ""
	}
	var pe *parser.Error
	if errors.As(err, &pe) && !pe.Unsupported {
		return strings.TrimPrefix(pe.Error(), "SQL parse failed. ")
	}
	msg := err.Error()
	var ve *validate.Error
	if errors.As(err, &ve) && ve.Line > 0 {
		// "From line 1, column 8 to …: msg" → "msg", as Flink's root cause
		msg = strings.Replace(msg, ve.Error(), ve.Msg, 1)
	}
	var oe *build.OperatorError
	if errors.As(err, &oe) && oe.Node != "" {
		// "Calc: / by zero" → "/ by zero": Flink names no operator.
		msg = strings.Replace(msg, oe.Error(), oe.Err.Error(), 1)
	}
	return msg
}

// ShiftPosition moves the line and column of a parse or validation error
// by the start of the statement inside a larger script (line and col are
// the 1-based position of the statement's first character), so that
// Position, Detail and ErrorContext refer to the script. Other errors are
// returned unchanged.
func ShiftPosition(err error, line, col int) error {
	var pe *parser.Error
	var vw *validate.ViewError
	if errors.As(err, &vw) {
		return err // positions within a view's query stay there
	}
	var le *locatedError
	if errors.As(err, &le) {
		return shiftLocated(err, line, col)
	}
	if !errors.As(err, &pe) || pe.Unsupported || pe.Line <= 0 || (line <= 1 && col <= 1) {
		return shiftValidation(err, line, col)
	}
	c := *pe
	if c.Line == 1 {
		c.Col += col - 1
	}
	c.Line += line - 1
	c.Msg = strings.Replace(c.Msg, fmt.Sprintf("at line %d, column %d", pe.Line, pe.Col),
		fmt.Sprintf("at line %d, column %d", c.Line, c.Col), 1)
	e := classify(KindParse, pe)
	return &Error{Kind: e.Kind, Class: e.Class, Err: &c}
}
