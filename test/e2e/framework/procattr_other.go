//go:build !linux

package framework

import "syscall"

// childProcAttr has nothing to add where the parent-death signal is not
// available.
func childProcAttr() *syscall.SysProcAttr { return nil }
