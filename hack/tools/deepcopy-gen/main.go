// Command deepcopy-gen writes zz_generated.deepcopy.go, the DeepCopyInto,
// DeepCopy and DeepCopyObject methods of API types, for marked packages.
//
// A package is marked by a line in its package comment (doc.go):
//
//	// +kubecore:deepcopy-gen=package
//
// Every exported struct, map and slice type of a marked package gets
// DeepCopyInto and DeepCopy, except types with a hand-written DeepCopyInto
// and types marked "+kubecore:deepcopy-gen=false". A type whose comment
// block carries
//
//	// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
//
// also gets DeepCopyObject (in general DeepCopy<Name> for the interface
// named after the last dot).
//
// Usage:
//
//	deepcopy-gen [-out-root dir] package-pattern...
//
// With -out-root the files are written under dir, at their path relative to
// the working directory, instead of beside the sources (hack/verify-codegen.sh
// compares such a copy with the tree). Packages without the marker are
// ignored, and a stale generated file of a package that lost its marker or
// its types is removed.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	outRoot := flag.String("out-root", "", "write generated files under this directory instead of in place")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: deepcopy-gen [-out-root dir] package-pattern...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*outRoot, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "deepcopy-gen:", err)
		os.Exit(1)
	}
}

func run(outRoot string, patterns []string) error {
	files, err := Generate(".", patterns)
	if err != nil {
		return err
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	for _, f := range files {
		path := f.Path
		if outRoot != "" {
			rel, err := filepath.Rel(wd, f.Path)
			if err != nil {
				return err
			}
			path = filepath.Join(outRoot, rel)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
		}
		if f.Content == nil {
			if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
				return err
			}
			continue
		}
		if err := os.WriteFile(path, f.Content, 0o644); err != nil {
			return err
		}
	}
	return nil
}
