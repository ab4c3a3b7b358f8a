package storetest

import "syscall"

// procAttr runs a program as u (nil: as this process's user); a server is
// sent SIGQUIT (PostgreSQL's immediate shutdown) if its parent thread dies.
func procAttr(u *osUser, server bool) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{}
	if u != nil {
		a.Credential = &syscall.Credential{Uid: uint32(u.uid), Gid: uint32(u.gid)}
	}
	if server {
		a.Pdeathsig = syscall.SIGQUIT
	}
	return a
}
