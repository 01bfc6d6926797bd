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
// registry definitions (the validator handles them by name); Function
// returns a definition of kind Aggregate with their documentation, for
// DESCRIBE FUNCTION.
func (c *Core) Function(name string) (*function.Definition, bool) {
	if !IsCallableName(name) {
		return nil, false
	}
	if d, ok := c.reg.Lookup(name); ok {
		return d, true
	}
	if function.IsAggregate(name) {
		up := strings.ToUpper(name)
		doc, ok := aggregateDocs[up]
		if !ok {
			doc, ok = function.AggregateDoc(up)
		}
		if !ok {
			doc = function.Doc{Summary: "Built-in aggregate function.", Args: "value"}
		}
		return &function.Definition{Name: up, Kind: function.Aggregate, Doc: doc}, true
	}
	return nil, false
}

// aggregateDocs documents the built-in aggregate functions.
var aggregateDocs = map[string]function.Doc{
	"COUNT": {Summary: "Returns the number of rows (COUNT(*)) or of non-NULL values.", Args: "[ ALL | DISTINCT ] value | *", Example: "COUNT(*)"},
	"SUM":   {Summary: "Returns the sum of the non-NULL values; NULL when there are none.", Args: "[ ALL | DISTINCT ] numeric", Example: "SUM(price)"},
	"AVG":   {Summary: "Returns the average (arithmetic mean) of the non-NULL values; NULL when there are none.", Args: "[ ALL | DISTINCT ] numeric", Example: "AVG(price)"},
	"MIN":   {Summary: "Returns the smallest non-NULL value; NULL when there are none.", Args: "[ ALL | DISTINCT ] value", Example: "MIN(price)"},
	"MAX":   {Summary: "Returns the largest non-NULL value; NULL when there are none.", Args: "[ ALL | DISTINCT ] value", Example: "MAX(price)"},
}
