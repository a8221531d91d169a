package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seastar-sim/seastar/actors"
	"github.com/seastar-sim/seastar/params"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Multi-process runs from the command line: `run worker --listen ADDR` processes serve
// the partitions of runs that a coordinating `run ... --peers ADDR,ADDR` splits across
// them (actors.Connect, actors.Listener). The coordinator sends each worker a run
// description (actors.RunSpec: the simulation, the model flags given on its command
// line, the contents of its --config file); the worker checks it (workerRun), runs it
// with its end of the session, with no output files, and confirms the resolved
// configuration before the run starts.

// clusterFlags are the flags of a coordinating run.
type clusterFlags struct {
	peers     []string
	timeout   time.Duration
	listen    string
	remote    bool   // allow non-loopback addresses
	tokenFile string // --token-file
	tls       bool   // --tls: TLS on loopback too
}

// tokenEnv is the environment variable that holds the token a coordinator and its
// workers share (or --token-file).
const tokenEnv = "SEASTAR_CLUSTER_TOKEN"

// token returns the session token from --token-file, else from $SEASTAR_CLUSTER_TOKEN,
// else nil.
func (cf *clusterFlags) token() ([]byte, error) {
	if cf.tokenFile != "" {
		b, err := os.ReadFile(cf.tokenFile)
		if err != nil {
			return nil, usage(fmt.Errorf("--token-file: %w", err))
		}
		t := bytes.TrimSpace(b)
		if len(t) < minTokenLen {
			return nil, usage(fmt.Errorf("--token-file %s: a token of at least %d characters is needed", cf.tokenFile, minTokenLen))
		}
		return t, nil
	}
	if t := strings.TrimSpace(os.Getenv(tokenEnv)); t != "" {
		if len(t) < minTokenLen {
			return nil, usage(fmt.Errorf("$%s: a token of at least %d characters is needed", tokenEnv, minTokenLen))
		}
		return []byte(t), nil
	}
	return nil, nil
}

// minTokenLen is the shortest token accepted (a generated one has 64 hex digits).
const minTokenLen = 16

// newToken makes a random token: 32 bytes as 64 hex digits.
func newToken() ([]byte, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	return []byte(hex.EncodeToString(b[:])), nil
}

func (cf *clusterFlags) register(f *pflag.FlagSet) {
	f.StringSliceVar(&cf.peers, "peers", nil, "split the run across this process and the run worker processes at these addresses (host:port,...); phold, motif and bench only")
	f.DurationVar(&cf.timeout, "peer-timeout", actors.DefaultPeerTimeout, "a peer that stays silent this long (dead, hung, unreachable) ends the run with an error")
	f.StringVar(&cf.listen, "peer-listen", "127.0.0.1:0", "the address this process binds for a run split across processes")
	f.BoolVar(&cf.remote, "allow-non-loopback", false, "allow binding a non-loopback address for runs across processes (the traffic is then encrypted and both ends authenticated with TLS keyed by the token)")
	f.BoolVar(&cf.tls, "tls", false, "encrypt and mutually authenticate the traffic of a run across processes on loopback too (TLS 1.3 with keys derived from the token; always on for a non-loopback address); coordinator and workers must agree")
	f.StringVar(&cf.tokenFile, "token-file", "", "file holding the token a coordinator and its workers share (default $"+tokenEnv+"; run worker generates and prints one if neither is set)")
}

// clusterOnly are the flags a worker does not get from the coordinator's command line:
// the cluster's, those that write files or output, and --huge-pages and --low-priority
// (how a process uses its machine is its own: the worker's flags).
var clusterOnly = map[string]bool{"peers": true, "peer-timeout": true, "peer-listen": true, "allow-non-loopback": true, "token-file": true, "tls": true,
	"out": true, "quiet": true, "cpuprofile": true, "memprofile": true, "trace-otlp": true, "trace-file": true, "trace-ring": true,
	"trace-sample": true, "trace-epoch": true, "trace-time-scale": true, "trace-timeline": true, "huge-pages": true, "low-priority": true}

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
	spec, err := c.runSpec(cmd)
	if err != nil {
		return nil, err
	}
	hello := actors.Hello{Run: spec, ConfigHash: hash}
	token, err := c.cluster.token()
	if err != nil {
		return nil, err
	}
	if token == nil {
		return nil, usage(fmt.Errorf("--peers: the workers need their token: set $%s or --token-file (run worker prints the one it generated)", tokenEnv))
	}
	cfg := actors.ClusterConfig{Listen: c.cluster.listen, AllowNonLoopback: c.cluster.remote, Timeout: c.cluster.timeout, Token: token,
		TLS: c.cluster.tls}
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

