package catalog

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/tablerun/tablerun/core/types"
)

// ClassFunctionAlreadyExist and ClassFunctionNotExist are the Java classes
// of Flink's catalog function errors.
const (
	ClassFunctionAlreadyExist = "org.apache.flink.table.catalog.exceptions.FunctionAlreadyExistException"
	ClassFunctionNotExist     = "org.apache.flink.table.catalog.exceptions.FunctionNotExistException"
)

// Function is a catalog function as a catalog stores it (Flink's
// CatalogFunction): the definition text, never compiled code. Either
// ClassName is set (the AS 'class' form: a Java class, or 'file.func' for a
// script file) or Body (the inline form with a SQL signature).
type Function struct {
	// Name is the declared name of an inline function (the name its body
	// defines), in its declared case.
	Name string
	// ClassName is the AS 'class' of the class form.
	ClassName string
	// Language is upper case: JAVA, SCALA, PYTHON or JAVASCRIPT.
	Language string
	// Resources are the USING JAR uris.
	Resources []string
	// Kind is "SCALAR", "TABLE" or "AGGREGATE" for inline functions
	// ("" for the class form, whose kind the class decides).
	Kind string
	// Params are the declared parameters of an inline function.
	Params []types.Field
	// Returns is the declared result type of an inline scalar or aggregate
	// function; for a table function a ROW of its output columns.
	Returns types.Type
	// Body is the inline source between $$ and $$.
	Body string
}

// Inline reports whether the function has an inline body.
func (f *Function) Inline() bool { return f.Body != "" }

// Clone returns a deep copy.
func (f *Function) Clone() *Function {
	if f == nil {
		return nil
	}
	c := *f
	c.Resources = append([]string(nil), f.Resources...)
	c.Params = append([]types.Field(nil), f.Params...)
	return &c
}

// FunctionStore is implemented by catalogs that store functions
// (InMemory does). Function names are passed normalised to lower case.
// Errors carry Flink's messages: FunctionNotExist, FunctionAlreadyExist,
// DatabaseNotExist.
type FunctionStore interface {
	// ListFunctions returns the names of the functions of db, sorted.
	ListFunctions(db string) ([]string, error)
	// GetFunction returns a copy of the function at db.name, or an error
	// wrapping ErrNotFound.
	GetFunction(db, name string) (*Function, error)
	// CreateFunction stores a new function.
	CreateFunction(db, name string, f *Function, ignoreIfExists bool) error
	// AlterFunction replaces an existing function.
	AlterFunction(db, name string, f *Function, ignoreIfNotExists bool) error
	// DropFunction removes a function.
	DropFunction(db, name string, ignoreIfNotExists bool) error
}

// FunctionNotExist is Flink's FunctionNotExistException.
func FunctionNotExist(catalog, db, name string) *Error {
	return &Error{Class: ClassFunctionNotExist, Kind: ErrNotFound,
		Msg: fmt.Sprintf("Function %s.%s does not exist in Catalog %s.", db, name, catalog)}
}

// FunctionAlreadyExist is Flink's FunctionAlreadyExistException.
func FunctionAlreadyExist(catalog, db, name string) *Error {
	return &Error{Class: ClassFunctionAlreadyExist, Kind: ErrAlreadyExists,
		Msg: fmt.Sprintf("Function %s.%s already exists in Catalog %s.", db, name, catalog)}
}

// memFunctions holds the functions of InMemory catalogs, per database
// instance (a dropped and re-created database starts without functions).
// It lives beside InMemory so that the catalog's own file stays untouched.
var memFunctions = struct {
	sync.Mutex
	m map[*memDB]map[string]*Function
}{m: map[*memDB]map[string]*Function{}}

// memDatabase returns the live database instance of db.
func (c *InMemory) memDatabase(db string) (*memDB, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	d, ok := c.dbs[db]
	if !ok {
		return nil, DatabaseNotExist(c.name, db)
	}
	return d, nil
}

// ListFunctions implements FunctionStore.
func (c *InMemory) ListFunctions(db string) ([]string, error) {
	d, err := c.memDatabase(db)
	if err != nil {
		return nil, err
	}
	memFunctions.Lock()
	defer memFunctions.Unlock()
	out := make([]string, 0, len(memFunctions.m[d]))
	for k := range memFunctions.m[d] {
		out = append(out, k)
	}
	sort.Strings(out)
	return out, nil
}

// GetFunction implements FunctionStore.
func (c *InMemory) GetFunction(db, name string) (*Function, error) {
	d, err := c.memDatabase(db)
	if err != nil {
		return nil, FunctionNotExist(c.name, db, name)
	}
	memFunctions.Lock()
	defer memFunctions.Unlock()
	f, ok := memFunctions.m[d][strings.ToLower(name)]
	if !ok {
		return nil, FunctionNotExist(c.name, db, name)
	}
	return f.Clone(), nil
}

// CreateFunction implements FunctionStore.
func (c *InMemory) CreateFunction(db, name string, f *Function, ignoreIfExists bool) error {
	d, err := c.memDatabase(db)
	if err != nil {
		return err
	}
	memFunctions.Lock()
	defer memFunctions.Unlock()
	fs := memFunctions.m[d]
	if fs == nil {
		fs = map[string]*Function{}
		memFunctions.m[d] = fs
	}
	key := strings.ToLower(name)
	if _, ok := fs[key]; ok {
		if ignoreIfExists {
			return nil
		}
		return FunctionAlreadyExist(c.name, db, name)
	}
	fs[key] = f.Clone()
	return nil
}

// AlterFunction implements FunctionStore.
func (c *InMemory) AlterFunction(db, name string, f *Function, ignoreIfNotExists bool) error {
	d, err := c.memDatabase(db)
	if err != nil {
		if ignoreIfNotExists {
			return nil
		}
		return FunctionNotExist(c.name, db, name)
	}
	memFunctions.Lock()
	defer memFunctions.Unlock()
	key := strings.ToLower(name)
	if _, ok := memFunctions.m[d][key]; !ok {
		if ignoreIfNotExists {
			return nil
		}
		return FunctionNotExist(c.name, db, name)
	}
	memFunctions.m[d][key] = f.Clone()
	return nil
}

// DropFunction implements FunctionStore.
func (c *InMemory) DropFunction(db, name string, ignoreIfNotExists bool) error {
	d, err := c.memDatabase(db)
	if err != nil {
		if ignoreIfNotExists {
			return nil
		}
		return FunctionNotExist(c.name, db, name)
	}
	memFunctions.Lock()
	defer memFunctions.Unlock()
	key := strings.ToLower(name)
	if _, ok := memFunctions.m[d][key]; !ok {
		if ignoreIfNotExists {
			return nil
		}
		return FunctionNotExist(c.name, db, name)
	}
	delete(memFunctions.m[d], key)
	return nil
}
