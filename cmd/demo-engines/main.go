// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Command demo-engines serves the recorded vLLM, SGLang and dcgm-exporter /metrics pages of
// testdata/exposition at the addresses the embedded default scrapes, advancing counters on
// every scrape, so `make run` shows a working pipeline on a machine with no GPU and no engine.
package main

import (
	"errors"
	"flag"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelplaneai/otelcol-modelplane/internal/testutil/demofleet"
)

func main() {
	dir := flag.String("expositions", "testdata/exposition", "folder of .prom files")
	flag.Parse()
	engines, err := demofleet.DefaultFleet(*dir)
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range engines {
		if err := e.Start(); err != nil {
			if errors.Is(err, syscall.EADDRINUSE) {
				// make run would start the collector on whatever holds the port.
				log.Fatalf("%v: another process holds it (an engine of your own, or an earlier make run): stop it, or scrape your own engines with make build && bin/otelcol-modelplane", err)
			}
			log.Fatal(err)
		}
		log.Printf("demo %s serving http://%s/metrics", e.Name, e.Addr)
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	for _, e := range engines {
		_ = e.Stop()
	}
}
