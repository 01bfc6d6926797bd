package function

import "fmt"

// The built-in definitions the planner synthesises calls to (equi-join
// conditions, conjunctions, the distinct split's bucket, the streaming
// set operations' conditions, …). A synthesised logical.Call carries one
// of these as its Def, as a call the validator resolved carries the
// definition it found, so no later stage resolves a name.
var (
	OpEquals     = builtin("=")
	OpAnd        = builtin("AND")
	OpOr         = builtin("OR")
	OpIsNull     = builtin("IS NULL")
	OpIsNotFalse = builtin("IS NOT FALSE")
	OpIn         = builtin("IN")
	OpGreater    = builtin(">")
	OpGreaterEq  = builtin(">=")
	FnIf         = builtin("IF")
	OpMod        = builtin("MOD")
	OpField      = builtin("$FIELD")
	FnHashCode   = builtin("HASH_CODE")
)

// builtin returns the built-in registered under name; a name that is not
// one is a bug in this file, found by the package's first test.
func builtin(name string) *Definition {
	d, ok := builtinDefs().defs[name]
	if !ok {
		panic(fmt.Sprintf("function: no built-in %q to synthesise calls to", name))
	}
	return d
}

// Builtin returns the built-in definition registered under name (case
// insensitive), or false. It is for tests and tools that build calls by
// name; the planner uses the handles above.
func Builtin(name string) (*Definition, bool) {
	return builtinDefs().Lookup(name)
}

// Internal returns the definition of a function only the planner and the
// executor know (a marker the translation consumes, such as
// __TEMPORAL_JOIN_CONDITION, or a table function the Correlate builder
// implements itself, such as $UNNEST_ROWS$1). It is never registered: it
// has no type inference and no row-wise implementation, and it counts as
// nondeterministic so that no rule folds, moves or duplicates it.
func Internal(name string, kind Kind) *Definition {
	return &Definition{Name: name, Kind: kind, Nondeterministic: true}
}

// The built-in aggregates the planner synthesises calls to (the streaming
// set operations' counts, the distinct split's final SUM, the decorrelated
// IN's counts).
var (
	AggCount = builtinAggregate("COUNT")
	AggSum   = builtinAggregate("SUM")
)

func builtinAggregate(name string) *Definition {
	d, ok := builtinAggregates()[name]
	if !ok {
		panic(fmt.Sprintf("function: no built-in aggregate %q to synthesise calls to", name))
	}
	return d
}
