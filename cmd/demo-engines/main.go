// Command demo-engines serves the recorded vLLM, SGLang and dcgm-exporter /metrics pages of
// testdata/exposition at the addresses the embedded default scrapes, advancing counters on
// every scrape, so `make run` shows a working pipeline on a machine with no GPU and no engine.
package main

import (
	"flag"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelplaneai/otelcol-modelplane/internal/demofleet"
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
