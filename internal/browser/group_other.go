//go:build !unix

package browser

import "os/exec"

func ownGroup(cmd *exec.Cmd) {}

// killGroup kills the command (its helpers are not reached here).
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}
