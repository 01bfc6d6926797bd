// Command embed runs a query through the Go API (the README's example).
// Run it from the repository root: go run ./examples/embed
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/tablerun/tablerun/core"
)

func main() {
	ctx := context.Background()
	env := core.NewTableEnvironment(core.InBatchMode())
	_, err := env.ExecuteSQL(ctx, `CREATE TABLE orders (
	    order_id INT, user_id INT, product STRING, amount DECIMAL(10, 2), order_time TIMESTAMP(3)
	) WITH ('connector' = 'filesystem', 'path' = 'examples/data/orders.csv', 'format' = 'csv')`)
	if err != nil {
		log.Fatal(err)
	}
	t, err := env.SQLQuery(`SELECT user_id, SUM(amount) AS total, MAX(order_time) AS last_order
	    FROM orders GROUP BY user_id ORDER BY user_id`) // lazy: plans, runs nothing
	if err != nil {
		log.Fatal(err)
	}
	res, err := t.Execute(ctx) // runs
	if err != nil {
		log.Fatal(err)
	}
	if err := res.Print(os.Stdout); err != nil { // tableau layout
		log.Fatal(err)
	}
	for row := range res.Collect() { // Go values: int32, core.Decimal, time.Time
		user, total, last := row[0].(int32), row[1].(core.Decimal), row[2].(time.Time)
		fmt.Printf("user %d spent %s, last on %s\n", user, total, last.Format(time.DateOnly))
	}
}
