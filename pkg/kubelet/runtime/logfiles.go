package runtime

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// A container's log file at PATH that grew past its size limit is renamed
// to PATH.<UTC time of the rotation> and a new PATH is started; the names
// sort in the order the files were written.
const rotatedLogLayout = "20060102-150405.000000000"

// RotatedLogName is the name the log file at path takes when rotated at t.
func RotatedLogName(path string, t time.Time) string {
	return path + "." + t.UTC().Format(rotatedLogLayout)
}

// LogFiles are the files of the container log at path, oldest first: its
// rotated files, then path itself (which may not exist yet).
func LogFiles(path string) []string {
	dir, base := filepath.Split(path)
	entries, _ := os.ReadDir(filepath.Clean(dir))
	var files []string
	for _, e := range entries {
		suffix, ok := strings.CutPrefix(e.Name(), base+".")
		if !ok || e.IsDir() {
			continue
		}
		if _, err := time.Parse(rotatedLogLayout, suffix); err == nil {
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	slices.Sort(files)
	return append(files, path)
}
