package build

import (
	"fmt"

	"github.com/tablerun/tablerun/core/function"
	"github.com/tablerun/tablerun/core/types"
)

// unnestRows is Flink's $UNNEST_ROWS$1 (and its WITH ORDINALITY form,
// planner/validate/unnest.go): called with an array it emits one row per
// element (the element's fields when it is a row), with a map one row
// (key, value) per entry; ordinality appends the 1-based position. NULL
// and empty collections emit nothing.
type unnestRows struct {
	rowElems   bool // array of ROW: its fields are the columns
	fields     int  // columns per element row
	ordinality bool
}

func newUnnestRows(arg types.Type, ordinality bool) (unnestRows, error) {
	u := unnestRows{ordinality: ordinality}
	switch arg.Kind {
	case types.Array:
		if arg.Elem.Kind == types.Row {
			u.rowElems, u.fields = true, len(arg.Elem.Fields)
		}
	case types.Map:
	default:
		return u, fmt.Errorf("internal: UNNEST of %s", arg)
	}
	return u, nil
}

// Rows implements udf.TableFunc.
func (u unnestRows) Rows(_ *function.EvalContext, args []any, emit func(row []any) error) error {
	if len(args) != 1 || args[0] == nil {
		return nil
	}
	width := 1
	if u.rowElems {
		width = u.fields
	}
	row := func(i int, vals ...any) []any {
		r := make([]any, 0, len(vals)+1)
		r = append(r, vals...)
		if u.ordinality {
			r = append(r, int32(i+1))
		}
		return r
	}
	switch c := args[0].(type) {
	case []any:
		for i, e := range c {
			var r []any
			switch {
			case !u.rowElems:
				r = row(i, e)
			case e == nil:
				r = row(i, make([]any, width)...)
			default:
				fs, ok := e.([]any)
				if !ok || len(fs) != width {
					return fmt.Errorf("internal: UNNEST element %T", e)
				}
				r = row(i, fs...)
			}
			if err := emit(r); err != nil {
				return err
			}
		}
	case *types.MapValue:
		for i := range c.Keys {
			if err := emit(row(i, c.Keys[i], c.Values[i])); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("internal: UNNEST of a %T value", args[0])
	}
	return nil
}
