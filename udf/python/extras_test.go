package python

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tablerun/tablerun/core/types"
	"github.com/tablerun/tablerun/udf"
)

// TestAuthoring covers every item of AUTHORING.md: each case is the body
// of `def f(): return <expr>` (or a full script) and its result as str().
func TestAuthoring(t *testing.T) {
	tests := []struct {
		name, expr, want string
	}{
		// str methods
		{"upper", "'abc'.upper()", "ABC"},
		{"lower", "'AbC'.lower()", "abc"},
		{"casefold", "'AbC'.casefold()", "abc"},
		{"title", "'hello wORLD x1y'.title()", "Hello World X1Y"},
		{"capitalize", "'hELLO world'.capitalize()", "Hello world"},
		{"swapcase", "'aBc'.swapcase()", "AbC"},
		{"join", "'-'.join(['a', 'b', 'c'])", "a-b-c"},
		{"join generator", "', '.join(str(i) for i in range(3))", "0, 1, 2"},
		{"zfill", "'42'.zfill(5) + ' ' + '-7'.zfill(4)", "00042 -007"},
		{"isdigit", "str(['12'.isdigit(), '1a'.isdigit(), ''.isdigit()])", "[True, False, False]"},
		{"isalpha isalnum", "str(['ab'.isalpha(), 'a1'.isalpha(), 'a1'.isalnum()])", "[True, False, True]"},
		{"isspace", "str([' \\t'.isspace(), ' a'.isspace()])", "[True, False]"},
		{"isupper islower", "str(['AB1'.isupper(), 'Ab'.isupper(), 'ab1'.islower(), '12'.islower()])", "[True, False, True, False]"},
		{"isnumeric isdecimal", "str(['123'.isnumeric(), '12.5'.isdecimal()])", "[True, False]"},
		{"istitle", "str(['Hello World'.istitle(), 'Hello world'.istitle()])", "[True, False]"},
		{"center ljust rjust", "'[' + 'ab'.center(6, '*') + '|' + 'ab'.ljust(4) + '|' + 'ab'.rjust(4, '.') + ']'", "[**ab**|ab  |..ab]"},
		{"count", "str('banana'.count('an'))", "2"},
		{"index rfind rindex", "str(['banana'.index('n'), 'banana'.rfind('n'), 'banana'.rindex('a'), 'banana'.rfind('x')])", "[2, 4, 5, -1]"},
		{"partition", "str('a=b=c'.partition('=')) + str('a=b=c'.rpartition('='))", "('a', '=', 'b=c')('a=b', '=', 'c')"},
		{"splitlines", "str('a\\nb\\r\\nc\\n'.splitlines())", "['a', 'b', 'c']"},
		{"encode decode", "'héllo'.encode().decode()", "héllo"},
		{"existing split strip replace", "'  a,b  '.strip().split(',')[1].replace('b', 'B')", "B"},
		// str.format and format()
		{"format positional", "'{} + {} = {}'.format(1, 2, 3)", "1 + 2 = 3"},
		{"format indexed named", "'{1}{0}{x}'.format('a', 'b', x='c')", "bac"},
		{"format spec", "'{:>6.2f}|{:<5}|{:^7}|{:05d}|{:,}'.format(3.14159, 'ab', 'mid', 42, 1234567)", "  3.14|ab   |  mid  |00042|1,234,567"},
		{"format hex bin pct", "'{:x} {:#b} {:.1%} {:+d}'.format(255, 5, 0.25, 3)", "ff 0b101 25.0% +3"},
		{"format conversion braces", "'{!r} {{x}}'.format('s')", "'s' {x}"},
		{"format builtin", "format(3.14159, '.3f') + format(7, '03')", "3.142007"},
		{"percent formatting", "'%s-%05.1f' % ('a', 3.14159)", "a-003.1"},
		// numbers
		{"round half even", "str([round(0.5), round(1.5), round(2.5), round(-0.5)])", "[0, 2, 2, 0]"},
		{"round ndigits", "str([round(2.675, 2), round(1.005, 2), round(3.14159, 3), round(1234, -2)])", "[2.67, 1.0, 3.142, 1200]"},
		{"round int", "str(round(7))", "7"},
		{"math", "import math\nreturn str(math.floor(2.7) + math.ceil(2.1))", "5"},
		// list methods
		{"list insert pop", "l = [1, 2, 3]\nl.insert(0, 0)\nl.insert(-1, 9)\nx = l.pop()\ny = l.pop(0)\nreturn str([l, x, y])", "[[1, 2, 9], 3, 0]"},
		{"list remove index count", "l = [3, 1, 3]\nl.remove(3)\nreturn str([l, l.index(3), l.count(3)])", "[[1, 3], 1, 1]"},
		{"list reverse copy clear", "l = [1, 2]\nm = l.copy()\nl.reverse()\nm.clear()\nreturn str([l, m])", "[[2, 1], []]"},
		{"reversed", "str(list(reversed([1, 2, 3])))", "[3, 2, 1]"},
		{"sorted key", "str(sorted(['bb', 'a', 'ccc'], key=len))", "['a', 'bb', 'ccc']"},
		// dict methods
		{"dict update", "d = {'a': 1}\nd.update({'b': 2}, c=3)\nd.update([('e', 5)])\nreturn str([(k, d[k]) for k in sorted(d.keys())])", "[('a', 1), ('b', 2), ('c', 3), ('e', 5)]"},
		{"dict pop setdefault", "d = {'a': 1}\nx = d.pop('a')\ny = d.pop('z', 0)\nd.setdefault('k', []).append(1)\nd.setdefault('k', []).append(2)\nreturn str([x, y, d])", "[1, 0, {'k': [1, 2]}]"},
		{"dict copy clear get", "d = {'a': 1}\ne = d.copy()\nd.clear()\nreturn str([d, e.get('a'), e.get('b', 7)])", "[{}, 1, 7]"},
		// json
		{"json loads", "import json\nd = json.loads('{\"a\": [1, 2.5, null, true], \"b\": {\"c\": \"x\"}}')\nreturn str([d['a'], d['b']['c']])", "[[1, 2.5, None, True], 'x']"},
		{"json dumps", "import json\nreturn json.dumps({'b': [1, 2.5, None, True], 'a': 'é\"'})", `{"a": "\u00e9\"", "b": [1, 2.5, null, true]}`},
		{"json dumps options", "import json\nreturn json.dumps({'a': [1]}, separators=(',', ':'), ensure_ascii=False) + json.dumps([1, {'k': 2}], indent=1)", "{\"a\":[1]}[\n 1,\n {\n  \"k\": 2\n }\n]"},
		{"json error", "import json\ntry:\n    json.loads('{bad')\nexcept ValueError:\n    return 'bad json'\nreturn 'ok'", "bad json"},
		// re
		{"re search group", "import re\nm = re.search(r'(\\d+)-(?P<x>\\w+)', 'ab 12-cd')\nreturn str([m.group(0), m.group(1), m.group('x'), m.groups(), m.start(), m.end(2), m.span()])", "['12-cd', '12', 'cd', ('12', 'cd'), 3, 8, (3, 8)]"},
		{"re match fullmatch", "import re\nreturn str([re.match('b', 'ab'), re.match('a', 'ab') is not None, re.fullmatch('a+', 'aaa') is not None, re.fullmatch('a', 'ab')])", "[None, True, True, None]"},
		{"re findall", "import re\nreturn str([re.findall(r'\\d+', 'a1b22c333'), re.findall(r'(\\w)=(\\d)', 'a=1,b=2')])", "[['1', '22', '333'], [('a', '1'), ('b', '2')]]"},
		{"re sub", "import re\nreturn re.sub(r'(\\w+)@(\\w+)', r'\\2 at \\1', 'joe@home, ann@work') + '|' + re.sub('a', 'X', 'aaa', 2)", "home at joe, work at ann|XXa"},
		{"re sub function", "import re\nreturn re.sub(r'\\d+', lambda m: str(int(m.group(0)) * 2), 'a1b20')", "a2b40"},
		{"re split flags", "import re\nreturn str([re.split(r'[,;]\\s*', 'a, b;c'), re.findall('A', 'aA', re.I), re.compile('^b', re.M).findall('a\\nb')])", "[['a', 'b', 'c'], ['a', 'A'], ['b']]"},
		{"re compiled finditer", "import re\np = re.compile(r'\\d')\nreturn str([m.start() for m in p.finditer('a1é2')]) + p.pattern", "[1, 3]\\d"},
		{"re escape", "import re\nreturn re.escape('a.b*c')", `a\.b\*c`},
		{"re unsupported", "import re\ntry:\n    re.compile(r'(?<=a)b')\nexcept re.error as e:\n    return 'error'\nreturn 'ok'", "error"},
		{"re match getitem", "import re\nreturn re.match(r'(a)(b)', 'ab')[2]", "b"},
		{"builtins", "str([list(enumerate('ab')), list(zip([1, 2], 'xy')), list(filter(None, [0, 1])), min(3, 1), max([2, 5]), sum([1, 2]), abs(-2), any([0, 1]), all([1, 0])])", "[[(0, 'a'), (1, 'b')], [(1, 'x'), (2, 'y')], [1], 1, 5, 3, 2, True, False]"},
		{"builtins 2", "str([isinstance(1, int), chr(65), ord('a'), hex(255), bin(5), oct(8), divmod(7, 2), pow(2, 10), len(set([1, 1, 2])), tuple([1, 2]), int('7'), float('1.5')])", "[True, 'A', 97, '0xff', '0b101', '0o10', (3, 1), 1024, 2, (1, 2), 7, 1.5]"},
		{"time string binascii", "import time, string, binascii\nreturn str([time.time() > 0, string.digits, binascii.hexlify(b'a')])", "[True, '0123456789', b'61']"},
		{"default args varargs global", "str(h(1) + h(1, 2, 3))", "7"},
		{"print goes to stderr", "import sys\nprint('udf says hi')\nreturn str(sys.stdout is sys.stderr)", "True"},
		// datetime
		{"date basics", "from datetime import date, timedelta\nd = date(2024, 2, 28)\nreturn str([str(d + timedelta(days=2)), d.year, d.month, d.day, d.weekday(), d.isoweekday(), d.isoformat()])", "['2024-03-01', 2024, 2, 28, 2, 3, '2024-02-28']"},
		{"date fromisoformat diff", "import datetime\na = datetime.date.fromisoformat('2024-01-01')\nb = datetime.date(2024, 3, 1)\nreturn str([(b - a).days, a < b, a == datetime.date(2024, 1, 1), str(b - datetime.timedelta(days=1)), a.replace(day=5).strftime('%d/%m/%Y %a %b %j')])", "[60, True, True, '2024-02-29', '05/01/2024 Fri Jan 005']"},
		{"datetime basics", "from datetime import datetime, timedelta\nt = datetime(2024, 1, 31, 23, 59, 30, 250000)\nu = t + timedelta(seconds=45)\nreturn str([str(u), u.hour, u.minute, u.second, u.microsecond, u.isoformat(), t.strftime('%Y-%m-%d %H:%M:%S.%f %p %I'), str(u.date())])", "['2024-02-01 00:00:15.250000', 0, 0, 15, 250000, '2024-02-01T00:00:15.250000', '2024-01-31 23:59:30.250000 PM 11', '2024-02-01']"},
		{"datetime parse", "from datetime import datetime\na = datetime.fromisoformat('2024-01-01 10:00:00')\nb = datetime.strptime('02/01/2024 10:30:00.5', '%d/%m/%Y %H:%M:%S.%f')\nreturn str([str(b - a), (b - a).total_seconds(), a.timestamp(), str(datetime.fromtimestamp(0)), str(a.replace(hour=1))])", "['1 day, 0:30:00.500000', 88200.5, 1704103200.0, '1970-01-01 00:00:00', '2024-01-01 01:00:00']"},
		{"timedelta", "from datetime import timedelta\nd = timedelta(hours=25, minutes=1) * 2\nreturn str([str(d), d.days, d.seconds, str(-timedelta(seconds=1)), timedelta(weeks=1) > d, repr(timedelta(milliseconds=1))])", "['2 days, 2:02:00', 2, 7320, '-1 day, 23:59:59', True, 'datetime.timedelta(microseconds=1000)']"},
		{"now today toordinal", "from datetime import date, datetime\nreturn str([date.today() > date(2020, 1, 1), datetime.now() > datetime(2020, 1, 1), datetime.utcnow().year > 2000, date(1970, 1, 1).toordinal()])", "[True, True, True, 719163]"},
		{"datetime errors", "import datetime\ntry:\n    datetime.date(2023, 2, 29)\nexcept ValueError as e:\n    return 'bad date'\nreturn 'ok'", "bad date"},
		// f-strings (rewritten to str.format)
		{"fstring", "x = 3\nname = 'bob'\nreturn f'{name}: {x * 2} {x!r:>4} {{lit}} {[1, 2][0]:03d}'", "bob: 6    3 {lit} 001"},
		{"fstring quotes", "d = {'k': 'v'}\nreturn F\"[{d['k']}]\" + rf'\\{d}'[0] + 'f{x}'", "[v]\\f{x}"},
		{"fstring triple", "a = 1\nreturn f\"\"\"{a}\n{a + 1}\"\"\"", "1\n    2"}, // the test indents the body
		// language basics gpython supports
		{"comprehensions", "str({k: v for k, v in [('a', 1)]}) + str([x * x for x in range(4) if x % 2])", "{'a': 1}[1, 9]"},
		{"generators", "def g():\n    yield 1\n    yield 2\nreturn str(sum(g()))", "3"},
		{"classes lambda", "class P:\n    def __init__(self, x):\n        self.x = x\nreturn str(list(map(lambda p: p.x * 2, [P(1), P(2)])))", "[2, 4]"},
		{"try except", "try:\n    1 / 0\nexcept ZeroDivisionError:\n    return 'caught'\nreturn 'no'", "caught"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := "def h(a, b=2, *rest):\n    global calls\n    calls = 1\n    return a + b + len(rest)\n\ndef f():\n    return " + tc.expr + "\n"
			if containsNewline(tc.expr) {
				body = "def h(a, b=2, *rest):\n    return a + b + len(rest)\n\ndef f():\n    " + indent(tc.expr) + "\n"
			}
			def := scalar(t, "f", body, types.StringT)
			got, err := call(def)
			require.NoError(t, err, body)
			require.Equal(t, tc.want, got)
		})
	}
}

