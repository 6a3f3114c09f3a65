package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sort"
	"strings"
)

// A Package is one node of the import graph.
type Package struct {
	ImportPath string
	// Imports are the imports of the package's non-test files.
	Imports []string
	// TestImports are the imports of its _test.go files, in the package
	// and in the external _test package.
	TestImports []string
}

// A Graph maps import paths to packages: the packages named on the command
// line and everything they import.
type Graph map[string]*Package

// Paths returns the import paths of the graph, sorted.
func (g Graph) Paths() []string {
	paths := make([]string, 0, len(g))
	for p := range g {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths
}

// listedPackage holds the fields asked of `go list -json`.
type listedPackage struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
	Error        *struct{ Err string }
	DepsErrors   []struct{ Err string }
}

// LoadGraph runs one `go list -deps` over the patterns in dir and returns
// the import graph. Any failure of go list, or any package it could not
// load, is an error: a rule checked on half a graph proves nothing.
func LoadGraph(ctx context.Context, dir string, patterns []string) (Graph, error) {
	args := append([]string{"list", "-deps", "-json=ImportPath,Imports,TestImports,XTestImports,Error,DepsErrors"}, patterns...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	g, err := decodeGraph(&stdout)
	if err != nil {
		return nil, fmt.Errorf("go %s: %w", strings.Join(args, " "), err)
	}
	return g, nil
}

// decodeGraph reads the stream of JSON objects `go list -json` prints.
func decodeGraph(r io.Reader) (Graph, error) {
	g := Graph{}
	var problems []string
	dec := json.NewDecoder(r)
	for {
		var lp listedPackage
		if err := dec.Decode(&lp); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("decode its output: %w", err)
		}
		if lp.Error != nil {
			problems = append(problems, lp.ImportPath+": "+lp.Error.Err)
		}
		for _, e := range lp.DepsErrors {
			problems = append(problems, lp.ImportPath+": "+e.Err)
		}
		p := &Package{ImportPath: lp.ImportPath, Imports: lp.Imports}
		for _, imp := range append(lp.TestImports, lp.XTestImports...) {
			if imp != lp.ImportPath { // the external test package imports the package under test
				p.TestImports = append(p.TestImports, imp)
			}
		}
		g[lp.ImportPath] = p
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("packages failed to load:\n%s", strings.Join(problems, "\n"))
	}
	if len(g) == 0 {
		return nil, errors.New("no packages listed")
	}
	return g, nil
}
