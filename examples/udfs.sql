-- Script UDFs: a scalar, a table and an aggregate function in Python and in
-- JavaScript, defined inline with a SQL signature and used from queries.

SET 'execution.runtime-mode' = 'batch';

CREATE TEMPORARY VIEW reviews(id, product, stars, text) AS
VALUES (1, CAST('kettle' AS STRING), 5, CAST('fast and quiet' AS STRING)),
       (2, 'kettle', 2, 'leaks'),
       (3, 'toaster', 4, 'even browning'),
       (4, 'toaster', 3, CAST(NULL AS STRING));

-- Python scalar: the first letter of every word, upper case.
CREATE TEMPORARY FUNCTION initials(s STRING) RETURNS STRING LANGUAGE PYTHON AS $$
def initials(s):
    if s is None:
        return None
    return ''.join(w[0].upper() for w in s.split(' ') if w)
$$;

-- JavaScript scalar: stars drawn as a bar.
CREATE TEMPORARY FUNCTION stars_bar(n INT) RETURNS STRING LANGUAGE JAVASCRIPT AS $$
function stars_bar(n) { return n === null ? null : '*'.repeat(n); }
$$;

-- JavaScript table function: one row per word (a generator function).
CREATE TEMPORARY FUNCTION words(s STRING) RETURNS TABLE (word STRING, pos INT) LANGUAGE JAVASCRIPT AS $$
function* words(s) {
  if (s === null) return;
  let pos = 1;
  for (const w of s.split(' ')) yield [w, pos++];
}
$$;

-- Python table function: the character n-grams of a word.
CREATE TEMPORARY FUNCTION ngrams(s STRING, n INT) RETURNS TABLE (gram STRING) LANGUAGE PYTHON AS $$
def ngrams(s, n):
    if s is None:
        return
    for i in range(len(s) - n + 1):
        yield s[i:i + n]
$$;

-- Python aggregate: average stars weighted by review length.
CREATE TEMPORARY FUNCTION weighted_stars(stars INT, weight INT) RETURNS DOUBLE LANGUAGE PYTHON AS $$
class weighted_stars:
    def create_accumulator(self):
        return [0, 0]

    def accumulate(self, acc, stars, weight):
        if stars is None or weight is None:
            return
        acc[0] += stars * weight
        acc[1] += weight

    def get_value(self, acc):
        if acc[1] == 0:
            return None
        return round(acc[0] / acc[1], 2)
$$;

-- JavaScript aggregate: the longest value.
CREATE TEMPORARY FUNCTION longest(s STRING) RETURNS STRING LANGUAGE JAVASCRIPT AS $$
class longest {
  createAccumulator() { return {best: null}; }
  accumulate(acc, s) {
    if (s !== null && (acc.best === null || s.length > acc.best.length)) acc.best = s;
  }
  getValue(acc) { return acc.best; }
}
$$;

SELECT id, initials(text) AS initials, stars_bar(stars) AS bar FROM reviews ORDER BY id;

SELECT id, word, pos FROM reviews, LATERAL TABLE(words(text)) AS T(word, pos) ORDER BY id, pos;

SELECT id, word FROM reviews LEFT JOIN LATERAL TABLE(words(text)) AS T(word, pos) ON TRUE WHERE pos IS NULL OR pos = 1 ORDER BY id;

SELECT gram FROM TABLE(ngrams('kettle', 3));

SELECT product, weighted_stars(stars, CHAR_LENGTH(text)) AS weighted, longest(text) AS longest_review
FROM reviews GROUP BY product ORDER BY product;

SELECT weighted_stars(stars, 1) AS overall FROM reviews;
