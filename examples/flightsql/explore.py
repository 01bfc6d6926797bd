# Query tablerun from Python over Arrow Flight SQL, with pyarrow only.
# Start the server from the repository root first: tablerun flight-sql
import os

import adbc_driver_flightsql.dbapi as flight_sql
import pyarrow.compute as pc

uri = os.environ.get("TABLERUN_FLIGHT_SQL", "grpc://127.0.0.1:31337")
with flight_sql.connect(uri, autocommit=True) as conn, conn.cursor() as cur:
    # One connection is one tablerun session (batch mode: final results).
    cur.execute("""CREATE TABLE orders (
        order_id INT, user_id INT, product STRING, amount DECIMAL(10, 2), order_time TIMESTAMP(3)
    ) WITH ('connector' = 'filesystem', 'path' = 'examples/data/orders.csv', 'format' = 'csv')""")
    cur.execute("SELECT user_id, SUM(amount) AS total FROM orders GROUP BY user_id ORDER BY total DESC")
    totals = cur.fetch_arrow_table()  # a pyarrow.Table
    print(totals.schema.field("total").type, totals.num_rows, "users")
    print("top spender:", totals.slice(0, 1).to_pylist()[0])
    print("all users spent", pc.sum(totals["total"]).as_py())

    # A streaming query's result is its changelog: column "op" first.
    cur.execute("SET 'execution.runtime-mode' = 'streaming'")
    cur.execute("SELECT product, COUNT(*) AS n FROM orders GROUP BY product")
    changes = cur.fetch_arrow_table()
    print("changes:", pc.value_counts(changes["op"]).to_pylist())
