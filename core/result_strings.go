package core

// StringsResult returns a successful result of one STRING column named
// header with one row per value, like the results of SHOW and EXPLAIN (for
// tools that post-process such a result before printing it).
func StringsResult(header string, values []string) *TableResult {
	return stringResult(header, values)
}
