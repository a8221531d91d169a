//go:build !linux

package actors

import "errors"

// lowerPriority is implemented on Linux only.
func lowerPriority() error {
	return errors.New("the lowest CPU priority for the engine's threads is implemented on Linux only")
}
