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
}

// AggregateDoc returns the documentation record of a built-in aggregate
// that the function package documents (case-insensitive name).
func AggregateDoc(name string) (Doc, bool) {
	d, ok := aggregateDocs[strings.ToUpper(name)]
	return d, ok
}
