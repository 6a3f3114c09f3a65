//go:build unix

package exec

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// watchSize sends the terminal's size now and after each SIGWINCH, until
// ctx ends.
func watchSize(ctx context.Context, fd int) <-chan terminalSize {
	out := make(chan terminalSize, 1)
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	go func() {
		defer close(out)
		defer signal.Stop(winch)
		for {
			if sz, ok := size(fd); ok {
				select {
				case out <- sz:
				case <-ctx.Done():
					return
				}
			}
			select {
			case <-winch:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}
