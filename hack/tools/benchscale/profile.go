package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
)

// saveProfiles writes, into dir, the API server's heap profile
// (apiserver.heap, read with `go tool pprof -sample_index=inuse_space`)
// and each running process's /proc smaps_rollup and smaps (anon and file
// pages apart), for the memory breakdown of docs/scale.md.
func (b *bench) saveProfiles(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, p := range b.procs {
		if p.exited() {
			continue
		}
		for _, f := range []string{"smaps_rollup", "smaps", "status"} {
			raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", p.cmd.Process.Pid, f))
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, p.name+"."+f), raw, 0o644); err != nil {
				return err
			}
		}
	}
	for _, f := range []struct{ path, file string }{
		{"/debug/pprof/heap", "apiserver.heap"},
		{"/metrics", "apiserver.metrics"},
	} {
		if err := b.fetch(f.path, filepath.Join(dir, f.file)); err != nil {
			return err
		}
	}
	fmt.Printf("profiles in %s\n", dir)
	return nil
}

func (b *bench) fetch(path, file string) error {
	resp, err := b.hc.Get(b.cfg.Host + path)
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		_ = f.Close()
		return fmt.Errorf("GET %s: %w", path, err)
	}
	return f.Close()
}
