package python

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-python/gpython/py"
)

// A datetime module for UDFs: date, datetime (naive, no tzinfo) and
// timedelta with the common constructors, attributes, arithmetic,
// comparisons, isoformat/strftime/strptime/fromisoformat. SQL DATE and
// TIMESTAMP arguments still arrive as ISO strings; parse them with
// date.fromisoformat / datetime.fromisoformat. date and datetime objects
// are accepted as DATE / TIMESTAMP results.

var (
	dateType     = py.NewTypeX("datetime.date", "date(year, month, day)", dateNew, nil)
	datetimeType = py.NewTypeX("datetime.datetime", "datetime(year, month, day[, hour[, minute[, second[, microsecond]]]])", datetimeNew, nil)
	deltaType    = py.NewTypeX("datetime.timedelta", "timedelta(days=0, seconds=0, microseconds=0, milliseconds=0, minutes=0, hours=0, weeks=0)", deltaNew, nil)
)

// pyDate is a datetime.date (t at UTC midnight).
type pyDate struct{ t time.Time }

// pyDatetime is a naive datetime.datetime (wall clock kept in UTC).
type pyDatetime struct{ t time.Time }

// pyDelta is a datetime.timedelta.
type pyDelta struct{ d time.Duration }

// Type implements py.Object.
func (d *pyDate) Type() *py.Type { return dateType }

// Type implements py.Object.
func (d *pyDatetime) Type() *py.Type { return datetimeType }

// Type implements py.Object.
func (d *pyDelta) Type() *py.Type { return deltaType }

func intArgs(fn string, args py.Tuple, kwargs py.StringDict, names []string, required int, defs []int) ([]int, error) {
	out := make([]int, len(names))
	copy(out, defs)
	if len(args) > len(names) {
		return nil, py.ExceptionNewf(py.TypeError, "%s() takes at most %d arguments (%d given)", fn, len(names), len(args))
	}
	set := make([]bool, len(names))
	for i, a := range args {
		n, ok := a.(py.Int)
		if !ok {
			return nil, py.ExceptionNewf(py.TypeError, "%s() argument %d must be int, not %s", fn, i+1, a.Type().Name)
		}
		out[i], set[i] = int(n), true
	}
	for k, v := range kwargs {
		idx := -1
		for i, name := range names {
			if name == k {
				idx = i
			}
		}
		if idx < 0 {
			return nil, py.ExceptionNewf(py.TypeError, "%s() got an unexpected keyword argument '%s'", fn, k)
		}
		n, ok := v.(py.Int)
		if !ok {
			return nil, py.ExceptionNewf(py.TypeError, "%s() argument '%s' must be int", fn, k)
		}
		out[idx], set[idx] = int(n), true
	}
	for i := 0; i < required; i++ {
		if !set[i] {
			return nil, py.ExceptionNewf(py.TypeError, "%s() missing required argument '%s'", fn, names[i])
		}
	}
	return out, nil
}

func validDate(fn string, y, m, d int) error {
	if y < 1 || y > 9999 {
		return py.ExceptionNewf(py.ValueError, "year %d is out of range", y)
	}
	if m < 1 || m > 12 {
		return py.ExceptionNewf(py.ValueError, "month must be in 1..12")
	}
	if d < 1 || d > time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day() {
		return py.ExceptionNewf(py.ValueError, "day is out of range for month")
	}
	return nil
}

func dateNew(_ *py.Type, args py.Tuple, kwargs py.StringDict) (py.Object, error) {
	v, err := intArgs("date", args, kwargs, []string{"year", "month", "day"}, 3, nil)
	if err != nil {
		return nil, err
	}
	if err := validDate("date", v[0], v[1], v[2]); err != nil {
		return nil, err
	}
	return &pyDate{t: time.Date(v[0], time.Month(v[1]), v[2], 0, 0, 0, 0, time.UTC)}, nil
}

