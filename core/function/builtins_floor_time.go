package function

import (
	"fmt"
	"strings"
	"time"

	"github.com/tablerun/tablerun/core/types"
)

// floorTimeUnits are the units of FLOOR/CEIL(<datetime> TO <unit>).
var floorTimeUnits = map[string]bool{
	"YEAR": true, "QUARTER": true, "MONTH": true, "WEEK": true, "DAY": true,
	"HOUR": true, "MINUTE": true, "SECOND": true, "MILLISECOND": true,
}

// inferFloorTime types FLOOR/CEIL(x TO unit): x is DATE, TIME, TIMESTAMP or
// TIMESTAMP_LTZ and the result has x's type.
func inferFloorTime(name string, args []types.Type) (types.Type, []types.Type, error) {
	t := args[0]
	switch t.Kind {
	case types.Date, types.Time, types.Timestamp, types.TimestampLTZ:
	default:
		return types.Type{}, nil, CallError(name, args)
	}
	if !args[1].IsString() {
		return types.Type{}, nil, CallError(name, args)
	}
	return t.WithNullable(args[0].Nullable()), nil, nil
}

// floorTime rounds a DATE, TIME, TIMESTAMP or TIMESTAMP_LTZ value down (or
// up, ceil) to a multiple of unit, as Flink's DateTimeUtils does: weeks
// start on Sunday; TIMESTAMP_LTZ is rounded in the session time zone.
func floorTime(ctx *EvalContext, v any, t types.Type, unitV any, ceil bool) (any, error) {
	unit, _ := unitV.(string)
	unit = strings.ToUpper(strings.TrimSpace(unit))
	if !floorTimeUnits[unit] {
		return nil, fmt.Errorf("not supported yet: FLOOR/CEIL to %s", unit)
	}
	var tm time.Time
	switch t.Kind {
	case types.Date:
		d, ok := v.(int32)
		if !ok {
			return nil, fmt.Errorf("internal: DATE value %T", v)
		}
		tm = dateOf(d)
	case types.Time:
		ms, ok := v.(int32)
		if !ok {
			return nil, fmt.Errorf("internal: TIME value %T", v)
		}
		tm = time.UnixMilli(int64(ms)).UTC()
	case types.Timestamp:
		us, ok := v.(int64)
		if !ok {
			return nil, fmt.Errorf("internal: TIMESTAMP value %T", v)
		}
		tm = tsTime(us, t)
	case types.TimestampLTZ:
		us, ok := v.(int64)
		if !ok {
			return nil, fmt.Errorf("internal: TIMESTAMP_LTZ value %T", v)
		}
		tm = ltzTime(ctx, us, t)
	default:
		return nil, fmt.Errorf("internal: FLOOR of %s", t)
	}
	f := floorTimeValue(tm, unit)
	if ceil && !f.Equal(tm) {
		f = addTimeUnit(f, unit)
	}
	switch t.Kind {
	case types.Date:
		return daysOf(f), nil
	case types.Time:
		ms := f.Sub(time.Unix(0, 0).UTC()).Milliseconds()
		return int32(floorMod(ms, 86400000)), nil
	}
	return tsValue(f, t)
}

func floorTimeValue(t time.Time, unit string) time.Time {
	y, m, d := t.Date()
	z := t.Location()
	switch unit {
	case "YEAR":
		return time.Date(y, 1, 1, 0, 0, 0, 0, z)
	case "QUARTER":
		return time.Date(y, (m-1)/3*3+1, 1, 0, 0, 0, 0, z)
	case "MONTH":
		return time.Date(y, m, 1, 0, 0, 0, 0, z)
	case "WEEK":
		return time.Date(y, m, d-int(t.Weekday()), 0, 0, 0, 0, z)
	case "DAY":
		return time.Date(y, m, d, 0, 0, 0, 0, z)
	case "HOUR":
		return time.Date(y, m, d, t.Hour(), 0, 0, 0, z)
	case "MINUTE":
		return time.Date(y, m, d, t.Hour(), t.Minute(), 0, 0, z)
	case "SECOND":
		return time.Date(y, m, d, t.Hour(), t.Minute(), t.Second(), 0, z)
	}
	// MILLISECOND
	return time.Date(y, m, d, t.Hour(), t.Minute(), t.Second(), t.Nanosecond()/1e6*1e6, z)
}

func addTimeUnit(t time.Time, unit string) time.Time {
	switch unit {
	case "YEAR":
		return t.AddDate(1, 0, 0)
	case "QUARTER":
		return t.AddDate(0, 3, 0)
	case "MONTH":
		return t.AddDate(0, 1, 0)
	case "WEEK":
		return t.AddDate(0, 0, 7)
	case "DAY":
		return t.AddDate(0, 0, 1)
	case "HOUR":
		return t.Add(time.Hour)
	case "MINUTE":
		return t.Add(time.Minute)
	case "SECOND":
		return t.Add(time.Second)
	}
	return t.Add(time.Millisecond)
}
