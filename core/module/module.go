// Package module implements Flink's modules: named providers of system
// functions that a session loads (LOAD MODULE), orders and enables (USE
// MODULES) and unloads (UNLOAD MODULE).
//
// Known module types (factory identifiers):
//
//   - core: every built-in function of function.Builtins() that SQL calls
//     by name (UPPER, CONCAT_WS, TO_TIMESTAMP, …). Loaded and used by
//     default, as in Flink. Operators and special syntax (+, =, AND, IS
//     NULL, LIKE, IN, CAST, CASE, …) are part of the SQL language and stay
//     available even when core is unloaded; only calls by name go through
//     the modules.
//   - dummy: a module without functions, like the test module of Flink's
//     SQL client scripts; it is useful to exercise module ordering.
//
// Script modules (a Python or JavaScript file whose functions become the
// module's system functions) are created through a ScriptLoader registered
// with SetScriptLoader: LOAD MODULE text WITH ('type' = 'python', 'path' =
// 'modules/text.py'). Flink itself rejects a 'type' option ("module name is
// used to find module"); tablerun accepts exactly the script types.
package module

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tablerun/tablerun/core/function"
)

// ClassValidation is the Java class Flink reports for module errors.
const ClassValidation = "org.apache.flink.table.api.ValidationException"

// Module provides system functions.
type Module interface {
	// ListFunctions returns the names SHOW FUNCTIONS lists for the module
	// (lower case).
	ListFunctions() []string
	// Function returns the function called name (case-insensitive).
	Function(name string) (*function.Definition, bool)
}

// Factory creates a module from the options of LOAD MODULE … WITH (…).
type Factory func(options map[string]string) (Module, error)

// ScriptLoader creates a script module from a file: lang is "python" or
// "javascript", name the module name, path the 'path' option.
type ScriptLoader func(lang, name, path string, options map[string]string) (Module, error)

// Error is a module error with Flink's message; it reports Flink's Java
// exception class (ValidationException).
type Error struct{ Msg string }

// Error returns the message.
func (e *Error) Error() string { return e.Msg }

// JavaClass returns the Java exception class Flink reports.
func (e *Error) JavaClass() string { return ClassValidation }

func errorf(format string, args ...any) error { return &Error{Msg: fmt.Sprintf(format, args...)} }

// Entry is one loaded module as SHOW FULL MODULES lists it.
type Entry struct {
	Name string
	Used bool
}

// Manager holds the loaded modules of a session: the used ones in
// resolution order, then the loaded but unused ones in load order. It is
// not safe for concurrent use (a session runs one statement at a time).
type Manager struct {
	factories map[string]Factory
	script    ScriptLoader
	modules   map[string]Module
	// loaded lists every loaded module in load order.
	loaded []string
	// used lists the used modules in resolution order.
	used    []string
	version uint64
}

// NewManager returns a manager with the core module (over builtins)
// loaded and used, and the factories core and dummy.
func NewManager(builtins *function.Registry) *Manager {
	m := &Manager{factories: map[string]Factory{}, modules: map[string]Module{}}
	core := NewCore(builtins)
	m.factories["core"] = func(map[string]string) (Module, error) { return core, nil }
	m.factories["dummy"] = func(map[string]string) (Module, error) { return Empty{}, nil }
	m.modules["core"] = core
	m.loaded = []string{"core"}
	m.used = []string{"core"}
	return m
}

// RegisterFactory adds a module type that LOAD MODULE finds by name.
func (m *Manager) RegisterFactory(identifier string, f Factory) {
	m.factories[identifier] = f
}

// SetScriptLoader sets how script modules are created.
func (m *Manager) SetScriptLoader(l ScriptLoader) { m.script = l }

// Version changes whenever the loaded or used modules change.
func (m *Manager) Version() uint64 { return m.version }

