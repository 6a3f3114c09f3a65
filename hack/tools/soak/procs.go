package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// podProcesses finds the host processes of the soak's pods: those whose
// environment has SOAK_RUN=run, by the SOAK_POD they carry (the pod's
// name, through the downward API).
func podProcesses(run string) map[string][]int {
	out := map[string][]int{}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return out
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(env, []byte("SOAK_RUN="+run+"\x00")) {
			continue
		}
		for kv := range bytes.SplitSeq(env, []byte{0}) {
			if name, ok := strings.CutPrefix(string(kv), "SOAK_POD="); ok {
				out[name] = append(out[name], pid)
			}
		}
	}
	return out
}

// alive reports whether pid runs (and is not a zombie).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i > 0 && len(b) > i+2 && b[i+2] != 'Z'
}

// runtimePIDs reads the process runtime's state files under dataDir: the
// PID it records for each container ID (as the kubelet reports it,
// process://ID).
func runtimePIDs(dataDir string) (map[string]int, error) {
	out := map[string]int{}
	err := filepath.WalkDir(dataDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // files come and go as containers do
		}
		if d.IsDir() || d.Name() != "state.json" || filepath.Base(filepath.Dir(filepath.Dir(path))) != "containers" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		var rec struct {
			Status struct {
				ID  string
				PID int
			} `json:"status"`
		}
		if json.Unmarshal(b, &rec) == nil && rec.Status.ID != "" {
			out[rec.Status.ID] = rec.Status.PID
		}
		return nil
	})
	return out, err
}
