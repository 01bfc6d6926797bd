-- Set operations, VALUES, CTEs and subqueries over inline data.
-- (Flink types a list of string literals as CHAR(longest) and pads the
-- shorter ones; casting the first one to STRING makes the column a STRING.)

-- Batch mode: final results instead of changelogs (Flink's default is streaming).
SET 'execution.runtime-mode' = 'batch';

CREATE TEMPORARY VIEW spring(product, qty) AS
VALUES (CAST('apples' AS STRING), 10), ('pears', 4), ('plums', 7), ('apples', 3);

CREATE TEMPORARY VIEW summer(product, qty) AS
VALUES (CAST('plums' AS STRING), 2), ('cherries', 12), ('apples', 5);

SELECT product FROM spring UNION SELECT product FROM summer ORDER BY product;

SELECT product FROM spring UNION ALL SELECT product FROM summer ORDER BY product;

SELECT product FROM spring INTERSECT SELECT product FROM summer ORDER BY product;

SELECT product FROM spring EXCEPT SELECT product FROM summer;

WITH totals AS (
  SELECT product, SUM(qty) AS qty FROM spring GROUP BY product
)
SELECT product, qty
FROM totals
WHERE qty > (SELECT AVG(qty) FROM summer)
ORDER BY product;

SELECT product, qty FROM summer
WHERE product IN (SELECT product FROM spring WHERE qty > 5)
ORDER BY product;

SELECT product FROM summer WHERE product = 'nothing';

SELECT 'This product name is much longer than thirty characters' AS note, CAST(NULL AS INT) AS missing;
