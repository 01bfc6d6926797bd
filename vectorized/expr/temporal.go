package expr

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/tablerun/tablerun/core/types"
)

// fieldNode extracts a calendar or clock field of DATE or TIMESTAMP values
// (YEAR(x), EXTRACT(MONTH FROM x), …) as BIGINT, with integer civil-date
// arithmetic instead of time.Time per row. TIMESTAMP_LTZ (which depends on
// the session zone) and the rarer units use the generic path.
type fieldNode struct {
	unit string
	arg  node
	t    types.Type
}

var fieldUnits = map[string]string{
	"YEAR": "YEAR", "QUARTER": "QUARTER", "MONTH": "MONTH", "DAYOFMONTH": "DAY", "DAYOFYEAR": "DOY",
	"DAYOFWEEK": "DOW", "HOUR": "HOUR", "MINUTE": "MINUTE", "SECOND": "SECOND",
}

var extractUnits = map[string]bool{
	"YEAR": true, "QUARTER": true, "MONTH": true, "DAY": true, "DOY": true, "DOW": true,
	"HOUR": true, "MINUTE": true, "SECOND": true,
}

// newField returns a kernel for name(args), or nil.
func newField(name string, args []node, t types.Type) node {
	var unit string
	var arg node
	if name == "EXTRACT" {
		l, ok := args[0].(*litNode)
		if !ok || l.v == nil {
			return nil
		}
		s, _ := l.v.(string)
		unit = strings.ToUpper(s)
		if !extractUnits[unit] {
			return nil
		}
		arg = args[1]
	} else {
		unit = fieldUnits[name]
		if unit == "" || len(args) != 1 {
			return nil
		}
		arg = args[0]
	}
	if k := arg.typ().Kind; k != types.Date && k != types.Timestamp {
		return nil
	}
	if t.Kind != types.BigInt {
		return nil
	}
	return &fieldNode{unit: unit, arg: arg, t: t}
}

func (n *fieldNode) typ() types.Type { return n.t }
func (n *fieldNode) canFail() bool   { return n.arg.canFail() }

// civil converts days since 1970-01-01 to year, month, day (proleptic
// Gregorian; H. Hinnant's days_from_civil inverse).
func civil(z int64) (y, m, d int64) {
	z += 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	if mp < 10 {
		m = mp + 3
	} else {
		m = mp - 9
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

func isLeap(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

var cumDays = [13]int64{0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334}

func (n *fieldNode) eval(rec arrow.RecordBatch, mem memory.Allocator) (arrow.Array, error) {
	rows := int(rec.NumRows())
	a, err := n.arg.eval(rec, scratch)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	validity, nulls := validityOf(mem, rows, a)
	buf, out := newFixed[int64](mem, rows)
	isDate := n.arg.typ().Kind == types.Date
	isNano := types.IsNanoTimestamp(n.arg.typ())
	var days []int32
	var micros []int64
	if isDate {
		days = numValues[int32](a)
	} else {
		micros = numValues[int64](a)
	}
	for i := 0; i < rows; i++ {
		var day, us int64 // day number and microsecond of the day
		if isDate {
			day = int64(days[i])
		} else {
			v := micros[i]
			if isNano { // TIMESTAMP(7..9) values are nanoseconds
				v /= 1000
				if micros[i]%1000 < 0 {
					v--
				}
			}
			day = v / microsPerDayX
			us = v % microsPerDayX
			if us < 0 {
				us += microsPerDayX
				day--
			}
		}
		var r int64
		switch n.unit {
		case "HOUR":
			r = us / 3_600_000_000
		case "MINUTE":
			r = us / 60_000_000 % 60
		case "SECOND":
			r = us / 1_000_000 % 60
		case "DOW":
			// 1970-01-01 was a Thursday (5 with Sunday = 1).
			r = (day+4)%7 + 1
			if r <= 0 {
				r += 7
			}
		default:
			y, m, d := civil(day)
			switch n.unit {
			case "YEAR":
				r = y
			case "QUARTER":
				r = (m-1)/3 + 1
			case "MONTH":
				r = m
			case "DAY":
				r = d
			case "DOY":
				r = cumDays[m] + d
				if m > 2 && isLeap(y) {
					r++
				}
			}
		}
		out[i] = r
	}
	return finish(arrow.PrimitiveTypes.Int64, rows, validity, nulls, []*memory.Buffer{buf}, nil), nil
}

const microsPerDayX = int64(86_400_000_000)
