-- Python functions of a file written for PyFlink (udfs.py), registered the
-- way Flink registers them. The same script runs on a Flink cluster:
--   tablerun --endpoint http://127.0.0.1:8083 -f examples/pyflink/udfs.sql
-- (the cluster needs flink-python in lib/ and python.executable set to a
-- Python with apache-flink installed).
SET 'python.files' = 'examples/pyflink/udfs.py';

CREATE TEMPORARY FUNCTION scaled AS 'udfs.scaled' LANGUAGE PYTHON;
CREATE TEMPORARY FUNCTION add AS 'udfs.add' LANGUAGE PYTHON;
CREATE TEMPORARY FUNCTION plus_one AS 'udfs.plus_one' LANGUAGE PYTHON;
CREATE TEMPORARY FUNCTION first_word AS 'udfs.first_word' LANGUAGE PYTHON;
CREATE TEMPORARY FUNCTION stars AS 'udfs.stars' LANGUAGE PYTHON;
CREATE TEMPORARY FUNCTION split_words AS 'udfs.split_words' LANGUAGE PYTHON;
CREATE TEMPORARY FUNCTION split_rows AS 'udfs.split_rows' LANGUAGE PYTHON;
CREATE TEMPORARY FUNCTION weighted_avg AS 'udfs.weighted_avg' LANGUAGE PYTHON;

CREATE TEMPORARY VIEW t(id, s, v, w) AS VALUES (1, 'hello big world', 10, 1), (2, 'a b', 20, 3), (1, 'x', 30, 2);

-- scalar functions: a ScalarFunction with open(), decorated and lambda
-- functions without input types, a ROW result, declared input types
SELECT id, scaled(s) AS scaled, add(id, v) AS added, plus_one(v) AS plus_one, first_word(s) AS first_word, stars(id) AS stars FROM t;

-- table functions: a generator of tuples and a TableFunction yielding Rows
SELECT id, word, n FROM t, LATERAL TABLE(split_words(s)) AS T(word, n);
SELECT id, word, n FROM t, LATERAL TABLE(split_rows(s)) AS T(word, n);

-- an aggregate function with a Row accumulator
SELECT id, weighted_avg(v, w) AS wavg FROM t GROUP BY id;
