# tablerun script module "text": string helpers for SQL, in Python.
#
#   LOAD MODULE text WITH ('type' = 'python', 'path' = 'modules/text.py');
#   SELECT count_char('abcabc', 'c'), slugify('Hello, World!'),
#          levenshtein('kitten', 'sitting'), word_count('a  b c');
#
# Every function returns NULL when an argument is NULL. Each exported
# function has a "# sql:" line with its SQL signature (see core/modules.go).


def _lower(ch):
    o = ord(ch)
    if 65 <= o and o <= 90:
        return chr(o + 32)
    return ch


# sql: count_char(s STRING, c STRING) RETURNS INT
def count_char(s, c):
    """Occurrences of the character c in s (Nexmark q14's count_char).
    If c is longer than one character, non-overlapping occurrences of c."""
    if s is None or c is None or c == '':
        return None
    n = 0
    if len(c) == 1:
        for ch in s:
            if ch == c:
                n += 1
        return n
    i = 0
    while i + len(c) <= len(s):
        if s[i:i + len(c)] == c:
            n += 1
            i += len(c)
        else:
            i += 1
    return n


# sql: slugify(s STRING) RETURNS STRING
def slugify(s):
    """Lower-case ASCII letters and digits; every other run of characters
    becomes one '-', with none at either end: 'Hello, World!' -> 'hello-world'."""
    if s is None:
        return None
    out = ''
    dash = True
    for ch in s:
        ch = _lower(ch)
        if ('a' <= ch and ch <= 'z') or ('0' <= ch and ch <= '9'):
            out += ch
            dash = False
        elif not dash:
            out += '-'
            dash = True
    if out.endswith('-'):
        out = out[:-1]
    return out


# sql: levenshtein(a STRING, b STRING) RETURNS INT
def levenshtein(a, b):
    """Edit distance: the fewest single-character insertions, deletions and
    substitutions that turn a into b."""
    if a is None or b is None:
        return None
    prev = list(range(len(b) + 1))
    for i in range(len(a)):
        cur = [i + 1]
        for j in range(len(b)):
            cost = 0 if a[i] == b[j] else 1
            cur.append(min(prev[j + 1] + 1, cur[j] + 1, prev[j] + cost))
        prev = cur
    return prev[len(b)]


# sql: word_count(s STRING) RETURNS INT
def word_count(s):
    """Number of whitespace-separated words."""
    if s is None:
        return None
    return len(s.split())
