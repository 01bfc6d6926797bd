// Command flinkup starts a Flink session cluster with its SQL Gateway (see
// package flinkenv), prints the gateway's URL and keeps it running until
// interrupted (SIGINT/SIGTERM), then stops it.
//
//	go run ./internal/flinkenv/flinkup [-slots 2] [-tm-memory 1536m] &
//	tablerun diff --gateway http://127.0.0.1:PORT script.sql
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/tablerun/tablerun/internal/flinkenv"
)

func main() {
	slots := flag.Int("slots", 2, "task slots of the TaskManager (taskmanager.numberOfTaskSlots)")
	tm := flag.String("tm-memory", "1536m", "taskmanager.memory.process.size")
	flag.Parse()
	c, err := flinkenv.Start(context.Background(), flinkenv.Options{Slots: *slots, TaskManagerMemory: *tm})
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
