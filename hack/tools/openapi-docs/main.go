// Command openapi-docs extracts the doc comments of API types and their
// fields into pkg/openapi/zz_generated.docs.go, the OpenAPI descriptions.
//
// Usage:
//
//	openapi-docs [-o file] package-pattern...
//
// Each exported type's comment is keyed "<import path>.<Type>" and each
// exported struct field's comment "<import path>.<Type>.<Field>" (the Go
// field name). Marker lines ("+name=value") are dropped, lines of a
// paragraph are joined by spaces and paragraphs by a blank line. The schema
// markers (+listType, +listMapKey, +mapType, +structType, +default) go into a second
// table, typeMarkers, with the same keys.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	out := flag.String("o", "pkg/openapi/zz_generated.docs.go", "file to write")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: openapi-docs [-o file] package-pattern...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	ex, err := Extract(".", flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "openapi-docs:", err)
		os.Exit(1)
	}
	src, err := Render(ex)
	if err != nil {
		fmt.Fprintln(os.Stderr, "openapi-docs:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "openapi-docs:", err)
		os.Exit(1)
	}
}