func datetimeNew(_ *py.Type, args py.Tuple, kwargs py.StringDict) (py.Object, error) {
	v, err := intArgs("datetime", args, kwargs, []string{"year", "month", "day", "hour", "minute", "second", "microsecond"}, 3, []int{0, 0, 0, 0, 0, 0, 0})
	if err != nil {
		return nil, err
	}
	if err := validDate("datetime", v[0], v[1], v[2]); err != nil {
		return nil, err
	}
	if v[3] < 0 || v[3] > 23 || v[4] < 0 || v[4] > 59 || v[5] < 0 || v[5] > 59 || v[6] < 0 || v[6] > 999999 {
		return nil, py.ExceptionNewf(py.ValueError, "time field out of range")
	}
	return &pyDatetime{t: time.Date(v[0], time.Month(v[1]), v[2], v[3], v[4], v[5], v[6]*1000, time.UTC)}, nil
}

func numArg(o py.Object) (float64, bool) {
	switch x := o.(type) {
	case py.Int:
		return float64(x), true
	case py.Float:
		return float64(x), true
	}
	return 0, false
}

func deltaNew(_ *py.Type, args py.Tuple, kwargs py.StringDict) (py.Object, error) {
	names := []string{"days", "seconds", "microseconds", "milliseconds", "minutes", "hours", "weeks"}
	units := []float64{86400e6, 1e6, 1, 1e3, 60e6, 3600e6, 7 * 86400e6}
	if len(args) > len(names) {
		return nil, py.ExceptionNewf(py.TypeError, "timedelta() takes at most 7 arguments")
	}
	total := 0.0
	for i, a := range args {
		f, ok := numArg(a)
		if !ok {
			return nil, py.ExceptionNewf(py.TypeError, "unsupported type for timedelta %s component: %s", names[i], a.Type().Name)
		}
		total += f * units[i]
	}
	for k, a := range kwargs {
		idx := -1
		for i, n := range names {
			if n == k {
				idx = i
			}
		}
		if idx < 0 {
			return nil, py.ExceptionNewf(py.TypeError, "timedelta() got an unexpected keyword argument '%s'", k)
		}
		f, ok := numArg(a)
		if !ok {
			return nil, py.ExceptionNewf(py.TypeError, "unsupported type for timedelta %s component: %s", k, a.Type().Name)
		}
		total += f * units[idx]
	}
	return &pyDelta{d: time.Duration(total+0.5*sign(total)) * time.Microsecond}, nil
}

func sign(f float64) float64 {
	if f < 0 {
		return -1
	}
	return 1
}

// ---- formatting ----

func (d *pyDate) iso() string { return d.t.Format("2006-01-02") }

func (d *pyDatetime) iso(sep string) string {
	s := d.t.Format("2006-01-02" + sep + "15:04:05")
	if us := d.t.Nanosecond() / 1000; us != 0 {
		s += fmt.Sprintf(".%06d", us)
	}
	return s
}

func (d *pyDelta) String() string {
	us := int64(d.d / time.Microsecond)
	days := us / 86400e6
	rem := us % 86400e6
	if rem < 0 {
		days--
		rem += 86400e6
	}
	secs := rem / 1e6
	frac := rem % 1e6
	s := fmt.Sprintf("%d:%02d:%02d", secs/3600, secs/60%60, secs%60)
	if frac != 0 {
		s += fmt.Sprintf(".%06d", frac)
	}
	if days != 0 {
		unit := "days"
		if days == 1 || days == -1 {
			unit = "day"
		}
		s = fmt.Sprintf("%d %s, %s", days, unit, s)
	}
	return s
}

// M__str__ implements str().
func (d *pyDate) M__str__() (py.Object, error) { return py.String(d.iso()), nil }

// M__repr__ implements repr().
func (d *pyDate) M__repr__() (py.Object, error) {
	return py.String(fmt.Sprintf("datetime.date(%d, %d, %d)", d.t.Year(), d.t.Month(), d.t.Day())), nil
}

// M__str__ implements str().
func (d *pyDatetime) M__str__() (py.Object, error) { return py.String(d.iso(" ")), nil }

