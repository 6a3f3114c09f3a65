package framework

import "syscall"

// childProcAttr makes the kernel send SIGTERM to a server whose test
// binary dies without stopping it (a test timeout, say), so that no
// apiserver outlives the run.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
