-- Hot-key GROUP BY with a user-defined aggregate: the average bid price of
-- every day (q15's key: one group for the whole run), in a Python
-- aggregate function with merge (so it can run in two phases).
CREATE TEMPORARY FUNCTION avg_price(price BIGINT) RETURNS BIGINT LANGUAGE PYTHON AS $$
class avg_price:
    def create_accumulator(self):
        return [0, 0]

    def accumulate(self, acc, price):
        if price is not None:
            acc[0] += price
            acc[1] += 1

    def merge(self, acc, others):
        for o in others:
            acc[0] += o[0]
            acc[1] += o[1]

    def get_value(self, acc):
        if acc[1] == 0:
            return None
        return acc[0] // acc[1]
$$;

CREATE TABLE nexmark_qhotudf (
  `day` VARCHAR,
  num BIGINT,
  avg_price BIGINT
) WITH (
  'connector' = 'blackhole'
);

INSERT INTO nexmark_qhotudf
SELECT DATE_FORMAT(dateTime, 'yyyy-MM-dd') AS `day`, COUNT(*), avg_price(price)
FROM bid GROUP BY DATE_FORMAT(dateTime, 'yyyy-MM-dd');
