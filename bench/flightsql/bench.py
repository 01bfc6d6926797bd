"""Rows/s delivered to Python over Arrow Flight SQL (bench/README.md, issue 18).

usage: python3 bench/flightsql/bench.py TABLERUN_BINARY [--rows 10000000] [--rounds 3] [--dir DIR]

One Parquet file of ROWS rows (id BIGINT, v DOUBLE, s STRING of 8
characters; written once by tablerun from datagen, snappy), then in every
round, one after the other so that all three see the same load:

  flight-sql  ADBC (adbc_driver_flightsql) fetch_arrow_table() of
              SELECT id, v, s FROM t, from a `tablerun flight-sql` server
              (batch mode): GetFlightInfo + DoGet, Arrow batches over gRPC
  pipe        `tablerun --format arrow -e "... SELECT id, v, s FROM t"`
              read by pyarrow.ipc.open_stream from the pipe
  pyarrow     pyarrow.parquet.read_table of the same file, in this process
              (the ceiling: no engine, no transport)

Each prints seconds, M rows/s and MB/s (Arrow bytes of the table received);
an unmeasured warm-up of flight-sql and pyarrow comes first.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

import adbc_driver_flightsql.dbapi as flight_sql
import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

p = argparse.ArgumentParser()
p.add_argument("tablerun")
p.add_argument("--rows", type=int, default=10_000_000)
p.add_argument("--rounds", type=int, default=3)
p.add_argument("--dir", default=None)
args = p.parse_args()

work = args.dir or tempfile.mkdtemp(prefix="flightsql-bench-")
data = os.path.join(work, "t")
ddl = (
    "CREATE TABLE t (id BIGINT, v DOUBLE, s STRING) WITH "
    f"('connector' = 'filesystem', 'path' = '{data}', 'format' = 'parquet')"
)
if not os.path.isdir(data) or not os.listdir(data):
    gen = (
        "SET 'execution.runtime-mode' = 'batch';\n"
        f"CREATE TABLE gen (id BIGINT, v DOUBLE, s STRING) WITH ('connector' = 'datagen', "
        f"'number-of-rows' = '{args.rows}', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', "
        f"'fields.id.end' = '{args.rows}', 'fields.s.length' = '8');\n"
        f"{ddl};\nINSERT INTO t SELECT * FROM gen;\n"
    )
    subprocess.run([args.tablerun, "-e", gen], check=True, stdout=subprocess.DEVNULL)
files = [os.path.join(data, f) for f in os.listdir(data) if not f.startswith(".")]
print(f"data: {len(files)} file(s), {sum(os.path.getsize(f) for f in files) / 1e6:.0f} MB of Parquet", flush=True)

server = subprocess.Popen([args.tablerun, "flight-sql", "--port", "0"], stdout=subprocess.PIPE, text=True)
try:
    line = server.stdout.readline()
    uri = line.strip().rsplit(" ", 1)[-1]
    assert uri.startswith("grpc://"), line

    def flight():
        with flight_sql.connect(uri, autocommit=True) as conn, conn.cursor() as cur:
            cur.execute(ddl)
            cur.execute("SELECT id, v, s FROM t")
            return cur.fetch_arrow_table()

    def pipe():
        script = f"SET 'execution.runtime-mode' = 'batch';\n{ddl};\nSELECT id, v, s FROM t;\n"
        proc = subprocess.Popen([args.tablerun, "--format", "arrow", "-e", script], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        table = ipc.open_stream(proc.stdout).read_all()
        assert proc.wait() == 0
        return table

    def direct():
        return pq.read_table(data)

    # a warm-up round (page cache, imports, the server's first session)
    for fn in (flight, direct):
        fn()
    results = {"flight-sql": [], "pipe": [], "pyarrow": []}
    for r in range(args.rounds):
        for name, fn in [("flight-sql", flight), ("pipe", pipe), ("pyarrow", direct)]:
            start = time.perf_counter()
            table = fn()
            secs = time.perf_counter() - start
            assert table.num_rows == args.rows, (name, table.num_rows)
            assert table.column_names[-3:] == ["id", "v", "s"], table.schema
            mb = table.nbytes / 1e6
            results[name].append(args.rows / secs)
            print(f"round {r + 1} {name:10s} {secs:6.2f} s {args.rows / secs / 1e6:6.2f} M rows/s {mb / secs:7.1f} MB/s", flush=True)
            del table
    for name, rates in results.items():
        print(f"{name:10s} {min(rates) / 1e6:.2f}-{max(rates) / 1e6:.2f} M rows/s over {len(rates)} rounds")
finally:
    server.terminate()
    server.wait()
    if not args.dir:
        shutil.rmtree(work)
