"""Real Python clients against `tablerun flight-sql` (run by clients_test.go).

usage: python3 clients.py HOST:PORT TOKEN DATA_DIR

Queries through ADBC's DBAPI (adbc_driver_flightsql) and through
pyarrow.flight (Flight SQL commands encoded by hand: pyarrow has no Flight
SQL helpers), with pyarrow only (no pandas, no polars). Each check prints
"ok <name>"; a failed check raises (exit code 1).
"""

import sys
import time

import adbc_driver_flightsql
import adbc_driver_flightsql.dbapi as flight_sql
import adbc_driver_manager
import pyarrow as pa
import pyarrow.flight as fl

addr, token, data_dir = sys.argv[1], sys.argv[2], sys.argv[3]
uri = "grpc://" + addr
auth = {adbc_driver_flightsql.DatabaseOptions.AUTHORIZATION_HEADER.value: "Bearer " + token}


def ok(name):
    print("ok", name, flush=True)


def wait(name):
    """Let the Go test check the server (no query left running) while this
    client's connection is still open."""
    print("wait", name, flush=True)
    assert sys.stdin.readline().strip() == "go on"


# --- ADBC DBAPI -------------------------------------------------------------

# Without the token the server refuses.
try:
    with flight_sql.connect(uri, autocommit=True) as conn, conn.cursor() as cur:
        cur.execute("SELECT 1")
        cur.fetch_arrow_table()
    raise AssertionError("a call without the bearer token succeeded")
except adbc_driver_manager.Error as e:
    assert "bearer token" in str(e), e
ok("adbc refused without token")

with flight_sql.connect(uri, db_kwargs=auth, autocommit=True) as conn:
    with conn.cursor() as cur:
        # A bounded query into a pyarrow Table.
        cur.execute(
            "SELECT x, x * 2 AS y, CAST(x AS DECIMAL(10, 2)) / 4 AS q, 'r' || CAST(x AS STRING) AS s "
            "FROM (VALUES (1), (2), (3)) AS v(x) ORDER BY x"
        )
        t = cur.fetch_arrow_table()
        assert t.column_names == ["x", "y", "q", "s"], t.schema
        assert t.column("x").to_pylist() == [1, 2, 3]
        assert t.column("y").to_pylist() == [2, 4, 6]
        assert pa.types.is_decimal(t.schema.field("q").type), t.schema
        assert [str(v) for v in t.column("q").to_pylist()][0].startswith("0.25"), t.column("q")
        assert t.column("s").to_pylist() == ["r1", "r2", "r3"]
        ok("adbc bounded query")

        # DDL, INSERT and the rows read back; SHOW through execute.
        cur.execute(
            "CREATE TABLE orders (id INT, amount DOUBLE) WITH "
            f"('connector' = 'filesystem', 'path' = '{data_dir}/orders', 'format' = 'csv')"
        )
        assert cur.fetch_arrow_table().to_pylist() == [{"result": "OK"}]
        cur.execute("INSERT INTO orders VALUES (1, 9.5), (2, 20.25), (3, 1.0)")
        cur.fetch_arrow_table()
        cur.execute("SELECT id, amount FROM orders WHERE amount > 5 ORDER BY id")
        assert cur.fetch_arrow_table().to_pylist() == [{"id": 1, "amount": 9.5}, {"id": 2, "amount": 20.25}]
        cur.execute("SHOW TABLES")
        assert cur.fetch_arrow_table().column(0).to_pylist() == ["orders"]  # before the upload below
        ok("adbc ddl and insert")

        # A pyarrow Table uploaded as a temporary table (bulk ingestion).
        n = cur.adbc_ingest("uploaded", pa.table({"k": [1, 2, 3], "w": ["x", None, "z"]}), mode="create", temporary=True)
        assert n == 3, n
        cur.execute("SELECT SUM(k) AS total, COUNT(w) AS named FROM uploaded")
        assert cur.fetch_arrow_table().to_pylist() == [{"total": 6, "named": 2}]
        ok("adbc ingest")

        # An error names Flink's exception and the position.
        try:
            cur.execute("SELECT id,\n       amont FROM orders")
            raise AssertionError("a bad column was accepted")
        except adbc_driver_manager.ProgrammingError as e:
            msg = str(e)
            assert "Column 'amont' not found in any table" in msg, msg
            assert "From line 2, column 8 to line 2, column 12" in msg, msg
            assert "Did you mean 'amount'?" in msg, msg
        ok("adbc error with position")

    # Metadata: catalogs, databases, tables (ADBC's get_objects).
    objs = conn.adbc_get_objects(depth="tables").read_all().to_pylist()
    cats = {c["catalog_name"]: c for c in objs}
    assert "default_catalog" in cats, objs
    dbs = {d["db_schema_name"]: d for d in cats["default_catalog"]["catalog_db_schemas"]}
    assert [t["table_name"] for t in dbs["default_database"]["db_schema_tables"]] == ["orders", "uploaded"], dbs
    schema = conn.adbc_get_table_schema("orders", catalog_filter="default_catalog", db_schema_filter="default_database")
    assert schema.names == ["id", "amount"], schema
    ok("adbc metadata")

    # An unbounded streaming query: read a few batches, then cancel.
    with conn.cursor() as cur:
        cur.execute("SET 'execution.runtime-mode' = 'streaming'")
        cur.execute(
            "CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '5000', "
            "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '9223372036854775806')"
        )
        cur.execute("SELECT id FROM gen")
        reader = cur.fetch_record_batch()
        assert reader.schema.names == ["op", "id"], reader.schema
        seen = 0
        for batch in reader:
            assert set(batch.column(0).to_pylist()) == {"+I"}
            seen += batch.num_rows
            if seen >= 3:
                break
        assert seen >= 3
        cur.adbc_cancel()
        wait("adbc streaming read then cancel")
    ok("adbc streaming read then cancel")