func containsNewline(s string) bool {
	for _, c := range s {
		if c == '\n' {
			return true
		}
	}
	return false
}

// indent indents the continuation lines of a multi-line case by 4
// spaces (the first line follows "def f():\n    ").
func indent(s string) string {
	out := ""
	for i, c := range s {
		out += string(c)
		if c == '\n' && i+1 < len(s) {
			out += "    "
		}
	}
	return out
}

func TestRewriteFStrings(t *testing.T) {
	tests := []struct{ src, want string }{
		{"x = f'{a}'", "x = '{}'.format((a))"},
		{"x = f\"{a!r:>3} {{b}}\"", "x = \"{!r:>3} {{b}}\".format((a))"},
		{"# f'{a}' in a comment\nif x: y = 'f{a}'", "# f'{a}' in a comment\nif x: y = 'f{a}'"},
		{"elif_f = 1\nif x: pass", "elif_f = 1\nif x: pass"},
		{"s = rf'\\d{n}'", "s = r'\\d{}'.format((n))"},
		{"s = f'''{a}\n{b}'''", "s = '''{}\n{}'''.format((a), (b))"},
		{"s = f'{a'", "s = f'{a'"},
		{"s = f'unterminated", "s = f'unterminated"},
		{"s = f'{d[\"k\"]}'", "s = '{}'.format((d[\"k\"]))"},
	}
	for _, tc := range tests {
		require.Equal(t, tc.want, rewriteFStrings(tc.src), tc.src)
	}
	// Line numbers survive the rewrite.
	def, err := Compile(udf.Spec{Name: "f", Returns: types.StringT, Body: "def f():\n    x = f'''{1}\n{2}'''\n    return f'{1 / 0}'\n"})
	require.NoError(t, err)
	_, err = call(def)
	require.ErrorContains(t, err, "line 4: ZeroDivisionError")
}
