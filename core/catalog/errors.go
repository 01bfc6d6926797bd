package catalog

import (
	"errors"
	"fmt"
)

// Errors that callers test with errors.Is.
var (
	ErrNotFound      = errors.New("not found")
	ErrAlreadyExists = errors.New("already exists")
	// ErrNotEmpty is matched by DROP DATABASE of a database that still
	// holds objects (without CASCADE).
	ErrNotEmpty = errors.New("not empty")
	// ErrCorrupt is matched by errors about unreadable metadata of a
	// persistent catalog.
	ErrCorrupt = errors.New("corrupt catalog metadata")
)

// Java exception classes of Flink's catalog layer, reported by JavaClass.
const (
	ClassCatalogException     = "org.apache.flink.table.catalog.exceptions.CatalogException"
	ClassTableAlreadyExist    = "org.apache.flink.table.catalog.exceptions.TableAlreadyExistException"
	ClassTableNotExist        = "org.apache.flink.table.catalog.exceptions.TableNotExistException"
	ClassDatabaseAlreadyExist = "org.apache.flink.table.catalog.exceptions.DatabaseAlreadyExistException"
	ClassDatabaseNotExist     = "org.apache.flink.table.catalog.exceptions.DatabaseNotExistException"
	ClassDatabaseNotEmpty     = "org.apache.flink.table.catalog.exceptions.DatabaseNotEmptyException"
	ClassValidationException  = "org.apache.flink.table.api.ValidationException"
)

// Error is a catalog failure carrying Flink's exact message and the Java
// exception class Flink reports for it. It matches ErrNotFound,
// ErrAlreadyExists, ErrNotEmpty or ErrCorrupt with errors.Is where that
// applies.
type Error struct {
	// Class is the fully qualified Java exception class.
	Class string
	// Msg is Flink's message, e.g. "Database db1 does not exist in Catalog c."
	Msg string
	// Kind is the sentinel the error matches (nil for none).
	Kind error
	// Cause is an underlying error (an I/O failure, a JSON syntax error).
	Cause error
}

// Error returns the message.
func (e *Error) Error() string { return e.Msg }

// JavaClass returns the Java exception class Flink reports.
func (e *Error) JavaClass() string { return e.Class }

// Unwrap returns the sentinel kind and the cause.
func (e *Error) Unwrap() []error {
	var out []error
	if e.Kind != nil {
		out = append(out, e.Kind)
	}
	if e.Cause != nil {
		out = append(out, e.Cause)
	}
	return out
}

// DatabaseNotExist is Flink's DatabaseNotExistException.
func DatabaseNotExist(catalog, db string) *Error {
	return &Error{Class: ClassDatabaseNotExist, Kind: ErrNotFound,
		Msg: fmt.Sprintf("Database %s does not exist in Catalog %s.", db, catalog)}
}

// DatabaseAlreadyExist is Flink's DatabaseAlreadyExistException.
func DatabaseAlreadyExist(catalog, db string) *Error {
	return &Error{Class: ClassDatabaseAlreadyExist, Kind: ErrAlreadyExists,
		Msg: fmt.Sprintf("Database %s already exists in Catalog %s.", db, catalog)}
}

// DatabaseNotEmpty is Flink's DatabaseNotEmptyException.
func DatabaseNotEmpty(catalog, db string) *Error {
	return &Error{Class: ClassDatabaseNotEmpty, Kind: ErrNotEmpty,
		Msg: fmt.Sprintf("Database %s in catalog %s is not empty.", db, catalog)}
}

// TableNotExist is Flink's TableNotExistException.
func TableNotExist(catalog, db, name string) *Error {
	return &Error{Class: ClassTableNotExist, Kind: ErrNotFound,
		Msg: fmt.Sprintf("Table (or view) %s.%s does not exist in Catalog %s.", db, name, catalog)}
}

// TableAlreadyExist is Flink's TableAlreadyExistException.
func TableAlreadyExist(catalog, db, name string) *Error {
	return &Error{Class: ClassTableAlreadyExist, Kind: ErrAlreadyExists,
		Msg: fmt.Sprintf("Table (or view) %s.%s already exists in Catalog %s.", db, name, catalog)}
}

// catalogErr is a CatalogException with a formatted message.
func catalogErr(kind error, format string, args ...any) *Error {
	return &Error{Class: ClassCatalogException, Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// validationErr is a ValidationException with a formatted message.
func validationErr(kind error, format string, args ...any) *Error {
	return &Error{Class: ClassValidationException, Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// CatalogException returns a CatalogException with Flink's message msg.
func CatalogException(msg string) *Error {
	return &Error{Class: ClassCatalogException, Msg: msg}
}
