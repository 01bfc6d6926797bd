-- Hot-key GROUP BY: every bid of a day goes to one group (q15's key), a few
-- groups for the whole run.
CREATE TABLE nexmark_qhot (
  `day` VARCHAR,
  num BIGINT,
  total BIGINT,
  top BIGINT
) WITH (
  'connector' = 'blackhole'
);

INSERT INTO nexmark_qhot
SELECT DATE_FORMAT(dateTime, 'yyyy-MM-dd') AS `day`, COUNT(*), SUM(price), MAX(price)
FROM bid GROUP BY DATE_FORMAT(dateTime, 'yyyy-MM-dd');
