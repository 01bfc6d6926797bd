package core_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/tablerun/tablerun/core"
)

// Example embeds tablerun in a Go program: a batch session, a view over
// inline rows, a lazy query run with Execute, the result printed as
// Flink's client does and read as Go values (core.Decimal for DECIMAL,
// time.Time for TIMESTAMP; see TableResult.Collect).
func Example() {
	ctx := context.Background()
	env := core.NewTableEnvironment(core.InBatchMode())
	if _, err := env.ExecuteSQL(ctx, `CREATE TEMPORARY VIEW orders AS SELECT * FROM (VALUES
	    (1, CAST(12.50 AS DECIMAL(10, 2)), TIMESTAMP '2024-03-01 10:03:11.000'),
	    (2, CAST(49.90 AS DECIMAL(10, 2)), TIMESTAMP '2024-03-01 09:12:45.120'),
	    (1, CAST(129.00 AS DECIMAL(10, 2)), TIMESTAMP '2024-03-02 11:47:02.530')
	) AS o(user_id, amount, order_time)`); err != nil {
		log.Fatal(err)
	}
	t, err := env.SQLQuery(`SELECT user_id, SUM(amount) AS total, MAX(order_time) AS last_order
	    FROM orders GROUP BY user_id ORDER BY user_id`)
	if err != nil {
		log.Fatal(err)
	}
	res, err := t.Execute(ctx)
	if err != nil {
		log.Fatal(err)
	}
	if err := res.Print(os.Stdout); err != nil {
		log.Fatal(err)
	}
	for row := range res.Collect() {
		user, total, last := row[0].(int32), row[1].(core.Decimal), row[2].(time.Time)
		fmt.Printf("user %d: %s (scale %d), last order %s\n", user, total, total.Scale(), last.Format(time.DateTime))
	}
	// Output:
	// +---------+--------+-------------------------+
	// | user_id |  total |              last_order |
	// +---------+--------+-------------------------+
	// |       1 | 141.50 | 2024-03-02 11:47:02.530 |
	// |       2 |  49.90 | 2024-03-01 09:12:45.120 |
	// +---------+--------+-------------------------+
	// 2 rows in set
	// user 1: 141.50 (scale 2), last order 2024-03-02 11:47:02
	// user 2: 49.90 (scale 2), last order 2024-03-01 09:12:45
}
