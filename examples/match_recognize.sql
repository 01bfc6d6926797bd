-- MATCH_RECOGNIZE: pattern recognition over the rows of each partition in
-- event-time order, the examples of Flink's "Pattern Recognition" page
-- (streaming mode, Flink's default). `tablerun diff examples/match_recognize.sql`
-- compares every statement with a real Flink 2.3.

CREATE TABLE Ticker (
  symbol STRING, rowtime TIMESTAMP(3), price BIGINT, tax BIGINT,
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'examples/data/ticker.csv', 'format' = 'csv');

CREATE TABLE TickerXyz (
  symbol STRING, rowtime TIMESTAMP(3), price BIGINT, tax BIGINT,
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND
) WITH ('connector' = 'filesystem', 'path' = 'examples/data/ticker_xyz.csv', 'format' = 'csv');

-- A period of falling prices: a start, one or more lower prices, a rise.
SELECT *
FROM Ticker
    MATCH_RECOGNIZE (
        PARTITION BY symbol
        ORDER BY rowtime
        MEASURES
            START_ROW.rowtime AS start_tstamp,
            LAST(PRICE_DOWN.rowtime) AS bottom_tstamp,
            LAST(PRICE_UP.rowtime) AS end_tstamp
        ONE ROW PER MATCH
        AFTER MATCH SKIP TO LAST PRICE_UP
        PATTERN (START_ROW PRICE_DOWN+ PRICE_UP)
        DEFINE
            PRICE_DOWN AS
                (LAST(PRICE_DOWN.price, 1) IS NULL AND PRICE_DOWN.price < START_ROW.price) OR
                    PRICE_DOWN.price < LAST(PRICE_DOWN.price, 1),
            PRICE_UP AS
                PRICE_UP.price > LAST(PRICE_DOWN.price, 1)
    ) MR;

-- Where the next match starts: past the last row, or at the next row.
SELECT *
FROM TickerXyz
    MATCH_RECOGNIZE (
        PARTITION BY symbol
        ORDER BY rowtime
        MEASURES
            SUM(A.price) AS sumPrice,
            FIRST(rowtime) AS startTime,
            LAST(rowtime) AS endTime
        ONE ROW PER MATCH
        AFTER MATCH SKIP PAST LAST ROW
        PATTERN (A+ C)
        DEFINE
            A AS SUM(A.price) < 30
    );

SELECT *
FROM TickerXyz
    MATCH_RECOGNIZE (
        PARTITION BY symbol
        ORDER BY rowtime
        MEASURES
            SUM(A.price) AS sumPrice,
            FIRST(rowtime) AS startTime,
            LAST(rowtime) AS endTime
        ONE ROW PER MATCH
        AFTER MATCH SKIP TO NEXT ROW
        PATTERN (A+ C)
        DEFINE
            A AS SUM(A.price) < 30
    );

-- MATCH_ROWTIME() is a rowtime attribute: the matches can be windowed.
CREATE TEMPORARY VIEW dips AS
SELECT *
FROM TickerXyz
    MATCH_RECOGNIZE (
        PARTITION BY symbol
        ORDER BY rowtime
        MEASURES
            MATCH_ROWTIME() AS matchTime,
            A.price AS low
        ONE ROW PER MATCH
        AFTER MATCH SKIP PAST LAST ROW
        PATTERN (A B)
        DEFINE
            A AS A.price < 8,
            B AS B.price >= 8
    );

SELECT symbol, window_start, window_end, COUNT(*) AS dips, MIN(low) AS lowest
FROM TABLE(TUMBLE(TABLE dips, DESCRIPTOR(matchTime), INTERVAL '5' SECOND))
GROUP BY symbol, window_start, window_end;
