package parser

import "github.com/tablerun/tablerun/planner/ast"

// parseStopJob parses the rest of STOP JOB 'id' [WITH SAVEPOINT]
// [WITH DRAIN] (after JOB).
func (p *parser) parseStopJob(pos ast.Pos) (ast.Statement, error) {
	id, err := p.stringLit()
	if err != nil {
		return nil, err
	}
	s := &ast.StopJob{Pos: pos, ID: id}
	for p.isKw("WITH") {
		switch {
		case p.acceptKws("WITH", "SAVEPOINT") && !s.Savepoint:
			s.Savepoint = true
		case p.acceptKws("WITH", "DRAIN") && !s.Drain:
			s.Drain = true
		default:
			p.p++
			return nil, p.errUnexpected(`"SAVEPOINT"`, `"DRAIN"`)
		}
	}
	return s, nil
}
