package function

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/tablerun/tablerun/core/catalog"
)

// This file is the function catalog: user-defined functions (temporary
// system, temporary catalog and catalog functions) and Flink's rules for
// resolving a function reference written in SQL.
//
// Resolution (Flink's FunctionCatalog.lookupFunction):
//
//   - a precise reference (db.f or cat.db.f) is qualified with the current
//     catalog and looked up as 1. the temporary catalog function at that
//     identifier, 2. the catalog function there; system functions are never
//     found this way;
//   - an ambiguous reference (f) is looked up as 1. temporary system
//     function f, 2. system function f of the used modules in module order,
//     3. temporary catalog function at current_catalog.current_database.f,
//     4. catalog function there.
//
// Function names are case-insensitive (normalised to lower case); catalog
// and database names are not.
//
// Call names. A resolved function is registered in the session registry
// (the one the planner and the executor look call names up in) under a key
// that is its logical.Call name: built-ins of the core module keep their
// canonical name ("UPPER"); temporary system functions and functions of
// other modules use their lower-case name, back-quoted ("`upper`") when a
// built-in has the same name so that the built-in's entry and kernels stay
// untouched; catalog functions use "cat.db.f" (Flink's summary string).

// ClassValidation is the Java class of function catalog errors.
const ClassValidation = "org.apache.flink.table.api.ValidationException"

