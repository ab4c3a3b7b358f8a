//go:build !unix

package storetest

import "syscall"

// procAttr runs a program as this process's user.
func procAttr(u *osUser, server bool) *syscall.SysProcAttr { return nil }
