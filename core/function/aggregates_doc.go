package function

import "strings"

// aggregateDocs documents built-in aggregates added with the function
// library (the core module documents COUNT, SUM, AVG, MIN and MAX itself).
var aggregateDocs = map[string]Doc{
	"STDDEV_POP": {Summary: "Returns the population standard deviation of the non-NULL values; NULL when there are none. Integer input gives an integer result (Flink's reduction to SUM/COUNT arithmetic).",
		Args: "[ ALL | DISTINCT ] numeric", Example: "STDDEV_POP(x)"},
	"STDDEV_SAMP": {Summary: "Returns the sample standard deviation of the non-NULL values; NULL for fewer than two.",
		Args: "[ ALL | DISTINCT ] numeric", Example: "STDDEV_SAMP(x)"},
	"STDDEV": {Summary: "Synonym for STDDEV_SAMP.", Args: "[ ALL | DISTINCT ] numeric", Example: "STDDEV(x)"},
	"VAR_POP": {Summary: "Returns the population variance of the non-NULL values; NULL when there are none.",
		Args: "[ ALL | DISTINCT ] numeric", Example: "VAR_POP(x)"},
	"VAR_SAMP": {Summary: "Returns the sample variance of the non-NULL values; NULL for fewer than two.",
		Args: "[ ALL | DISTINCT ] numeric", Example: "VAR_SAMP(x)"},
	"VARIANCE": {Summary: "Synonym for VAR_SAMP.", Args: "[ ALL | DISTINCT ] numeric", Example: "VARIANCE(x)"},
	"LISTAGG": {Summary: "Concatenates the non-NULL string values in arrival order, separated by separator (',' by default); NULL when there are none.",
		Args: "expression [, separator]", Example: "LISTAGG(name, '; ')"},
	"FIRST_VALUE": {Summary: "Returns the first non-NULL value in arrival order; NULL when there is none.", Args: "value", Example: "FIRST_VALUE(x)"},
	"LAST_VALUE":  {Summary: "Returns the last non-NULL value in arrival order; NULL when there is none.", Args: "value", Example: "LAST_VALUE(x)"},
	// the collecting aggregates and PERCENTILE (aggregates_collect.go)
	"ARRAY_AGG": {Summary: "Collects the input values, NULLs included, into an array in arrival order; NULL when there are no input rows.",
		Args: "[ ALL | DISTINCT ] expression", Example: "ARRAY_AGG(product)"},
	"JSON_ARRAYAGG": {Summary: "Builds a JSON array string of the non-NULL input values in arrival order (ABSENT ON NULL); '[]' when there are none.",
		Args: "item [ { NULL | ABSENT } ON NULL ]", Example: "JSON_ARRAYAGG(product) → '[\"Apple\",\"Banana\"]'"},
	"PERCENTILE": {Summary: "Returns the exact percentile of the numeric values at percentage (a literal in [0.0, 1.0], or an ARRAY of them for an ARRAY<DOUBLE> result), interpolating linearly between the two nearest values; frequency counts a row that many times. Rows with a NULL value or frequency, or a frequency below 1, are ignored; NULL without values.",
		Args: "value, percentage [, frequency]", Example: "PERCENTILE(price, 0.5)"},
	"JSON_OBJECTAGG": {Summary: "Builds a JSON object string from key-value pairs (NULL ON NULL), keys in sorted order; a key that occurs twice is an error.",
		Args: "[KEY] key VALUE value [ { NULL | ABSENT } ON NULL ]", Example: "JSON_OBJECTAGG(KEY product VALUE cnt) → '{\"Apple\":2,\"Banana\":17}'"},
}

// AggregateDoc returns the documentation record of a built-in aggregate
// that the function package documents (case-insensitive name).
func AggregateDoc(name string) (Doc, bool) {
	d, ok := aggregateDocs[strings.ToUpper(name)]
	return d, ok
}