// M__repr__ implements repr().
func (d *pyDatetime) M__repr__() (py.Object, error) {
	t := d.t
	return py.String(fmt.Sprintf("datetime.datetime(%d, %d, %d, %d, %d, %d, %d)", t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond()/1000)), nil
}

// M__str__ implements str().
func (d *pyDelta) M__str__() (py.Object, error) { return py.String(d.String()), nil }

// M__repr__ implements repr().
func (d *pyDelta) M__repr__() (py.Object, error) {
	return py.String("datetime.timedelta(microseconds=" + strconv.FormatInt(int64(d.d/time.Microsecond), 10) + ")"), nil
}

// strftime supports %Y %y %m %d %H %I %M %S %f %p %b %B %a %A %j %w %u
// %F %T %%.
func strftime(t time.Time, f string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 == len(f) {
			b.WriteByte(f[i])
			continue
		}
		i++
		switch f[i] {
		case 'Y':
			fmt.Fprintf(&b, "%04d", t.Year())
		case 'y':
			fmt.Fprintf(&b, "%02d", t.Year()%100)
		case 'm':
			fmt.Fprintf(&b, "%02d", int(t.Month()))
		case 'd':
			fmt.Fprintf(&b, "%02d", t.Day())
		case 'H':
			fmt.Fprintf(&b, "%02d", t.Hour())
		case 'I':
			h := t.Hour() % 12
			if h == 0 {
				h = 12
			}
			fmt.Fprintf(&b, "%02d", h)
		case 'M':
			fmt.Fprintf(&b, "%02d", t.Minute())
		case 'S':
			fmt.Fprintf(&b, "%02d", t.Second())
		case 'f':
			fmt.Fprintf(&b, "%06d", t.Nanosecond()/1000)
		case 'p':
			if t.Hour() < 12 {
				b.WriteString("AM")
			} else {
				b.WriteString("PM")
			}
		case 'b':
			b.WriteString(t.Month().String()[:3])
		case 'B':
			b.WriteString(t.Month().String())
		case 'a':
			b.WriteString(t.Weekday().String()[:3])
		case 'A':
			b.WriteString(t.Weekday().String())
		case 'j':
			fmt.Fprintf(&b, "%03d", t.YearDay())
		case 'w':
			fmt.Fprintf(&b, "%d", int(t.Weekday()))
		case 'u':
			fmt.Fprintf(&b, "%d", (int(t.Weekday())+6)%7+1)
		case 'F':
			b.WriteString(t.Format("2006-01-02"))
		case 'T':
			b.WriteString(t.Format("15:04:05"))
		case '%':
			b.WriteByte('%')
		default:
			return "", py.ExceptionNewf(py.ValueError, "not supported yet: strftime directive %%%c", f[i])
		}
	}
	return b.String(), nil
}

// goLayout translates a strptime format to a Go layout.
func goLayout(f string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 == len(f) {
			b.WriteByte(f[i])
			continue
		}
		i++
		switch f[i] {
		case 'Y':
			b.WriteString("2006")
		case 'y':
			b.WriteString("06")
		case 'm':
			b.WriteString("01")
		case 'd':
			b.WriteString("02")
		case 'H':
			b.WriteString("15")
		case 'I':
			b.WriteString("03")
		case 'M':
			b.WriteString("04")
		case 'S':
			b.WriteString("05")
		case 'f':
			// Go parses a fractional second (1-9 digits) right after
			// the seconds field without a layout element.
			s := b.String()
			if strings.HasSuffix(s, "05.") {
				b.Reset()
				b.WriteString(strings.TrimSuffix(s, "."))
			} else {
				return "", py.ExceptionNewf(py.ValueError, "not supported yet: strptime %%f not after %%S.")
			}
		case 'p':
			b.WriteString("PM")
		case 'b':
			b.WriteString("Jan")
		case 'B':
			b.WriteString("January")
		case 'a':
			b.WriteString("Mon")
		case 'A':
			b.WriteString("Monday")
		case 'j':
			b.WriteString("002")
		case '%':
			b.WriteByte('%')
		default:
			return "", py.ExceptionNewf(py.ValueError, "not supported yet: strptime directive %%%c", f[i])
		}
	}
	return b.String(), nil
}

