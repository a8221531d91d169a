package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/params"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Multi-process runs from the command line: `run worker --listen ADDR` processes serve
// the partitions of runs that a coordinating `run ... --peers ADDR,ADDR` splits across
// them (actors.Connect, actors.Listener). The coordinator sends each worker its
// command line (without the cluster, output and profiling flags) and the contents of
// its --config file; the worker runs that command with its end of the session, with
// no output files, and confirms the resolved configuration before the run starts.

// clusterFlags are the flags of a coordinating run.
type clusterFlags struct {
	peers   []string
	timeout time.Duration
	listen  string
	remote  bool // allow non-loopback addresses
}

func (cf *clusterFlags) register(f *pflag.FlagSet) {
	f.StringSliceVar(&cf.peers, "peers", nil, "split the run across this process and the run worker processes at these addresses (host:port,...); phold, motif and bench only")
	f.DurationVar(&cf.timeout, "peer-timeout", actors.DefaultPeerTimeout, "a peer that stays silent this long (dead, hung, unreachable) ends the run with an error")
	f.StringVar(&cf.listen, "peer-listen", "127.0.0.1:0", "the address this process binds for a run split across processes")
	f.BoolVar(&cf.remote, "allow-non-loopback", false, "allow binding a non-loopback address for runs across processes (peers are not authenticated: trusted networks only)")
}

// clusterOnly are the flags a worker does not get from the coordinator's command line:
// the cluster's, and those that write files or output.
var clusterOnly = map[string]bool{"peers": true, "peer-timeout": true, "peer-listen": true, "allow-non-loopback": true,
	"out": true, "quiet": true, "cpuprofile": true, "trace-otlp": true, "trace-file": true, "trace-ring": true,
	"trace-sample": true, "trace-epoch": true, "trace-time-scale": true, "trace-timeline": true}

// sessionKey is the context key of a worker's session.
type sessionKey struct{}

// joinCluster makes the run of cmd a run across processes when it is one: with --peers
// it connects to the workers (the coordinator); inside `run worker` it confirms the
// resolved configuration tree to the coordinator. It sets opts.Cluster; call end
// once the run is over.
func (c *common) joinCluster(cmd *cobra.Command, tree *params.Tree, opts *actors.Options) (end func(), err error) {
	s, _ := cmd.Context().Value(sessionKey{}).(*actors.Cluster)
	if len(c.cluster.peers) == 0 && s == nil {
		return func() {}, nil
	}
	if s != nil && len(c.cluster.peers) > 0 {
		return nil, usage(errors.New("--peers: a worker does not connect to other workers"))
	}
	if err := c.refuseTracing("a run across processes is not traced"); err != nil {
		return nil, err
	}
	y, err := configYAML(tree)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(y)
	hash := hex.EncodeToString(sum[:8])
	if s != nil {
		if err := s.Confirm(hash); err != nil {
			return nil, err
		}
		opts.Cluster = s
		return func() {}, nil
	}
	hello := actors.Hello{Args: workerArgs(cmd, c.args), ConfigHash: hash}
	if c.config != "" {
		file, err := c.configFile()
		if err != nil {
			return nil, err
		}
		hello.Files = map[string][]byte{c.config: file}
	}
	cfg := actors.ClusterConfig{Listen: c.cluster.listen, AllowNonLoopback: c.cluster.remote, Timeout: c.cluster.timeout}
	cl, err := actors.Connect(cmd.Context(), cfg, c.cluster.peers, hello)
	if err != nil {
		return nil, fmt.Errorf("--peers: %w", err)
	}
	if !c.quiet {
		fmt.Fprintf(cmd.ErrOrStderr(), "run: split across %d processes: this one (%s) and %s\n",
			cl.Processes(), cl.Addr(), strings.Join(c.cluster.peers, ", "))
	}
	opts.Cluster = cl
	return func() { cl.Close(nil) }, nil
}

// workerArgs is the command line args of cmd without the flags in clusterOnly.
func workerArgs(cmd *cobra.Command, args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if !strings.HasPrefix(a, "--") || !clusterOnly[name] {
			out = append(out, a)
			continue
		}
		f := cmd.Flags().Lookup(name)
		if f == nil {
			f = cmd.InheritedFlags().Lookup(name)
		}
		if !hasValue && f != nil && f.NoOptDefVal == "" {
			i++ // the flag's value is the next argument
		}
	}
	return out
}