// AggregateNames returns the names of the built-in aggregate functions,
// sorted, upper case.
func AggregateNames() []string {
	out := make([]string, 0, len(aggregateNames))
	for n := range aggregateNames {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// SystemFunctions supplies the system functions of the used modules
// (core/module.Manager implements it).
type SystemFunctions interface {
	// LookupFunction finds a function in the used modules in resolution
	// order and names the module that provides it.
	LookupFunction(name string) (*Definition, string, bool)
	// ListFunctions returns the names of all functions of the used modules.
	ListFunctions() []string
}

// Compiler turns a stored function record into a callable definition. key
// is the name the definition must carry (its logical.Call name); display
// names the function in messages ("func1", "cat.db.func1"). A record that
// cannot be called (a Java class) returns an error starting with "not
// supported yet: ".
type Compiler func(key, display string, rec *catalog.Function) (*Definition, error)

// CatalogError is a function catalog error with Flink's message and Java
// exception class.
type CatalogError struct {
	Class string
	Msg   string
}

// Error returns the message.
func (e *CatalogError) Error() string { return e.Msg }

// JavaClass returns the Java exception class.
func (e *CatalogError) JavaClass() string { return e.Class }

func validationf(format string, args ...any) error {
	return &CatalogError{Class: ClassValidation, Msg: fmt.Sprintf(format, args...)}
}

// FunctionKind says where a resolved function comes from.
type FunctionKind uint8

// Kinds of resolved functions, in ambiguous resolution order.
const (
	TemporarySystem FunctionKind = iota
	System
	TemporaryCatalog
	CatalogFunction
)

// Resolved is a resolved function reference.
type Resolved struct {
	Kind FunctionKind
	// Name is the normalised function name (lower case).
	Name string
	// Module names the module of a system function.
	Module string
	// ID is the identifier of a (temporary) catalog function.
	ID catalog.ObjectIdentifier
	// Record is the stored definition of a user-defined function (nil for
	// system functions).
	Record *catalog.Function
	// Def is the callable definition (Name = its call key); nil when the
	// function cannot be called, and then Err says why.
	Def *Definition
	Err error
}

// Temporary reports a temporary function.
func (r *Resolved) Temporary() bool { return r.Kind == TemporarySystem || r.Kind == TemporaryCatalog }

// IsSystem reports a system function (temporary or from a module): one
// without a catalog namespace.
func (r *Resolved) IsSystem() bool { return r.Kind == TemporarySystem || r.Kind == System }

// Display names the function as Flink's summary: "f" or "cat.db.f".
func (r *Resolved) Display() string {
	if r.IsSystem() {
		return r.Name
	}
	return r.ID.Summary()
}

type userFunction struct {
	rec *catalog.Function
	def *Definition
	err error
}

type cachedFunction struct {
	fingerprint string
	def         *Definition
	err         error
}

// Catalog is the session's function catalog. It is not safe for
// concurrent use (a session runs one statement at a time).
type Catalog struct {
	cat      *catalog.Manager
	modules  SystemFunctions
	reg      *Registry
	builtins *Registry
	compile  Compiler
	// release is called with the definition of a dropped or replaced
	// function (script runtimes free their interpreters).
	release func(*Definition)

	tempSystem  map[string]*userFunction
	tempCatalog map[catalog.ObjectIdentifier]*userFunction
	cache       map[catalog.ObjectIdentifier]*cachedFunction
}

// NewCatalog returns a function catalog. reg is the session registry that
// resolved functions are registered in (the planner and executor look call
// names up there); builtins is a registry of the built-ins that is never
// changed (to detect names that collide with built-ins); compile turns
// stored records into definitions (nil: every user function is "not
// supported yet").
func NewCatalog(cat *catalog.Manager, modules SystemFunctions, reg, builtins *Registry, compile Compiler) *Catalog {
	return &Catalog{
		cat: cat, modules: modules, reg: reg, builtins: builtins, compile: compile,
		tempSystem:  map[string]*userFunction{},
		tempCatalog: map[catalog.ObjectIdentifier]*userFunction{},
		cache:       map[catalog.ObjectIdentifier]*cachedFunction{},
	}
}

// SetRelease sets the hook called with the definitions of dropped or
// replaced functions.
func (c *Catalog) SetRelease(f func(*Definition)) { c.release = f }

// Normalize lower-cases a function name, as Flink's
// FunctionIdentifier.normalizeName.
func Normalize(name string) string { return strings.ToLower(name) }

// systemKey is the call key of a system-level user function.
func (c *Catalog) systemKey(name string) string {
	n := Normalize(name)
	if IsAggregate(n) {
		// built-in aggregates are not registry entries, but executors
		// recognise their names
		return "`" + n + "`"
	}
	if c.builtins != nil {
		if _, ok := c.builtins.Lookup(n); ok {
			return "`" + n + "`"
		}
	}
	return n
}

// ShadowsBuiltin reports whether an ambiguous reference to name resolves to
// something other than the core module's built-in: a temporary system
// function of that name, or a function of a module used before core. The
// validator asks it before treating a built-in aggregate name (SUM, …) as
// the built-in, so that resolution order decides; it costs two map
// look-ups.
func (c *Catalog) ShadowsBuiltin(name string) bool {
	n := Normalize(name)
	if _, ok := c.tempSystem[n]; ok {
		return true
	}
	if c.modules != nil {
		if _, mod, ok := c.modules.LookupFunction(n); ok && mod != "core" {
			return true
		}
	}
	return false
}

func catalogKey(id catalog.ObjectIdentifier) string { return id.Summary() }

func normalizeID(id catalog.ObjectIdentifier) catalog.ObjectIdentifier {
	id.Object = Normalize(id.Object)
	return id
}

func (c *Catalog) compileRecord(key, display string, rec *catalog.Function) (*Definition, error) {
	if c.compile == nil {
		return nil, fmt.Errorf("not supported yet: user-defined functions (%s)", display)
	}
	return c.compile(key, display, rec)
}

// isUnsupported reports an error that only says the function cannot be
// called by tablerun (creating it is still allowed).
func isUnsupported(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "not supported yet")
}

func (c *Catalog) releaseDef(d *Definition) {
	if d != nil && c.release != nil {
		c.release(d)
	}
}

// qualify completes a 1- to 3-part name and normalises the function name.
func (c *Catalog) qualify(parts []string) (catalog.ObjectIdentifier, error) {
	id, err := c.cat.Qualify(parts)
	if err != nil {
		return id, err
	}
	return normalizeID(id), nil
}

// store returns the function store of a catalog.
func (c *Catalog) store(catName string) (catalog.FunctionStore, error) {
	cat, ok := c.cat.Catalog(catName)
	if !ok {
		return nil, validationf("Catalog %s not exists.", catName)
	}
	fs, ok := cat.(catalog.FunctionStore)
	if !ok {
		return nil, fmt.Errorf("not supported yet: functions in catalog '%s' (its type does not store functions)", catName)
	}
	return fs, nil
}

// CreateTemporarySystemFunction registers a temporary system function.
// The record is compiled now (Flink validates temporary functions when
// they are created); a record tablerun cannot call (a Java class) is still
// registered and fails when called.
func (c *Catalog) CreateTemporarySystemFunction(name string, rec *catalog.Function, ignoreIfExists bool) error {
	n := Normalize(name)
	if _, ok := c.tempSystem[n]; ok {
		if ignoreIfExists {
			return nil
		}
		return validationf("Could not register temporary system function. A function named '%s' does already exist.", name)
	}
	def, err := c.compileRecord(c.systemKey(n), n, rec)
	if err != nil && !isUnsupported(err) {
		return wrapImplementation(fmt.Sprintf("Could not register temporary system function '%s' due to implementation errors.", name), err)
	}
	c.tempSystem[n] = &userFunction{rec: rec.Clone(), def: def, err: err}
	return nil
}

// RegisterTemporarySystemFunction registers a ready definition (a Go
// function) as a temporary system function, as Flink's
// createTemporarySystemFunction(name, instance). The definition's Name is
// set to its call key.
func (c *Catalog) RegisterTemporarySystemFunction(name string, def *Definition, ignoreIfExists bool) error {
	n := Normalize(name)
	if def == nil {
		return validationf("Could not register temporary system function '%s': no definition.", name)
	}
	if _, ok := c.tempSystem[n]; ok {
		if ignoreIfExists {
			return nil
		}
		return validationf("Could not register temporary system function. A function named '%s' does already exist.", name)
	}
	def.Name = c.systemKey(n)
	c.tempSystem[n] = &userFunction{def: def}
	return nil
}

// CreateTemporaryCatalogFunction registers a temporary catalog function at
// the qualified name.
func (c *Catalog) CreateTemporaryCatalogFunction(parts []string, rec *catalog.Function, ignoreIfExists bool) error {
	id, err := c.qualify(parts)
	if err != nil {
		return err
	}
	if _, ok := c.tempCatalog[id]; ok {
		if ignoreIfExists {
			return nil
		}
		return validationf("Could not register temporary catalog function. A function '%s' does already exist.", id.Summary())
	}
	def, err := c.compileRecord(catalogKey(id), id.Summary(), rec)
	if err != nil && !isUnsupported(err) {
		return wrapImplementation(fmt.Sprintf("Could not register temporary catalog function '%s' due to implementation errors.", id.Summary()), err)
	}
	c.tempCatalog[id] = &userFunction{rec: rec.Clone(), def: def, err: err}
	return nil
}

// CreateCatalogFunction stores a catalog function. Inline script functions
// are compiled first so that syntax errors are reported now; the catalog
// keeps only the definition text.
func (c *Catalog) CreateCatalogFunction(parts []string, rec *catalog.Function, ignoreIfExists bool) error {
	id, err := c.qualify(parts)
	if err != nil {
		return err
	}
	fs, err := c.store(id.Catalog)
	if err != nil {
		return err
	}
	if _, ok := c.tempCatalog[id]; ok {
		if ignoreIfExists {
			return nil
		}
		return validationf("Could not register catalog function. A temporary function '%s' does already exist. Please drop the temporary function first.", id.Summary())
	}
	if old, err := fs.GetFunction(id.Database, id.Object); err == nil && old != nil {
		if ignoreIfExists {
			return nil
		}
		return validationf("Could not register catalog function. A function '%s' does already exist.", id.Summary())
	}
	if rec.Inline() {
		def, err := c.compileRecord(catalogKey(id), id.Summary(), rec)
		if err != nil && !isUnsupported(err) {
			return wrapImplementation(fmt.Sprintf("Could not register catalog function '%s' due to implementation errors.", id.Summary()), err)
		}
		if err == nil {
			c.cache[id] = &cachedFunction{fingerprint: fingerprint(rec), def: def}
		}
	}
	if err := fs.CreateFunction(id.Database, id.Object, rec, false); err != nil {
		return err
	}
	return nil
}

// AlterCatalogFunction replaces a catalog function's definition.
func (c *Catalog) AlterCatalogFunction(parts []string, rec *catalog.Function, ignoreIfNotExists bool) error {
	id, err := c.qualify(parts)
	if err != nil {
		return err
	}
	fs, err := c.store(id.Catalog)
	if err != nil {
		return err
	}
	if rec.Inline() {
		if _, err := c.compileRecord(catalogKey(id), id.Summary(), rec); err != nil && !isUnsupported(err) {
			return wrapImplementation(fmt.Sprintf("Could not alter catalog function '%s' due to implementation errors.", id.Summary()), err)
		}
	}
	if err := fs.AlterFunction(id.Database, id.Object, rec, ignoreIfNotExists); err != nil {
		if errors.Is(err, catalog.ErrNotFound) {
			// Flink reports the catalog's message as a ValidationException
			return validationf("%s", err.Error())
		}
		return err
	}
	c.dropCache(id)
	return nil
}

// DropTemporarySystemFunction removes a temporary system function.
func (c *Catalog) DropTemporarySystemFunction(name string, ignoreIfNotExists bool) error {
	n := Normalize(name)
	f, ok := c.tempSystem[n]
	if !ok {
		if ignoreIfNotExists {
			return nil
		}
		return validationf("Could not drop temporary system function. A function named '%s' doesn't exist.", name)
	}
	delete(c.tempSystem, n)
	c.releaseDef(f.def)
	return nil
}

// DropTemporaryCatalogFunction removes a temporary catalog function.
func (c *Catalog) DropTemporaryCatalogFunction(parts []string, ignoreIfNotExists bool) error {
	id, err := c.qualify(parts)
	if err != nil {
		return err
	}
	f, ok := c.tempCatalog[id]
	if !ok {
		if ignoreIfNotExists {
			return nil
		}
		raw, _ := c.cat.Qualify(parts)
		return validationf("Temporary catalog function %s doesn't exist", raw.String())
	}
	delete(c.tempCatalog, id)
	c.releaseDef(f.def)
	return nil
}

// DropCatalogFunction removes a catalog function. A temporary function at
// the same identifier must be dropped first.
func (c *Catalog) DropCatalogFunction(parts []string, ignoreIfNotExists bool) error {
	id, err := c.qualify(parts)
	if err != nil {
		return err
	}
	if _, ok := c.tempCatalog[id]; ok {
		return validationf("Could not drop catalog function. A temporary function '%s' does already exist. Please drop the temporary function first.", id.Summary())
	}
	cat, ok := c.cat.Catalog(id.Catalog)
	var fs catalog.FunctionStore
	if ok {
		fs, _ = cat.(catalog.FunctionStore)
	}
	exists := false
	if fs != nil {
		_, gerr := fs.GetFunction(id.Database, id.Object)
		if gerr != nil && !errors.Is(gerr, catalog.ErrNotFound) {
			return gerr // unreadable metadata: the catalog's error names the file
		}
		exists = gerr == nil
	}
	if !exists {
		if ignoreIfNotExists {
			return nil
		}
		return validationf("Could not drop catalog function. A function '%s' doesn't exist.", id.Summary())
	}
	if err := fs.DropFunction(id.Database, id.Object, ignoreIfNotExists); err != nil {
		return err
	}
	c.dropCache(id)
	return nil
}

func (c *Catalog) dropCache(id catalog.ObjectIdentifier) {
	if e, ok := c.cache[id]; ok {
		c.releaseDef(e.def)
		delete(c.cache, id)
	}
}

// HasTemporaryCatalogFunction reports a temporary catalog function at the
// qualified name.
func (c *Catalog) HasTemporaryCatalogFunction(parts []string) bool {
	id, err := c.qualify(parts)
	if err != nil {
		return false
	}
	_, ok := c.tempCatalog[id]
	return ok
}

// Lookup resolves a function reference with Flink's rules. It returns
// (nil, nil) when nothing matches. A found function that cannot be called
// has a nil Def and its reason in Err.
func (c *Catalog) Lookup(parts []string) (*Resolved, error) {
	switch len(parts) {
	case 1:
		return c.lookupAmbiguous(parts[0])
	case 2, 3:
		id, err := c.qualify(parts)
		if err != nil {
			return nil, err
		}
		return c.lookupPrecise(id)
	}
	return nil, validationf("Function identifier can have 1 to 3 parts, got %d", len(parts))
}

func (c *Catalog) lookupAmbiguous(name string) (*Resolved, error) {
	n := Normalize(name)
	if f, ok := c.tempSystem[n]; ok {
		return &Resolved{Kind: TemporarySystem, Name: n, Record: f.rec, Def: f.def, Err: f.err}, nil
	}
	if c.modules != nil {
		if d, mod, ok := c.modules.LookupFunction(n); ok {
			r := &Resolved{Kind: System, Name: n, Module: mod, Def: d}
			if mod != "core" && d != nil {
				// script runtimes key their implementations by the
				// definition pointer, so the key is set in place (it is
				// the same for every lookup of n)
				d.Name = c.systemKey(n)
			}
			return r, nil
		}
	}
	cur, db := c.cat.Current()
	if cur == "" || db == "" {
		return nil, nil
	}
	return c.lookupPrecise(catalog.ObjectIdentifier{Catalog: cur, Database: db, Object: n})
}

func (c *Catalog) lookupPrecise(id catalog.ObjectIdentifier) (*Resolved, error) {
	id = normalizeID(id)
	if f, ok := c.tempCatalog[id]; ok {
		return &Resolved{Kind: TemporaryCatalog, Name: id.Object, ID: id, Record: f.rec, Def: f.def, Err: f.err}, nil
	}
	cat, ok := c.cat.Catalog(id.Catalog)
	if !ok {
		return nil, nil
	}
	fs, ok := cat.(catalog.FunctionStore)
	if !ok {
		return nil, nil
	}
	rec, err := fs.GetFunction(id.Database, id.Object)
	if err != nil {
		if errors.Is(err, catalog.ErrNotFound) {
			return nil, nil
		}
		return nil, err
	}
	r := &Resolved{Kind: CatalogFunction, Name: id.Object, ID: id, Record: rec}
	fp := fingerprint(rec)
	if e, ok := c.cache[id]; ok && e.fingerprint == fp {
		r.Def, r.Err = e.def, e.err
		return r, nil
	}
	c.dropCache(id)
	def, cerr := c.compileRecord(catalogKey(id), id.Summary(), rec)
	c.cache[id] = &cachedFunction{fingerprint: fp, def: def, err: cerr}
	r.Def, r.Err = def, cerr
	return r, nil
}

// Resolve resolves a function call for the planner: it returns the
// definition to call, registered in the session registry under its call
// key, or (nil, nil) when no function matches. A function that exists but
// cannot be called returns its error.
func (c *Catalog) Resolve(parts []string) (*Definition, error) {
	r, err := c.Lookup(parts)
	if err != nil || r == nil {
		return nil, err
	}
	if r.Def == nil {
		if r.Err != nil {
			return nil, r.Err
		}
		return nil, fmt.Errorf("not supported yet: calling function '%s'", r.Display())
	}
	if r.Kind != System || r.Module != "core" {
		if cur, ok := c.reg.Lookup(r.Def.Name); !ok || cur != r.Def {
			c.reg.Register(r.Def)
		}
	}
	return r.Def, nil
}

// UserFunctions returns the names of the user-defined functions visible
// from catalog.database (SHOW USER FUNCTIONS): temporary system
// functions, temporary catalog functions and catalog functions of that
// database. The database must exist.
func (c *Catalog) UserFunctions(catName, db string) ([]string, error) {
	set := map[string]bool{}
	for n := range c.tempSystem {
		set[n] = true
	}
	for id := range c.tempCatalog {
		if id.Catalog == catName && id.Database == db {
			set[id.Object] = true
		}
	}
	if cat, ok := c.cat.Catalog(catName); ok {
		if fs, ok := cat.(catalog.FunctionStore); ok {
			names, err := fs.ListFunctions(db)
			if err != nil && !errors.Is(err, catalog.ErrNotFound) {
				return nil, err
			}
			for _, n := range names {
				set[n] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
}

// Functions returns the user-defined functions of catalog.database plus
// the system functions of the used modules (SHOW FUNCTIONS).
func (c *Catalog) Functions(catName, db string) ([]string, error) {
	user, err := c.UserFunctions(catName, db)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, n := range user {
		set[n] = true
	}
	if c.modules != nil {
		for _, n := range c.modules.ListFunctions() {
			set[n] = true
		}
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
}

// fingerprint identifies a stored record's content.
func fingerprint(rec *catalog.Function) string {
	return fmt.Sprintf("%q|%q|%q|%q|%q|%v|%s|%q", rec.Name, rec.ClassName, rec.Language, rec.Kind, rec.Resources, rec.Params, rec.Returns.String(), rec.Body)
}

// implementationError wraps a compile failure under Flink's "due to
// implementation errors" message, keeping the cause readable.
type implementationError struct {
	msg   string
	cause error
}

func (e *implementationError) Error() string     { return e.msg + " Cause: " + e.cause.Error() }
func (e *implementationError) Unwrap() error     { return e.cause }
func (e *implementationError) JavaClass() string { return ClassValidation }

func wrapImplementation(msg string, cause error) error {
	return &implementationError{msg: msg, cause: cause}
}