func parseISO(s string, dateOnly bool) (time.Time, error) {
	layouts := []string{"2006-01-02T15:04:05.999999", "2006-01-02 15:04:05.999999", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"}
	if dateOnly {
		layouts = []string{"2006-01-02"}
	}
	for _, l := range layouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, py.ExceptionNewf(py.ValueError, "Invalid isoformat string: '%s'", s)
}

// ---- arithmetic and comparisons ----

func timeOf(o py.Object) (time.Time, bool, bool) {
	switch x := o.(type) {
	case *pyDate:
		return x.t, true, true
	case *pyDatetime:
		return x.t, false, true
	}
	return time.Time{}, false, false
}

func compareTimes(a time.Time, o py.Object, aDate bool, op func(int) bool) (py.Object, error) {
	b, bDate, ok := timeOf(o)
	if !ok || aDate != bDate {
		return py.NotImplemented, nil
	}
	return py.Bool(op(a.Compare(b))), nil
}

func (d *pyDate) cmp(o py.Object, op func(int) bool) (py.Object, error) {
	return compareTimes(d.t, o, true, op)
}
func (d *pyDatetime) cmp(o py.Object, op func(int) bool) (py.Object, error) {
	return compareTimes(d.t, o, false, op)
}

// Comparison methods.
func (d *pyDate) M__eq__(o py.Object) (py.Object, error) {
	return d.cmp(o, func(c int) bool { return c == 0 })
}
func (d *pyDate) M__ne__(o py.Object) (py.Object, error) {
	return d.cmp(o, func(c int) bool { return c != 0 })
}
func (d *pyDate) M__lt__(o py.Object) (py.Object, error) {
	return d.cmp(o, func(c int) bool { return c < 0 })
}
func (d *pyDate) M__le__(o py.Object) (py.Object, error) {
	return d.cmp(o, func(c int) bool { return c <= 0 })
}
func (d *pyDate) M__gt__(o py.Object) (py.Object, error) {
	return d.cmp(o, func(c int) bool { return c > 0 })
}
func (d *pyDate) M__ge__(o py.Object) (py.Object, error) {
	return d.cmp(o, func(c int) bool { return c >= 0 })
}
func (d *pyDatetime) M__eq__(o py.Object) (py.Object, error) {
	return d.cmp(o, func(c int) bool { return c == 0 })
}
func (d *pyDatetime) M__ne__(o py.Object) (py.Object, error) {
	return d.cmp(o, func(c int) bool { return c != 0 })
}
func (d *pyDatetime) M__lt__(o py.Object) (py.Object, error) {
	return d.cmp(o, func(c int) bool { return c < 0 })
}
func (d *pyDatetime) M__le__(o py.Object) (py.Object, error) {
	return d.cmp(o, func(c int) bool { return c <= 0 })
}
func (d *pyDatetime) M__gt__(o py.Object) (py.Object, error) {
	return d.cmp(o, func(c int) bool { return c > 0 })
}
func (d *pyDatetime) M__ge__(o py.Object) (py.Object, error) {
	return d.cmp(o, func(c int) bool { return c >= 0 })
}

// M__add__ implements date + timedelta (whole days count).
func (d *pyDate) M__add__(o py.Object) (py.Object, error) {
	if td, ok := o.(*pyDelta); ok {
		days := int(td.d / (24 * time.Hour))
		return &pyDate{t: d.t.AddDate(0, 0, days)}, nil
	}
	return py.NotImplemented, nil
}

// M__sub__ implements date - timedelta and date - date.
func (d *pyDate) M__sub__(o py.Object) (py.Object, error) {
	switch x := o.(type) {
	case *pyDelta:
		return &pyDate{t: d.t.AddDate(0, 0, -int(x.d/(24*time.Hour)))}, nil
	case *pyDate:
		return &pyDelta{d: d.t.Sub(x.t)}, nil
	}
	return py.NotImplemented, nil
}

// M__add__ implements datetime + timedelta.
func (d *pyDatetime) M__add__(o py.Object) (py.Object, error) {
	if td, ok := o.(*pyDelta); ok {
		return &pyDatetime{t: d.t.Add(td.d)}, nil
	}
	return py.NotImplemented, nil
}

// M__sub__ implements datetime - timedelta and datetime - datetime.
func (d *pyDatetime) M__sub__(o py.Object) (py.Object, error) {
	switch x := o.(type) {
	case *pyDelta:
		return &pyDatetime{t: d.t.Add(-x.d)}, nil
	case *pyDatetime:
		return &pyDelta{d: d.t.Sub(x.t)}, nil
	}
	return py.NotImplemented, nil
}

// M__add__ implements timedelta + timedelta.
func (d *pyDelta) M__add__(o py.Object) (py.Object, error) {
	switch x := o.(type) {
	case *pyDelta:
		return &pyDelta{d: d.d + x.d}, nil
	case *pyDate, *pyDatetime:
		return py.Add(o, d)
	}
	return py.NotImplemented, nil
}

// M__sub__ implements timedelta - timedelta.
func (d *pyDelta) M__sub__(o py.Object) (py.Object, error) {
	if x, ok := o.(*pyDelta); ok {
		return &pyDelta{d: d.d - x.d}, nil
	}
	return py.NotImplemented, nil
}

// M__mul__ implements timedelta * number.
func (d *pyDelta) M__mul__(o py.Object) (py.Object, error) {
	if f, ok := numArg(o); ok {
		return &pyDelta{d: time.Duration(float64(d.d) * f)}, nil
	}
	return py.NotImplemented, nil
}

// M__neg__ implements -timedelta.
func (d *pyDelta) M__neg__() (py.Object, error) { return &pyDelta{d: -d.d}, nil }

func (d *pyDelta) cmp(o py.Object, op func(int) bool) (py.Object, error) {
	x, ok := o.(*pyDelta)
	if !ok {
		return py.NotImplemented, nil
	}
	c := 0
	if d.d < x.d {
		c = -1
	} else if d.d > x.d {
		c = 1
	}
	return py.Bool(op(c)), nil
}

// Comparison methods.
func (d *pyDelta) M__eq__(o py.Object) (py.Object, error) {
	return d.cmp(o, func(c int) bool { return c == 0 })
}
func (d *pyDelta) M__ne__(o py.Object) (py.Object, error) {
	return d.cmp(o, func(c int) bool { return c != 0 })
}
func (d *pyDelta) M__lt__(o py.Object) (py.Object, error) {
	return d.cmp(o, func(c int) bool { return c < 0 })
}
func (d *pyDelta) M__gt__(o py.Object) (py.Object, error) {
	return d.cmp(o, func(c int) bool { return c > 0 })
}

// ---- attributes and methods ----

func prop(t *py.Type, name string, get func(self py.Object) py.Object) {
	t.Dict[name] = &py.Property{Fget: func(self py.Object) (py.Object, error) { return get(self), nil }}
}

func meth(t *py.Type, name string, f func(self py.Object, args py.Tuple, kwargs py.StringDict) (py.Object, error)) {
	t.Dict[name] = py.MustNewMethod(name, f, 0, name)
}

// static adds a function callable on the type (datetime.now()) and on
// instances; self is ignored.
func static(t *py.Type, name string, f func(args py.Tuple, kwargs py.StringDict) (py.Object, error)) {
	t.Dict[name] = py.MustNewMethod(name, func(_ py.Object, args py.Tuple, kwargs py.StringDict) (py.Object, error) {
		// Called on an instance, gpython passes the instance first.
		if len(args) > 0 {
			switch args[0].(type) {
			case *pyDate, *pyDatetime:
				args = args[1:]
			}
		}
		return f(args, kwargs)
	}, 0, name)
}

func tOf(self py.Object) time.Time {
	t, _, _ := timeOf(self)
	return t
}

func init() {
	for _, t := range []*py.Type{dateType, datetimeType} {
		prop(t, "year", func(s py.Object) py.Object { return py.Int(tOf(s).Year()) })
		prop(t, "month", func(s py.Object) py.Object { return py.Int(int(tOf(s).Month())) })
		prop(t, "day", func(s py.Object) py.Object { return py.Int(tOf(s).Day()) })
		meth(t, "weekday", func(s py.Object, _ py.Tuple, _ py.StringDict) (py.Object, error) {
			return py.Int((int(tOf(s).Weekday()) + 6) % 7), nil
		})
		meth(t, "isoweekday", func(s py.Object, _ py.Tuple, _ py.StringDict) (py.Object, error) {
			return py.Int((int(tOf(s).Weekday())+6)%7 + 1), nil
		})
		meth(t, "strftime", func(s py.Object, args py.Tuple, _ py.StringDict) (py.Object, error) {
			f, err := strArg(args, 0, "strftime")
			if err != nil {
				return nil, err
			}
			out, err := strftime(tOf(s), f)
			return py.String(out), err
		})
		meth(t, "toordinal", func(s py.Object, _ py.Tuple, _ py.StringDict) (py.Object, error) {
			return py.Int(tOf(s).Unix()/86400 + 719163), nil
		})
	}
	meth(dateType, "isoformat", func(s py.Object, _ py.Tuple, _ py.StringDict) (py.Object, error) {
		return py.String(s.(*pyDate).iso()), nil
	})
	meth(dateType, "replace", func(s py.Object, args py.Tuple, kw py.StringDict) (py.Object, error) {
		t := s.(*pyDate).t
		v, err := intArgs("replace", args, kw, []string{"year", "month", "day"}, 0, []int{t.Year(), int(t.Month()), t.Day()})
		if err != nil {
			return nil, err
		}
		return dateNew(nil, py.Tuple{py.Int(v[0]), py.Int(v[1]), py.Int(v[2])}, nil)
	})
	static(dateType, "fromisoformat", func(args py.Tuple, _ py.StringDict) (py.Object, error) {
		s, err := strArg(args, 0, "fromisoformat")
		if err != nil {
			return nil, err
		}
		t, err := parseISO(s, true)
		if err != nil {
			return nil, err
		}
		return &pyDate{t: t}, nil
	})
	static(dateType, "today", func(py.Tuple, py.StringDict) (py.Object, error) {
		n := time.Now()
		return &pyDate{t: time.Date(n.Year(), n.Month(), n.Day(), 0, 0, 0, 0, time.UTC)}, nil
	})
	for name, get := range map[string]func(t time.Time) int{
		"hour": time.Time.Hour, "minute": time.Time.Minute, "second": time.Time.Second,
		"microsecond": func(t time.Time) int { return t.Nanosecond() / 1000 },
	} {
		get := get
		prop(datetimeType, name, func(s py.Object) py.Object { return py.Int(get(tOf(s))) })
	}
	meth(datetimeType, "isoformat", func(s py.Object, args py.Tuple, kw py.StringDict) (py.Object, error) {
		sep := "T"
		if len(args) > 0 {
			var err error
			if sep, err = strArg(args, 0, "isoformat"); err != nil {
				return nil, err
			}
		}
		if v, ok := kw["sep"].(py.String); ok {
			sep = string(v)
		}
		return py.String(s.(*pyDatetime).iso(sep)), nil
	})
	meth(datetimeType, "date", func(s py.Object, _ py.Tuple, _ py.StringDict) (py.Object, error) {
		t := s.(*pyDatetime).t
		return &pyDate{t: time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)}, nil
	})
	meth(datetimeType, "timestamp", func(s py.Object, _ py.Tuple, _ py.StringDict) (py.Object, error) {
		return py.Float(float64(s.(*pyDatetime).t.UnixMicro()) / 1e6), nil
	})
	meth(datetimeType, "replace", func(s py.Object, args py.Tuple, kw py.StringDict) (py.Object, error) {
		t := s.(*pyDatetime).t
		v, err := intArgs("replace", args, kw, []string{"year", "month", "day", "hour", "minute", "second", "microsecond"}, 0,
			[]int{t.Year(), int(t.Month()), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond() / 1000})
		if err != nil {
			return nil, err
		}
		items := make(py.Tuple, len(v))
		for i, x := range v {
			items[i] = py.Int(x)
		}
		return datetimeNew(nil, items, nil)
	})
	static(datetimeType, "fromisoformat", func(args py.Tuple, _ py.StringDict) (py.Object, error) {
		s, err := strArg(args, 0, "fromisoformat")
		if err != nil {
			return nil, err
		}
		t, err := parseISO(s, false)
		if err != nil {
			return nil, err
		}
		return &pyDatetime{t: t}, nil
	})
	static(datetimeType, "strptime", func(args py.Tuple, _ py.StringDict) (py.Object, error) {
		s, err := strArg(args, 0, "strptime")
		if err != nil {
			return nil, err
		}
		f, err := strArg(args, 1, "strptime")
		if err != nil {
			return nil, err
		}
		layout, err := goLayout(f)
		if err != nil {
			return nil, err
		}
		t, perr := time.Parse(layout, s)
		if perr != nil {
			return nil, py.ExceptionNewf(py.ValueError, "time data '%s' does not match format '%s'", s, f)
		}
		return &pyDatetime{t: t}, nil
	})
	static(datetimeType, "fromtimestamp", func(args py.Tuple, _ py.StringDict) (py.Object, error) {
		if len(args) != 1 {
			return nil, py.ExceptionNewf(py.TypeError, "fromtimestamp() takes exactly one argument")
		}
		f, ok := numArg(args[0])
		if !ok {
			return nil, py.ExceptionNewf(py.TypeError, "an integer or float is required")
		}
		return &pyDatetime{t: time.UnixMicro(int64(f * 1e6)).UTC()}, nil
	})
	static(datetimeType, "now", func(py.Tuple, py.StringDict) (py.Object, error) {
		return &pyDatetime{t: time.Now().UTC()}, nil
	})
	static(datetimeType, "utcnow", func(py.Tuple, py.StringDict) (py.Object, error) {
		return &pyDatetime{t: time.Now().UTC()}, nil
	})
	prop(deltaType, "days", func(s py.Object) py.Object {
		us := int64(s.(*pyDelta).d / time.Microsecond)
		d := us / 86400e6
		if us%86400e6 < 0 {
			d--
		}
		return py.Int(d)
	})
	prop(deltaType, "seconds", func(s py.Object) py.Object {
		us := int64(s.(*pyDelta).d/time.Microsecond) % 86400e6
		if us < 0 {
			us += 86400e6
		}
		return py.Int(us / 1e6)
	})
	prop(deltaType, "microseconds", func(s py.Object) py.Object {
		us := int64(s.(*pyDelta).d/time.Microsecond) % 1e6
		if us < 0 {
			us += 1e6
		}
		return py.Int(us)
	})
	meth(deltaType, "total_seconds", func(s py.Object, _ py.Tuple, _ py.StringDict) (py.Object, error) {
		return py.Float(float64(s.(*pyDelta).d/time.Microsecond) / 1e6), nil
	})

	py.RegisterModule(&py.ModuleImpl{
		Info: py.ModuleInfo{Name: "datetime", Doc: "Dates and times (tablerun UDF subset; naive, no time zones)"},
		Globals: py.StringDict{
			"date":      dateType,
			"datetime":  datetimeType,
			"timedelta": deltaType,
			"MINYEAR":   py.Int(1),
			"MAXYEAR":   py.Int(9999),
		},
	})
}
