package validate

import (
	"github.com/tablerun/tablerun/core/types"
)

// entry is one column visible by name in a scope.
type entry struct {
	// qual is the table alias that qualifies the column ("" for none, as
	// for the merged column of a USING join).
	qual string
	name string
	idx  int
	t    types.Type
	// noStar hides the column from * expansion.
	noStar bool
	// qualOnly hides the column from unqualified references.
	qualOnly bool
}

// scope lists the columns an expression may reference. levels are searched
// in order; the first level with a match wins, and two matches in one
// level are ambiguous. parent is the enclosing query's scope (for
// correlated subqueries); crossing it sets *corr.
type scope struct {
	levels [][]entry
	// tables are the table aliases in FROM order (for t.* and qualified
	// names).
	tables []string
	parent *scope
	corr   *bool
}

func newScope(entries []entry) *scope {
	s := &scope{levels: [][]entry{entries}}
	seen := map[string]bool{}
	for _, e := range entries {
		if e.qual != "" && !seen[e.qual] {
			seen[e.qual] = true
			s.tables = append(s.tables, e.qual)
		}
	}
	return s
}

// entries returns the first level (the scope's own columns).
func (s *scope) entries() []entry {
	if len(s.levels) == 0 {
		return nil
	}
	return s.levels[0]
}

func (s *scope) hasTable(q string) bool {
	for _, lvl := range s.levels {
		for _, e := range lvl {
			if e.qual == q {
				return true
			}
		}
	}
	return false
}

// lookupResult is a resolved column reference.
type lookupResult struct {
	e     entry
	depth int // 0: this scope; 1: parent; …
	// rest are trailing name parts naming nested ROW fields.
	rest []string
}

type lookupStatus int

const (
	lookupOK lookupStatus = iota
	lookupNotFound
	lookupAmbiguous
	lookupNoTable
)

// lookup resolves a compound identifier: [table.]column[.field…].
func (s *scope) lookup(parts []string) (lookupResult, lookupStatus) {
	depth := 0
	for sc := s; sc != nil; sc = sc.parent {
		r, st := sc.lookupLocal(parts)
		if st == lookupOK || st == lookupAmbiguous {
			r.depth = depth
			if depth > 0 {
				// mark every scope crossed
				for x := s; x != sc; x = x.parent {
					if x.corr != nil {
						*x.corr = true
					}
				}
			}
			return r, st
		}
		depth++
	}
	if len(parts) > 1 {
		found := false
		for sc := s; sc != nil; sc = sc.parent {
			if sc.hasTable(parts[0]) {
				found = true
			}
		}
		if !found {
			// a column with that name could still be a ROW; report the table
			if _, st := s.lookupCol(parts[:1]); st != lookupOK {
				return lookupResult{}, lookupNoTable
			}
		}
	}
	return lookupResult{}, lookupNotFound
}

func (s *scope) lookupCol(parts []string) (lookupResult, lookupStatus) {
	for sc := s; sc != nil; sc = sc.parent {
		if r, st := sc.lookupLocal(parts); st == lookupOK {
			return r, st
		}
	}
	return lookupResult{}, lookupNotFound
}

func (s *scope) lookupLocal(parts []string) (lookupResult, lookupStatus) {
	for _, lvl := range s.levels {
		// qualified: table.column
		if len(parts) >= 2 {
			var found []entry
			for _, e := range lvl {
				if e.qual == parts[0] && e.name == parts[1] {
					found = append(found, e)
				}
			}
			if len(found) == 1 {
				return lookupResult{e: found[0], rest: parts[2:]}, lookupOK
			}
			if len(found) > 1 {
				return lookupResult{e: found[0]}, lookupAmbiguous
			}
		}
		var found []entry
		for _, e := range lvl {
			if !e.qualOnly && e.name == parts[0] {
				found = append(found, e)
			}
		}
		if len(found) == 1 {
			return lookupResult{e: found[0], rest: parts[1:]}, lookupOK
		}
		if len(found) > 1 {
			return lookupResult{e: found[0]}, lookupAmbiguous
		}
	}
	return lookupResult{}, lookupNotFound
}

// shifted returns entries with idx moved by off.
func shifted(es []entry, off int) []entry {
	out := make([]entry, len(es))
	for i, e := range es {
		e.idx += off
		out[i] = e
	}
	return out
}

// schemaEntries makes scope entries for a relation's schema under alias.
func schemaEntries(s types.Schema, alias string) []entry {
	out := make([]entry, len(s))
	for i, f := range s {
		out[i] = entry{qual: alias, name: f.Name, idx: i, t: f.Type}
	}
	return out
}

// columnNames lists the column names visible from s, this scope's first
// and enclosing scopes after; with qual set only the columns of that
// table alias. They are the candidates of a "did you mean" hint.
func (s *scope) columnNames(qual string) []string {
	var out []string
	for sc := s; sc != nil; sc = sc.parent {
		for _, lvl := range sc.levels {
			for _, e := range lvl {
				if qual != "" && e.qual != qual || qual == "" && e.qualOnly {
					continue
				}
				out = append(out, e.name)
			}
		}
	}
	return out
}

// tableNames lists the table aliases visible from s.
func (s *scope) tableNames() []string {
	var out []string
	for sc := s; sc != nil; sc = sc.parent {
		out = append(out, sc.tables...)
	}
	return out
}