// newWorkerCmd is `run worker`.
func newWorkerCmd(c *common) *cobra.Command {
	var listen string
	var once bool
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Serve the partitions of runs split across processes (coordinated by run ... --peers)",
		Long: `run worker listens at --listen (default a free port on 127.0.0.1; the first line
printed on stdout is "listening on HOST:PORT") and serves runs that a coordinating
process splits across processes with --peers HOST:PORT,...: the coordinator sends the
command to run (phold, motif NAME, bench NAME with its flags and --config file), every
process builds the same model and runs its share of the partitions, exchanging events
in window batches over protoactor-go remote (gRPC), and every process ends with the
same digest and results (the coordinator writes them). The worker writes no files.

A coordinator from another build, or one whose configuration resolves differently
here, is refused at connect. A peer that dies or stays silent for the coordinator's
--peer-timeout ends the run with an error in every process. Peers are not
authenticated: addresses are loopback-only unless --allow-non-loopback.`,
		Example: `  run worker &                                   # prints: listening on 127.0.0.1:PORT
  run motif halo3d --torus 8x8x8 --peers 127.0.0.1:PORT
  run worker --listen 127.0.0.1:7001 --once`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := actors.Listen(actors.ClusterConfig{Listen: listen, AllowNonLoopback: c.cluster.remote, Timeout: c.cluster.timeout})
			if err != nil {
				return usage(fmt.Errorf("--listen: %w", err))
			}
			defer l.Close()
			fmt.Fprintf(cmd.OutOrStdout(), "listening on %s\n", l.Addr())
			if f, ok := cmd.OutOrStdout().(*os.File); ok {
				_ = f.Sync()
			}
			logf := func(format string, args ...any) {
				fmt.Fprintf(cmd.ErrOrStderr(), "run worker %s: "+format+"\n", append([]any{l.Addr()}, args...)...)
			}
			for {
				s, err := l.Accept(cmd.Context())
				switch {
				case errors.Is(err, actors.ErrInterrupted):
					return nil // stopped between sessions
				case err != nil:
					logf("%v", err)
					if once {
						// The refusal is on its way to the coordinator: give it time to
						// leave before the process (and its connections) ends, so that
						// the coordinator reports it rather than a lost connection.
						time.Sleep(time.Second)
						return err
					}
					continue
				}
				logf("session with %s: %s", s.Peer(0), strings.Join(s.Hello().Args, " "))
				err = serveSession(cmd.Context(), s, cmd.ErrOrStderr())
				s.Close(err)
				if err != nil {
					logf("session with %s failed: %v", s.Peer(0), err)
				} else {
					logf("session with %s done", s.Peer(0))
				}
				if once {
					return err
				}
			}
		},
	}
	f := cmd.Flags()
	f.StringVar(&listen, "listen", "127.0.0.1:0", "address to listen at, host:port (port 0: a free port)")
	f.BoolVar(&once, "once", false, "serve one session, then exit with its status")
	return cmd
}

// serveSession runs the coordinator's command in this process, with session s.
func serveSession(ctx context.Context, s *actors.Cluster, stderr io.Writer) error {
	h := s.Hello()
	args := append([]string(nil), h.Args...)
	if len(args) > 0 && args[0] == "worker" {
		return usage(fmt.Errorf("the coordinator asked for %q, not a simulation", strings.Join(args, " ")))
	}
	if len(h.Files) > 0 {
		dir, err := os.MkdirTemp("", "seastar-worker-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		for name, body := range h.Files { //lint:ordered independent files
			path := filepath.Join(dir, fmt.Sprintf("config-%x.yaml", sha256.Sum256([]byte(name))))
			if err := os.WriteFile(path, body, 0o600); err != nil {
				return err
			}
			for i, a := range args {
				switch {
				case a == "--config" && i+1 < len(args) && args[i+1] == name:
					args[i+1] = path
				case a == "--config="+name:
					args[i] = "--config=" + path
				}
			}
		}
	}
	args = append(args, "--out", "none", "--quiet")
	root := newRoot(io.Discard, stderr, args)
	root.SetArgs(args)
	return root.ExecuteContext(context.WithValue(ctx, sessionKey{}, s))
}