// runSpec describes the run of cmd for its workers: the command (and a motif's name),
// the flags given on the command line with their values as typed, without the
// clusterOnly flags and --config, and the configuration's content.
func (c *common) runSpec(cmd *cobra.Command) (actors.RunSpec, error) {
	var spec actors.RunSpec
	for p := cmd; p.HasParent(); p = p.Parent() {
		spec.Command = append([]string{p.Name()}, spec.Command...)
	}
	spec.Command = append(spec.Command, cmd.Flags().Args()...)
	// Parse the command line again with a recorder in place of each flag's value, so
	// that the workers get every value as typed (a flag's String form may differ).
	rec := pflag.NewFlagSet("spec", pflag.ContinueOnError)
	rec.SetOutput(io.Discard)
	var given []actors.Flag
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		nf := rec.VarPF(flagRecorder{name: f.Name, typ: f.Value.Type(), out: &given}, f.Name, f.Shorthand, f.Usage)
		nf.NoOptDefVal = f.NoOptDefVal
	})
	if err := rec.Parse(c.args); err != nil {
		return spec, usage(err)
	}
	for _, f := range given {
		if !clusterOnly[f.Name] && f.Name != "config" {
			spec.Flags = append(spec.Flags, f)
		}
	}
	var err error
	spec.Config, err = c.configFile()
	return spec, err
}

// flagRecorder is a flag value that records each value given to it.
type flagRecorder struct {
	name, typ string
	out       *[]actors.Flag
}

func (r flagRecorder) Set(v string) error {
	*r.out = append(*r.out, actors.Flag{Name: r.name, Value: v})
	return nil
}
func (r flagRecorder) String() string { return "" }
func (r flagRecorder) Type() string   { return r.typ }

