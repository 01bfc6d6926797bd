// Command flinkup starts a Flink session cluster with its SQL Gateway (see
// package flinkenv), prints the gateway's URL and keeps it running until
// interrupted (SIGINT/SIGTERM), then stops it.
//
//	go run ./internal/flinkenv/flinkup &
//	tablerun diff --gateway http://127.0.0.1:PORT script.sql
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/tablerun/tablerun/internal/flinkenv"
)

func main() {
	c, err := flinkenv.Start(context.Background(), flinkenv.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(c.GatewayURL)
	fmt.Fprintln(os.Stderr, "flinkup: logs in", c.LogDir, "; interrupt to stop")
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
	if err := c.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
