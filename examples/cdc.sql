-- A changelog source: a debezium-json file (one Debezium event per line,
-- as Debezium writes them to Kafka) read by the filesystem connector.
-- Snapshot reads ("r") and inserts ("c") are +I rows, an update ("u") is
-- -U with the old row and +U with the new one, a delete ("d") is -D.
CREATE TABLE products (
  id BIGINT,
  name STRING,
  description STRING,
  weight DECIMAL(10, 2)
) WITH (
  'connector' = 'filesystem',
  'path' = 'examples/data/products.debezium.json',
  'format' = 'debezium-json'
);

-- The changelog as it is read.
SELECT * FROM products;

-- An aggregate over it takes the retractions: the result is the table of
-- the database after the last event.
SELECT name, COUNT(*) AS cnt, SUM(weight) AS total_weight FROM products GROUP BY name;

SELECT COUNT(*) AS products, MAX(weight) AS heaviest FROM products WHERE description LIKE '%scooter%';