# --- pyarrow.flight -----------------------------------------------------------


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(num, payload):
    """A length-delimited protobuf field."""
    return varint(num << 3 | 2) + varint(len(payload)) + payload


def command(name, query):
    """google.protobuf.Any of a Flight SQL command with its query field 1."""
    msg = field(1, query.encode())
    return field(1, ("type.googleapis.com/arrow.flight.protocol.sql." + name).encode()) + field(2, msg)


client = fl.FlightClient(uri)
opts = fl.FlightCallOptions(headers=[(b"authorization", ("Bearer " + token).encode())])


def query(sql):
    info = client.get_flight_info(fl.FlightDescriptor.for_command(command("CommandStatementQuery", sql)), opts)
    return info, client.do_get(info.endpoints[0].ticket, opts)


info, reader = query("SELECT k, COUNT(*) AS n FROM (VALUES ('a'), ('b'), ('a')) AS v(k) GROUP BY k ORDER BY k")
assert info.schema.names == ["k", "n"]
t = reader.read_all()
assert t.to_pylist() == [{"k": "a", "n": 2}, {"k": "b", "n": 1}], t
ok("pyarrow.flight bounded query")

try:
    query("SELECT nope FROM (VALUES (1)) AS v(x)")
    raise AssertionError("a bad column was accepted")
except fl.FlightServerError as e:  # INVALID_ARGUMENT
    assert "Column 'nope' not found" in str(e) and "From line 1, column 8 to line 1, column 11" in str(e), e
except pa.ArrowInvalid as e:
    assert "Column 'nope' not found" in str(e) and "From line 1, column 8 to line 1, column 11" in str(e), e
ok("pyarrow.flight error with position")

# A session of its own: SET, an unbounded changelog, read partially, cancel.
for sql in [
    "SET 'execution.runtime-mode' = 'streaming'",
    "CREATE TABLE gen (id BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '5000', "
    "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '9223372036854775806')",
]:
    query(sql)[1].read_all()
info, reader = query("SELECT id % 3 AS k, COUNT(*) AS n FROM gen GROUP BY id % 3")
assert info.schema.names == ["op", "k", "n"], info.schema
kinds = set()
start = time.time()
while len(kinds) < 2 and time.time() - start < 20:
    chunk = reader.read_chunk()
    kinds |= set(chunk.data.column(0).to_pylist())
assert {"+I", "-U", "+U"} & kinds and len(kinds) >= 2, kinds
reader.cancel()
wait("pyarrow.flight changelog read then cancel")
ok("pyarrow.flight changelog read then cancel")
client.close()
print("done", flush=True)
