package function

import "github.com/tablerun/tablerun/core/types"

// DateFormatBucket returns the length in seconds of the intervals within
// which FormatJavaDate(t, pattern) of a TIMESTAMP (a UTC wall clock)
// cannot change: 1 for a pattern with seconds, 60 with minutes, 3600 with
// hours or AM/PM, 86400 for date-only patterns; 0 when the result depends
// on the fraction of a second ('S'). ok is false for a pattern
// FormatJavaDate rejects. Vectorized kernels use it to format each bucket
// once.
func DateFormatBucket(pattern string) (secs int64, ok bool) {
	secs = 86400
	for _, tk := range tokenizeJava(pattern) {
		switch tk.letter {
		case 0, 'y', 'u', 'M', 'L', 'd', 'D', 'E', 'Z', 'X', 'x':
		case 'H', 'k', 'h', 'K', 'a':
			secs = min(secs, 3600)
		case 'm':
			secs = min(secs, 60)
		case 's':
			secs = min(secs, 1)
		case 'S':
			secs = 0
		default:
			return 0, false
		}
	}
	return secs, true
}

// FormatTimestamp formats a TIMESTAMP value of type t (its wall clock)
// with a Java date pattern, as DATE_FORMAT does.
func FormatTimestamp(v int64, t types.Type, pattern string) (string, error) {
	return FormatJavaDate(tsTime(v, t), pattern)
}

// RegexpReplacer returns REGEXP_REPLACE(·, pattern, replacement) for a
// constant pattern and replacement (Java's $n group references), compiled
// once; the error is the function's own for an invalid pattern.
func RegexpReplacer(pattern, replacement string) (func(string) string, error) {
	re, err := compileRegex(pattern)
	if err != nil {
		return nil, err
	}
	repl := javaReplacement(replacement)
	return func(s string) string { return re.ReplaceAllString(s, repl) }, nil
}
