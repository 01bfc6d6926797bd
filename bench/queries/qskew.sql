-- Skewed GROUP BY: bids per auction (Nexmark's hot auctions get most bids).
CREATE TABLE nexmark_qskew (
  auction BIGINT,
  num BIGINT,
  total BIGINT,
  top BIGINT
) WITH (
  'connector' = 'blackhole'
);

INSERT INTO nexmark_qskew
SELECT auction, COUNT(*), SUM(price), MAX(price) FROM bid GROUP BY auction;
