-- Streaming mode, Flink's default: a GROUP BY prints its changelog, one
-- change per input row (+I for a new key, -U/+U when a count changes).
-- Run from the repository root:  go run ./cmd/tablerun -f examples/streaming.sql

CREATE TABLE clicks (
  user_name STRING,
  url       STRING
) WITH (
  'connector' = 'values',
  'data' = '[["Mary", "./home"], ["Bob", "./cart"], ["Mary", "./prod?id=1"], ["Liz", "./home"], ["Bob", "./prod?id=3"], ["Mary", "./prod?id=7"]]'
);

SELECT user_name, COUNT(url) AS cnt
FROM clicks
GROUP BY user_name;

-- The same query into the print connector: the sink receives the changelog.
CREATE TABLE counts (
  user_name STRING,
  cnt       BIGINT
) WITH (
  'connector' = 'print'
);

INSERT INTO counts
SELECT user_name, COUNT(url) AS cnt
FROM clicks
GROUP BY user_name;
