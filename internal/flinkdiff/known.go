package flinkdiff

import (
	"regexp"
	"strings"
)

// KnownDifference is an explained difference, listed with its reason in
// docs/flink-differences.md. Match sees a statement whose outcome is
// Differ.
type KnownDifference struct {
	Name  string
	Match func(s *Statement, st *scriptState) bool
}

// scriptState is what earlier statements of a script tell later ones.
type scriptState struct {
	// flinkMissing holds tables (lower-case names) Flink could not create
	// for a known reason, with that reason.
	flinkMissing map[string]string
}

var createTableRE = regexp.MustCompile("(?is)^\\s*CREATE\\s+(?:TEMPORARY\\s+)?(?:SYSTEM\\s+)?(?:TABLE|VIEW|FUNCTION)\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?([`\\w.]+)")

// after records a CREATE (table, view, function) that failed on Flink
// only, for a known reason or not: statements that then fail on Flink for
// want of the object are that CREATE's consequence, not differences of
// their own (the CREATE counts once, as what it is).
func (st *scriptState) after(s *Statement) {
	if (s.Outcome != Known && s.Outcome != Differ) || s.flink == nil || s.flink.err == nil || s.ours == nil || s.ours.err != nil {
		return
	}
	if m := createTableRE.FindStringSubmatch(stripComments(s.SQL)); m != nil {
		name := strings.ToLower(strings.Trim(m[1], "`"))
		if i := strings.LastIndex(name, "."); i >= 0 {
			name = name[i+1:]
		}
		st.flinkMissing[name] = s.Detail
	}
}

func flinkErr(s *Statement, substr string) bool {
	return s.flink != nil && s.flink.err != nil && strings.Contains(s.flink.err.Error(), substr)
}

func oursOK(s *Statement) bool { return s.ours != nil && s.ours.err == nil }

var intervalTypeRE = regexp.MustCompile(`^column \S+ is INTERVAL [A-Z ]+(\(\d+\))?, Flink's INTERVAL (SECOND\(3\)|MONTH)$`)

var wordRE = regexp.MustCompile("[`\\w]+")

// KnownDifferences are the explained differences, in the order of
// docs/flink-differences.md.
var KnownDifferences = []KnownDifference{
	{
		// Flink types a day-time interval result column INTERVAL
		// SECOND(3) and a year-month one INTERVAL MONTH (the planner's
		// conversion from Calcite's interval types); tablerun keeps the
		// literal's qualifier (INTERVAL DAY(2), INTERVAL YEAR(2)). The
		// values agree.
		Name: "interval result types",
		Match: func(s *Statement, _ *scriptState) bool {
			return intervalTypeRE.MatchString(s.Detail)
		},
	},
	{
		// Flink's 'values' connector is test-only (flink-table-planner's
		// test jar); the distribution has none.
		Name: "values connector (test-only in Flink)",
		Match: func(s *Statement, _ *scriptState) bool {
			return flinkErr(s, "Could not find any factory for identifier 'values'")
		},
	},
	{
		// Flink's planner fails to decorrelate an EXISTS subquery under
		// some joins and aggregations (FLINK's "unexpected correlate
		// variable $cor0 in the plan", a TableException at planning);
		// tablerun runs the query.
		Name: "Flink cannot decorrelate the subquery",
		Match: func(s *Statement, _ *scriptState) bool {
			return oursOK(s) && flinkErr(s, "unexpected correlate variable")
		},
	},
	{
		// Flink's 'dummy' module is test-only as well.
		Name: "dummy module (test-only in Flink)",
		Match: func(s *Statement, _ *scriptState) bool {
			return oursOK(s) && (flinkErr(s, "identifier 'dummy' that implements 'org.apache.flink.table.factories.ModuleFactory'") ||
				flinkErr(s, "No module with name 'dummy' exists"))
		},
	},
	{
		// Several statements in one gateway call: Flink's parser refuses
		// them with an IllegalArgumentException at planning, tablerun
		// in its parser, with the same message.
		Name: "several statements in one call",
		Match: func(s *Statement, _ *scriptState) bool {
			return s.ours != nil && s.ours.err != nil && flinkErr(s, "only single statement supported") &&
				strings.Contains(s.ours.err.Error(), "only single statement supported")
		},
	},
	{
		// tablerun's inline script functions (LANGUAGE PYTHON/JAVASCRIPT
		// with the code in the statement) are its own extension.
		Name: "inline script UDFs (tablerun extension)",
		Match: func(s *Statement, _ *scriptState) bool {
			u := strings.ToUpper(s.SQL)
			return oursOK(s) && strings.Contains(u, "FUNCTION") && (strings.Contains(u, "LANGUAGE PYTHON") || strings.Contains(u, "LANGUAGE JAVASCRIPT"))
		},
	},
	{
		// A statement over a table or function Flink could not create
		// fails there with "not found" (see scriptState.after).
		Name: "depends on an object Flink could not create",
		Match: func(s *Statement, st *scriptState) bool {
			if !oursOK(s) || s.flink == nil || s.flink.err == nil {
				return false
			}
			for _, w := range wordRE.FindAllString(s.SQL, -1) {
				if _, ok := st.flinkMissing[strings.ToLower(strings.Trim(w, "`"))]; ok {
					return true
				}
			}
			return false
		},
	},
}

var leadingComments = regexp.MustCompile(`(?s)^(?:\s*--[^\n]*\n|\s*/\*.*?\*/)*`)

// stripComments drops the comments before a statement's first word.
func stripComments(sql string) string { return leadingComments.ReplaceAllString(sql, "") }