// Load loads a module and appends it to the used modules, as LOAD MODULE
// does.
func (m *Manager) Load(name string, options map[string]string) error {
	if _, ok := m.modules[name]; ok {
		return errorf("A module with name '%s' already exists", name)
	}
	var mod Module
	if typ, ok := options["type"]; ok {
		lang := strings.ToLower(typ)
		if lang != "python" && lang != "javascript" {
			return errorf("Option 'type' = '%s' is not supported since module name is used to find module", typ)
		}
		path := options["path"]
		if path == "" {
			return errorf("Script module '%s' needs a 'path' option", name)
		}
		if m.script == nil {
			return fmt.Errorf("not supported yet: %s script modules", lang)
		}
		var err error
		if mod, err = m.script(lang, name, path, options); err != nil {
			return fmt.Errorf("could not load module '%s' from %s: %w", name, path, err)
		}
	} else {
		f, ok := m.factories[name]
		if !ok {
			ids := make([]string, 0, len(m.factories))
			for id := range m.factories {
				ids = append(ids, id)
			}
			sort.Strings(ids)
			return errorf("Could not find any factory for identifier '%s' that implements 'org.apache.flink.table.factories.ModuleFactory' in the classpath.\n\nAvailable factory identifiers are:\n\n%s",
				name, strings.Join(ids, "\n"))
		}
		if len(options) > 0 {
			keys := make([]string, 0, len(options))
			for k := range options {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			return errorf("Unsupported options found for '%s'.\n\nUnsupported options:\n\n%s", name, strings.Join(keys, "\n"))
		}
		var err error
		if mod, err = f(options); err != nil {
			return err
		}
	}
	m.modules[name] = mod
	m.loaded = append(m.loaded, name)
	m.used = append(m.used, name)
	m.version++
	return nil
}

// Unload removes a module; a module with a Close method (a script module
// holding interpreters) is closed.
func (m *Manager) Unload(name string) error {
	if _, ok := m.modules[name]; !ok {
		return errorf("No module with name '%s' exists", name)
	}
	if c, ok := m.modules[name].(interface{ Close() }); ok {
		c.Close()
	}
	delete(m.modules, name)
	m.loaded = remove(m.loaded, name)
	m.used = remove(m.used, name)
	m.version++
	return nil
}

// Use sets the used modules and their resolution order; loaded modules
// not named stay loaded but unused.
func (m *Manager) Use(names ...string) error {
	seen := map[string]bool{}
	for _, n := range names {
		if _, ok := m.modules[n]; !ok {
			return errorf("No module with name '%s' exists", n)
		}
		if seen[n] {
			return errorf("Module '%s' appears more than once", n)
		}
		seen[n] = true
	}
	m.used = append([]string(nil), names...)
	m.version++
	return nil
}

// Used returns the used modules in resolution order (SHOW MODULES).
func (m *Manager) Used() []string {
	out := make([]string, len(m.used))
	copy(out, m.used)
	return out
}

// Full returns every loaded module: the used ones in resolution order,
// then the unused ones in load order (SHOW FULL MODULES).
func (m *Manager) Full() []Entry {
	out := make([]Entry, 0, len(m.loaded))
	used := map[string]bool{}
	for _, n := range m.used {
		out = append(out, Entry{Name: n, Used: true})
		used[n] = true
	}
	for _, n := range m.loaded {
		if !used[n] {
			out = append(out, Entry{Name: n})
		}
	}
	return out
}

// Module returns a loaded module by name.
func (m *Manager) Module(name string) (Module, bool) {
	mod, ok := m.modules[name]
	return mod, ok
}

// LookupFunction finds a system function in the used modules, in
// resolution order, and names the module that provides it.
func (m *Manager) LookupFunction(name string) (*function.Definition, string, bool) {
	for _, n := range m.used {
		if d, ok := m.modules[n].Function(name); ok {
			return d, n, true
		}
	}
	return nil, "", false
}

// ListFunctions returns the functions of the used modules, de-duplicated
// and sorted.
func (m *Manager) ListFunctions() []string {
	set := map[string]bool{}
	for _, n := range m.used {
		for _, f := range m.modules[n].ListFunctions() {
			set[f] = true
		}
	}
	out := make([]string, 0, len(set))
	for f := range set {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

func remove(list []string, name string) []string {
	out := list[:0:0]
	for _, s := range list {
		if s != name {
			out = append(out, s)
		}
	}
	return out
}

// Empty is a module without functions (the dummy module).
type Empty struct{}

// ListFunctions implements Module.
func (Empty) ListFunctions() []string { return nil }

// Function implements Module.
func (Empty) Function(string) (*function.Definition, bool) { return nil, false }
