//go:build notrace

package actors

// traceHooks is false in builds with the notrace tag (see TracerOf).
const traceHooks = false
