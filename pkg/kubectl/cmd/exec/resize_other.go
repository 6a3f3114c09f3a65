//go:build !unix

package exec

import "context"

// watchSize sends the terminal's size once: there is no SIGWINCH here.
func watchSize(ctx context.Context, fd int) <-chan terminalSize {
	out := make(chan terminalSize, 1)
	if sz, ok := size(fd); ok {
		out <- sz
	}
	close(out)
	return out
}
