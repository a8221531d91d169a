// Package clustertest runs multi-process sessions of the actors engine inside a test
// process. It lives under internal/ because it uses goroutines, locks and timeouts,
// which model packages may not.
package clustertest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/seastar-sim/seastar/actors"
	"github.com/stretchr/testify/require"
)

// InProcesses runs a multi-process session inside the test process: procs processes
// (a coordinator and procs-1 workers, each with its own end of the session, its frames
// encoded as between processes) each call body with opts plus its Cluster, and
// InProcesses returns what each body returned, coordinator first. Bodies run
// concurrently and must run the same sequence of simulations.
func InProcesses(t testing.TB, procs int, opts actors.Options, body func(proc int, opts actors.Options) error) []error {
	t.Helper()
	ctx := context.Background()
	cfg := actors.ClusterConfig{Timeout: 10 * time.Second, Token: []byte("clustertest session token")}
	errs := make([]error, procs)
	var listeners []*actors.Listener
	var addrs []string
	for range procs - 1 {
		l, err := actors.Listen(cfg)
		require.NoError(t, err)
		listeners = append(listeners, l)
		addrs = append(addrs, l.Addr())
	}
	var wg sync.WaitGroup
	for i, l := range listeners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer l.Close()
			s, err := l.Accept(ctx)
			if err != nil {
				errs[i+1] = err
				return
			}
			if err := s.Confirm(""); err != nil {
				errs[i+1] = err
				s.Close(err)
				return
			}
			o := opts
			o.Cluster = s
			errs[i+1] = body(i+1, o)
			s.Close(errs[i+1])
		}()
	}
	cl, err := actors.Connect(ctx, cfg, addrs, actors.Hello{})
	require.NoError(t, err)
	o := opts
	o.Cluster = cl
	errs[0] = body(0, o)
	cl.Close(nil)
	wg.Wait()
	return errs
}