// newWorkerCmd is `run worker`.
func newWorkerCmd(c *common) *cobra.Command {
	var listen string
	var once bool
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Serve the partitions of runs split across processes (coordinated by run ... --peers)",
		Long: `run worker listens at --listen (default a free port on 127.0.0.1; the first line
printed on stdout is "listening on HOST:PORT", the name the coordinator gives it: a host
name given to --listen stays a name) and serves runs that a coordinating
process splits across processes with --peers HOST:PORT,...: the coordinator sends a
description of the run (phold, motif NAME or bench NAME, its model flags by name and
the contents of its --config file, never a command line or a path), every
process builds the same model and runs its share of the partitions, exchanging events
in window batches over protoactor-go remote (gRPC), and every process ends with the
same digest and results (the coordinator writes them). The worker writes no files
but the profiles its own --cpuprofile and --memprofile ask for (of every session it
serves, written when it exits).

Trust: the worker serves only coordinators that hold its token ($SEASTAR_CLUSTER_TOKEN
or --token-file; without either it generates one and prints it on stderr). The
coordinator proves it with an HMAC of its hello (the token never travels), a replayed
hello is refused, and a peer without the token learns nothing but "refused". An
authenticated coordinator can only ask for a simulation (phold, motif NAME, bench
NAME) with model flags (--seed, --set, --workers, --partition, --engine, --sync and the
benchmark's own flags) and a configuration sent as content; the worker opens no path
and writes no file. A coordinator from another build, or one whose
configuration resolves differently here, is refused at connect. A peer that dies or
stays silent for the coordinator's --peer-timeout ends the run with an error in every
process. Addresses are loopback-only unless --allow-non-loopback. On a non-loopback
address (and on loopback with --tls, on both ends) the traffic is TLS 1.3, encrypted and
mutually authenticated with certificates both ends derive from the token, so the worker
proves it holds the token too; on loopback without --tls it is authenticated at connect
only.`,
		Example: `  export SEASTAR_CLUSTER_TOKEN=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
  run worker &                                   # prints: listening on 127.0.0.1:PORT
  run motif halo3d --torus 8x8x8 --peers 127.0.0.1:PORT
  run worker --listen 127.0.0.1:7001 --once`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			token, err := c.cluster.token()
			if err != nil {
				return err
			}
			generated := token == nil
			if generated {
				if token, err = newToken(); err != nil {
					return failed(err)
				}
			}
			l, err := actors.Listen(actors.ClusterConfig{Listen: listen, AllowNonLoopback: c.cluster.remote, Timeout: c.cluster.timeout,
				Token: token, TLS: c.cluster.tls})
			if err != nil {
				return usage(fmt.Errorf("--listen: %w", err))
			}
			defer l.Close()
			stopProfile, err := c.profile() // the worker's own --cpuprofile, --memprofile: every session it serves
			if err != nil {
				return err
			}
			defer stopProfile()
			fmt.Fprintf(cmd.OutOrStdout(), "listening on %s\n", l.Addr())
			if f, ok := cmd.OutOrStdout().(*os.File); ok {
				_ = f.Sync()
			}
			if generated {
				fmt.Fprintf(cmd.ErrOrStderr(), "run worker %s: token %s (coordinators: %s=%s run ... --peers %s)\n",
					l.Addr(), token, tokenEnv, token, l.Addr())
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
				logf("session with %s: %s", s.Peer(0), s.Hello().Run)
				err = serveSession(cmd.Context(), s, cmd.ErrOrStderr(), processFlags{hugePages: c.hugePages, lowPriority: c.lowPriority})
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

// processFlags are a worker's own flags for the runs it serves: how the process uses
// its machine (clusterOnly).
type processFlags struct{ hugePages, lowPriority bool }

// serveSession runs the coordinator's run in this process, with session s.
func serveSession(ctx context.Context, s *actors.Cluster, stderr io.Writer, own processFlags) error {
	root, err := sessionRoot(s.Hello().Run, stderr, own)
	if err != nil {
		return err
	}
	return root.ExecuteContext(context.WithValue(ctx, sessionKey{}, s))
}

// sessionRoot is the command that runs a coordinator's run in this worker process
// (workerRun), with the worker's own --huge-pages and --low-priority: how a process
// uses its machine is its own choice, not the coordinator's.
func sessionRoot(spec actors.RunSpec, stderr io.Writer, own processFlags) (*cobra.Command, error) {
	root, err := workerRun(spec, io.Discard, stderr)
	if err != nil {
		return nil, usage(fmt.Errorf("the worker refuses the coordinator's run: %w", err))
	}
	f := root.PersistentFlags()
	if err := f.Set("huge-pages", strconv.FormatBool(own.hugePages)); err != nil {
		return nil, err
	}
	return root, f.Set("low-priority", strconv.FormatBool(own.lowPriority))
}

// workerGlobals are the global flags a coordinator may give a worker: they set the
// model and how it runs, and name no path.
var workerGlobals = []string{"seed", "set", "workers", "partition", "engine", "sync", "format"}

// workerRun checks the run a coordinator asked for and returns the command that runs
// it in this process: a simulation (phold, motif NAME, bench NAME) with the
// workerGlobals and the command's own flags (a benchmark's --sizes, ...), its
// configuration taken as content, no output files and no progress. Nothing is parsed
// as a command line, no path is opened and no file written. The errors name the
// offending field, never a file's contents.
func workerRun(spec actors.RunSpec, stdout, stderr io.Writer) (*cobra.Command, error) {
	cmdPath := spec.Command
	switch {
	case len(cmdPath) == 0:
		return nil, errors.New("no command")
	case cmdPath[0] == "phold":
		if len(cmdPath) != 1 {
			return nil, fmt.Errorf("phold takes no argument (got %q)", cmdPath[1:])
		}
	case cmdPath[0] == "motif" || cmdPath[0] == "bench":
		if len(cmdPath) != 2 {
			return nil, fmt.Errorf("%s takes a name and nothing else (got %q)", cmdPath[0], cmdPath[1:])
		}
	default:
		return nil, fmt.Errorf("%q is not a simulation a worker runs (phold, motif NAME, bench NAME)", cmdPath[0])
	}
	c := &common{args: slices.Clone(cmdPath), configContent: spec.Config}
	root := newRootOf(c, stdout, stderr)
	target, rest, err := root.Find(cmdPath)
	known := err == nil && target != root
	switch {
	case !known:
	case cmdPath[0] == "motif": // run motif NAME: the name is an argument
		known = len(rest) == 1 && slices.Contains(target.ValidArgs, rest[0])
	default:
		known = len(rest) == 0 && target.Name() == cmdPath[len(cmdPath)-1]
	}
	if !known {
		return nil, fmt.Errorf("unknown command %q", strings.Join(cmdPath, " "))
	}
	local := target.LocalNonPersistentFlags()
	target.InheritedFlags() // merges the global flags into target.Flags()
	fs := target.Flags()    // sets the flags as parsing would (bound keys are read from its changed flags)
	for _, f := range spec.Flags {
		switch {
		case slices.Contains(workerGlobals, f.Name):
		case f.Name != "help" && local.Lookup(f.Name) != nil:
		default:
			return nil, fmt.Errorf("flag --%s is not taken by a worker (it takes the configuration as content, --%s and the command's own flags)",
				f.Name, strings.Join(workerGlobals, ", --"))
		}
		if err := fs.Set(f.Name, f.Value); err != nil {
			return nil, usage(fmt.Errorf("--%s: %w", f.Name, err))
		}
	}
	for name, value := range map[string]string{"out": "none", "quiet": "true"} { //lint:ordered independent flags
		if err := fs.Set(name, value); err != nil {
			return nil, err
		}
	}
	root.SetArgs(cmdPath)
	return root, nil
}
