package module

import (
	"sort"
	"strings"
	"unicode"

	"github.com/tablerun/tablerun/core/function"
)

// internalNames are registry entries that implement operators or special
// syntax and cannot be called by name in SQL (AND(a, b) is not SQL).
var internalNames = map[string]bool{
	"AND": true, "OR": true, "NOT": true, "IN": true, "LIKE": true, "NEGATE": true,
}

// Core is the core module: the built-in functions callable by name.
type Core struct {
	reg   *function.Registry
	names []string
}

// NewCore returns the core module over a registry of built-ins.
func NewCore(builtins *function.Registry) *Core {
	c := &Core{reg: builtins}
	for _, n := range builtins.Names() {
		if IsCallableName(n) {
			c.names = append(c.names, strings.ToLower(n))
		}
	}
	for _, n := range function.AggregateNames() {
		c.names = append(c.names, strings.ToLower(n))
	}
	sort.Strings(c.names)
	return c
}

// IsCallableName reports whether a built-in registry name is a function
// SQL calls by name: an identifier that is not an operator's internal name
// ($ROW, NEGATE, AND, …).
func IsCallableName(name string) bool {
	if name == "" || internalNames[strings.ToUpper(name)] {
		return false
	}
	for i, r := range name {
		if !(r == '_' || unicode.IsLetter(r) || (i > 0 && unicode.IsDigit(r))) {
			return false
		}
	}
	return true
}

// ListFunctions implements Module.
func (c *Core) ListFunctions() []string { return append([]string(nil), c.names...) }

// Function implements Module. Built-in aggregates (COUNT, SUM, …) are not
// registry definitions: the validator handles them by name.
func (c *Core) Function(name string) (*function.Definition, bool) {
	if !IsCallableName(name) {
		return nil, false
	}
	return c.reg.Lookup(name)
}

// IsAggregate reports whether name is a built-in aggregate of the module.
func (c *Core) IsAggregate(name string) bool { return function.IsAggregate(name) }
