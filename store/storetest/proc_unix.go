//go:build unix && !linux

package storetest

import "syscall"

// procAttr runs a program as u (nil: as this process's user).
func procAttr(u *osUser, server bool) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{}
	if u != nil {
		a.Credential = &syscall.Credential{Uid: uint32(u.uid), Gid: uint32(u.gid)}
	}
	return a
}
