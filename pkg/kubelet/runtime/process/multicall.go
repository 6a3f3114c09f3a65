package process

import (
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// multicallPrograms runs the programs of images that are one multi-call
// binary (busybox: sh, ls, nc, ... are all its applets) through the host's
// copy of that binary, so that a busybox container's /bin/sh is busybox's
// sh, as in the image, and not the host's (dash on Debian, which lacks
// the [[ ]] the e2e Job programs use). The zero value is ready to use;
// each binary's applets are listed once.
type multicallPrograms struct {
	mu sync.Mutex
	// binaries maps a binary's name to its path and applets; a binary
	// the host lacks has an empty path.
	binaries map[string]multicallBinary
}

type multicallBinary struct {
	path    string
	applets map[string]bool
}

// command returns argv with its program, when it is an applet of the
// host's binary (by base name: "/bin/sh" is "sh"), run through it:
// [/usr/bin/busybox sh -c ...]. Anything else is argv itself.
func (m *multicallPrograms) command(binary string, argv []string) []string {
	if binary == "" || len(argv) == 0 {
		return argv
	}
	b := m.binary(binary)
	applet := filepath.Base(argv[0])
	if b.path == "" || !b.applets[applet] {
		return argv
	}
	if strings.Contains(argv[0], "/") && b.applets["sh"] {
		// Named by its path in the image (/bin/sh), the applet calls
		// itself that in its messages ("/bin/sh: can't create ..."), as
		// the e2e specs expect: the binary's sh execs it under that
		// name.
		return append([]string{b.path, "sh", "-c", `exec -a "$0" ` + quote(b.path) + ` "$@"`, argv[0]}, argv[1:]...)
	}
	return append([]string{b.path, applet}, argv[1:]...)
}

func (m *multicallPrograms) binary(name string) multicallBinary {
	m.mu.Lock()
	defer m.mu.Unlock()
	if b, ok := m.binaries[name]; ok {
		return b
	}
	if m.binaries == nil {
		m.binaries = map[string]multicallBinary{}
	}
	var b multicallBinary
	if path, err := exec.LookPath(name); err == nil {
		// busybox --list prints one applet a line.
		if out, err := exec.Command(path, "--list").Output(); err == nil {
			b = multicallBinary{path: path, applets: map[string]bool{}}
			for _, a := range strings.Fields(string(out)) {
				b.applets[a] = true
			}
		}
	}
	m.binaries[name] = b
	return b
}
