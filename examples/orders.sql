-- A small shop: orders in a CSV file, customers in another.
-- Run from the repository root:  go run ./cmd/tablerun -f examples/orders.sql

-- Batch mode: final results instead of changelogs (Flink's default is streaming).
SET 'execution.runtime-mode' = 'batch';

CREATE TABLE orders (
  order_id   INT,
  user_id    INT,
  product    STRING,
  amount     DECIMAL(10, 2),
  order_time TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = 'examples/data/orders.csv',
  'format' = 'csv'
);

CREATE TABLE users (
  user_id INT,
  name    STRING,
  country STRING
) WITH (
  'connector' = 'filesystem',
  'path' = 'examples/data/users.csv',
  'format' = 'csv'
);

CREATE VIEW big_orders AS
SELECT order_id, user_id, product, amount
FROM orders
WHERE amount >= 50;

SHOW TABLES;

-- Revenue per customer.
SELECT user_id, COUNT(*) AS orders, SUM(amount) AS total
FROM orders
GROUP BY user_id
ORDER BY user_id;

-- The three best customers by name; user 7 has no profile and drops out of the inner join.
SELECT u.name, u.country, SUM(o.amount) AS total
FROM orders AS o
JOIN users AS u ON o.user_id = u.user_id
GROUP BY u.name, u.country
ORDER BY total DESC
LIMIT 3;

-- Customers without orders, and orders without a known customer.
SELECT u.name, o.order_id
FROM users AS u
FULL OUTER JOIN orders AS o ON o.user_id = u.user_id
WHERE u.user_id IS NULL OR o.order_id IS NULL
ORDER BY u.name NULLS LAST;

-- Big orders by product.
SELECT product, COUNT(*) AS cnt, MAX(amount) AS max_amount
FROM big_orders
GROUP BY product
ORDER BY cnt DESC, product;

-- The latest order of each day.
SELECT CAST(order_time AS DATE) AS order_day, MAX(order_time) AS last_order
FROM orders
GROUP BY CAST(order_time AS DATE)
ORDER BY order_day;

-- Revenue per country, written to the print connector.
CREATE TABLE country_revenue (
  country STRING,
  revenue DECIMAL(38, 2)
) WITH (
  'connector' = 'print'
);

INSERT INTO country_revenue
SELECT COALESCE(u.country, '??'), SUM(o.amount)
FROM orders AS o
LEFT JOIN users AS u ON o.user_id = u.user_id
GROUP BY COALESCE(u.country, '??')
ORDER BY 1;
