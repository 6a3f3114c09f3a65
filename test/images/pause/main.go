// Command pause is the sandbox process of the CRI tests' pods: it holds the
// sandbox's namespaces, reaps orphans when it is PID 1, and exits on
// SIGINT or SIGTERM. Built static (CGO_ENABLED=0) into a one-layer image.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range sigs {
		if s != syscall.SIGCHLD {
			return
		}
		for {
			var ws syscall.WaitStatus
			if pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil); pid <= 0 || err != nil {
				break
			}
		}
	}
}
