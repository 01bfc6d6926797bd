-- Generated data: bounded datagen tables, a blackhole sink and SET.

-- Batch mode: final results instead of changelogs (Flink's default is streaming).
SET 'execution.runtime-mode' = 'batch';

SET 'table.display.max-column-width' = '20';

CREATE TABLE readings (
  id     BIGINT,
  sensor INT,
  temp   DOUBLE
) WITH (
  'connector' = 'datagen',
  'number-of-rows' = '12',
  'fields.id.kind' = 'sequence',
  'fields.id.start' = '1',
  'fields.id.end' = '12',
  'fields.sensor.kind' = 'sequence',
  'fields.sensor.start' = '101',
  'fields.sensor.end' = '112',
  'fields.temp.min' = '20.0',
  'fields.temp.max' = '25.0'
);

DESCRIBE readings;

SELECT sensor % 3 AS bucket, COUNT(*) AS n, SUM(id) AS id_sum, MIN(temp) >= 20.0 AS temp_ok
FROM readings
GROUP BY sensor % 3
ORDER BY bucket;

SELECT id, sensor, id % 2 = 0 AS is_even
FROM readings
WHERE id BETWEEN 3 AND 6;

CREATE TABLE sink (id BIGINT, temp DOUBLE) WITH ('connector' = 'blackhole');

INSERT INTO sink SELECT id, temp FROM readings;

SET;
