package function

import "sync"

// Builtins returns a new registry holding every built-in scalar function
// and operator, registered under its canonical upper-case name.
//
// Operators (names as in planner/logical.Call): "+", "-", "*", "/", "MOD",
// "NEGATE", "=", "<>", "<", "<=", ">", ">=", "AND", "OR", "NOT",
// "IS NULL", "IS NOT NULL", "IS TRUE", "IS NOT TRUE", "IS FALSE",
// "IS NOT FALSE", "IS DISTINCT FROM", "IS NOT DISTINCT FROM",
// "LIKE" (value, pattern [, escape]), "IN" (value, items…), "CONCAT" (also
// for ||), "COALESCE", "NULLIF", "$FIELD", "$ITEM", "$ROW", "$ARRAY",
// "$MAP". CASE and CAST are not functions: the evaluators handle them.
//
// Calling conventions the validator must follow:
//
//   - TRIM: name "TRIM", arguments (mode, chars, str) where mode is a STRING
//     literal 'BOTH', 'LEADING' or 'TRAILING' and chars the characters to
//     strip (' ' when the SQL omits it). LTRIM(str) / RTRIM(str) take one
//     argument (strip spaces); LTRIM(str, chars) / RTRIM(str, chars) two.
//     BTRIM(str[, chars]) is TRIM BOTH.
//   - EXTRACT: name "EXTRACT", arguments (unit, x) where unit is a STRING
//     literal: 'MILLENNIUM', 'CENTURY', 'DECADE', 'YEAR', 'QUARTER',
//     'MONTH', 'WEEK', 'DAY', 'DOW', 'DOY', 'HOUR', 'MINUTE', 'SECOND',
//     'MILLISECOND', 'MICROSECOND', 'EPOCH'. Result BIGINT.
//   - TIMESTAMPADD(unit, n, ts) and TIMESTAMPDIFF(unit, ts1, ts2): unit is a
//     STRING literal ('YEAR', 'QUARTER', 'MONTH', 'WEEK', 'DAY', 'HOUR',
//     'MINUTE', 'SECOND', 'MILLISECOND', 'MICROSECOND', and the SQL_TSI_*
//     spellings).
//   - FLOOR(x TO unit) / CEIL(x TO unit): name "FLOOR"/"CEIL" with
//     arguments (x, unit) where x is a DATE, TIME, TIMESTAMP or
//     TIMESTAMP_LTZ and unit a STRING literal ('YEAR', 'QUARTER', 'MONTH',
//     'WEEK', 'DAY', 'HOUR', 'MINUTE', 'SECOND', 'MILLISECOND').
//   - POSITION(needle IN haystack): name "POSITION", arguments (needle,
//     haystack) (1-based; 0 when absent).
//   - SUBSTRING(s FROM a [FOR n]): name "SUBSTRING", arguments (s, a[, n]).
//   - OVERLAY is not supported yet.
//   - $FIELD(row, INT literal index): the result type depends on the index,
//     so the validator sets Call.T itself; Infer only checks that the first
//     argument is a ROW and returns the type of field 0.
//   - ROUND(x, r) / TRUNCATE(x, r) with x DECIMAL(p, s) and r an INT
//     literal: set Call.T = RoundDecimalType(x's type, r) (Infer cannot see
//     r and keeps DECIMAL(p, s) for the two-argument form).
//   - $ITEM(array, index) is 1-based and NULL when out of range;
//     $ITEM(map, key) is NULL for a missing key.
//   - $ROW(args…) names its fields EXPR$0, EXPR$1, … (the validator may
//     rename them); $MAP(k1, v1, k2, v2, …).
//   - Functions whose Infer returns argument types ask for casts: the
//     validator wraps those arguments in logical.Cast (for example both
//     operands of a comparison are cast to their common type, so Eval
//     sees equal types).
//
// Every registry Builtins returns holds the same definitions (built once,
// never changed after): a call the planner synthesises carries one of the
// handles of synthesised.go and is the same definition a session's
// registry resolves the name to.
func Builtins() *Registry {
	shared := builtinDefs()
	r := NewRegistry()
	for k, d := range shared.defs {
		r.defs[k] = d
	}
	return r
}

// builtinDefs builds the built-in definitions once.
var builtinDefs = sync.OnceValue(newBuiltins)

func newBuiltins() *Registry {
	r := NewRegistry()
	registerOperators(r)
	registerString(r)
	registerMath(r)
	registerTemporal(r)
	registerMisc(r)
	registerJSON(r)           // builtins_json.go
	registerJSONQueryArray(r) // builtins_json_array.go
	registerCollections(r)
	registerString2(r)                    // builtins_string2.go
	registerSession(r)                    // builtins_string2.go
	registerHashCode(r)                   // hash_code.go
	for _, d := range collectionDefs2() { // builtins_collections2.go
		r.Register(d)
	}
	return r
}
