// Command cgoprobe is a dynamically linked (cgo) program, as the collector is, for
// startuppages' tests: it prints its executable's mappings as smaps shows them, releases its
// start-up pages, calls into libc through the dynamic loader's tables, and prints the
// mappings again.
package main

/*
#include <stdlib.h>
#include <unistd.h>
static long probe(void) { return (long)getpid() + (long)labs(-1); }
*/
import "C"

import (
	"fmt"
	"os"

	"github.com/modelplaneai/otelcol-modelplane/internal/startuppages"
)

func main() {
	before, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	resident, err := startuppages.Release()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if got, want := int(C.probe()), os.Getpid()+1; got != want {
		fmt.Fprintf(os.Stderr, "libc after the release: %d, want %d\n", got, want)
		os.Exit(1)
	}
	after, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("released %d\n--- before\n%s--- after\n%s", resident, before, after)
}
