//go:build !linux

package main

// dieWithParent does nothing where there is no PR_SET_PDEATHSIG.
func dieWithParent() bool { return true }
