package function

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// unixTimestampOf is UNIX_TIMESTAMP(string, format) as Flink's
// DateTimeUtils.unixTimestamp computes it with a SimpleDateFormat in the
// session zone: text after what the format reads is ignored; a trailing
// ISO zone field (X, XX, XXX or Z) is read and overrides the session zone;
// text that does not parse gives Long.MIN_VALUE, not NULL.
func unixTimestampOf(s, format string, loc *time.Location) int64 {
	pattern := format
	zone := false
	if p, ok := trimZoneField(pattern); ok {
		pattern, zone = p, true
	}
	if zone {
		m := zoneSuffix.FindStringSubmatchIndex(s)
		if m == nil {
			return math.MinInt64
		}
		off, ok := parseOffset(s[m[2]:m[3]])
		if !ok {
			return math.MinInt64
		}
		tm, ok := parseLeadingJavaDate(s[:m[2]], pattern)
		if !ok {
			return math.MinInt64
		}
		return tm.Unix() - int64(off)
	}
	tm, ok := parseLeadingJavaDate(s, pattern)
	if !ok {
		return math.MinInt64
	}
	return fromWall(tm, loc).Unix()
}

// zoneSuffix finds an ISO 8601 offset (or Z) at the end of a string.
var zoneSuffix = regexp.MustCompile(`([+-]\d{2}(?::?\d{2})?|Z)\s*$`)

// trimZoneField removes a trailing X, XX, XXX or Z field from a format.
func trimZoneField(f string) (string, bool) {
	t := strings.TrimRight(f, "XZ")
	if n := len(f) - len(t); n >= 1 && n <= 3 {
		return t, true
	}
	return f, false
}

// parseOffset reads +hh, +hhmm or +hh:mm (or Z) as seconds east of UTC.
func parseOffset(z string) (int, bool) {
	if z == "Z" {
		return 0, true
	}
	sign := 1
	if z[0] == '-' {
		sign = -1
	}
	digits := strings.ReplaceAll(z[1:], ":", "")
	h, err := strconv.Atoi(digits[:2])
	if err != nil {
		return 0, false
	}
	m := 0
	if len(digits) == 4 {
		if m, err = strconv.Atoi(digits[2:]); err != nil {
			return 0, false
		}
	}
	return sign * (h*3600 + m*60), true
}

// parseLeadingJavaDate parses the longest prefix of s the pattern reads
// (SimpleDateFormat.parse ignores what follows).
func parseLeadingJavaDate(s, pattern string) (time.Time, bool) {
	if tm, err := ParseJavaDate(s, pattern); err == nil {
		return tm, true
	}
	for k := len(s) - 1; k > 0; k-- {
		if tm, err := ParseJavaDate(s[:k], pattern); err == nil {
			return tm, true
		}
	}
	return time.Time{}, false
}
