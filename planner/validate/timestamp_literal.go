package validate

import (
	"strconv"
	"strings"
	"time"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/planner/ast"
	"github.com/tablerun/tablerun/planner/logical"
)

// timestampLiteral types TIMESTAMP '…' and TIMESTAMP_LTZ '…' literals:
// the precision is the number of fractional digits (0..9); values of
// precision 7..9 are nanoseconds (types.IsNanoTimestamp), others
// microseconds. TIMESTAMP_LTZ literals are read in the session zone.
func (v *Validator) timestampLiteral(l *ast.Literal) (logical.Expr, error) {
	text := strings.TrimSpace(l.Text)
	micros, p, ok := parseTimestamp(text)
	if !ok {
		return nil, posErr(l.Pos, "Illegal TIMESTAMP literal '%s': not in format 'yyyy-MM-dd HH:mm:ss'", l.Text)
	}
	t := types.TimestampOf(p)
	if l.Kind == ast.TimestampLTZLit {
		t = types.TimestampLTZOf(p)
	}
	secs, frac := micros/1_000_000, micros%1_000_000
	if frac < 0 {
		frac += 1_000_000
		secs--
	}
	nanos := frac * 1000
	if p > 6 {
		if i := strings.LastIndexByte(text, '.'); i >= 0 {
			digits := (text[i+1:] + "000000000")[:9]
			if n, err := strconv.ParseInt(digits, 10, 64); err == nil {
				nanos = n
			}
		}
	}
	wall := time.Unix(secs, nanos).UTC()
	inst := wall
	if l.Kind == ast.TimestampLTZLit {
		inst = time.Date(wall.Year(), wall.Month(), wall.Day(), wall.Hour(), wall.Minute(), wall.Second(), wall.Nanosecond(), v.opts.Loc)
	}
	val, err := types.TimestampFromTime(inst, t)
	if err != nil {
		return nil, posErr(l.Pos, "Illegal TIMESTAMP literal '%s': %s", l.Text, err.Error())
	}
	return &logical.Literal{Value: val, T: notNull(t)}, nil
}
