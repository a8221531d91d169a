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
	"path/filepath"
	"slices"
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
// the cluster's, and those that write files or output.
var clusterOnly = map[string]bool{"peers": true, "peer-timeout": true, "peer-listen": true, "allow-non-loopback": true, "token-file": true, "tls": true,
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

// workerArgs is the command line args of cmd without the flags in clusterOnly.
func workerArgs(cmd *cobra.Command, args []string) []string {
	return dropFlags(args, func(name string) bool { return clusterOnly[name] }, func(name string) *pflag.Flag {
		if f := cmd.Flags().Lookup(name); f != nil {
			return f
		}
		return cmd.InheritedFlags().Lookup(name)
	})
}

// dropFlags returns args without the long flags drop names, and without the value
// that follows one given as "--flag value" (lookup tells whether a flag takes a value).
// Everything from a "--" on is kept as it is: the arguments of another command.
func dropFlags(args []string, drop func(name string) bool, lookup func(name string) *pflag.Flag) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		name, _, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if !strings.HasPrefix(a, "--") || !drop(name) {
			out = append(out, a)
			continue
		}
		if f := lookup(name); !hasValue && f != nil && f.NoOptDefVal == "" {
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

Trust: the worker serves only coordinators that hold its token ($SEASTAR_CLUSTER_TOKEN
or --token-file; without either it generates one and prints it on stderr). The
coordinator proves it with an HMAC of its hello (the token never travels), a replayed
hello is refused, and a peer without the token learns nothing but "refused". An
authenticated coordinator can only ask for a simulation (phold, motif NAME, bench
NAME) with model flags (--seed, --set, --workers, --partition, --engine, --sync and the
benchmark's own flags) and a configuration sent as content; the worker opens no path
it is given and writes no file. A coordinator from another build, or one whose
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
	dir, err := os.MkdirTemp("", "seastar-worker-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	args, err := workerCommand(h, dir)
	if err != nil {
		return usage(fmt.Errorf("the worker refuses the coordinator's command: %w", err))
	}
	args = append(args, "--out", "none", "--quiet")
	root := newRoot(io.Discard, stderr, args)
	root.SetArgs(args)
	return root.ExecuteContext(context.WithValue(ctx, sessionKey{}, s))
}

// workerGlobals are the global flags a coordinator may give a worker: they set the
// model and how it runs, and name no path. --config is taken too, naming one of the
// files the coordinator sent as content.
var workerGlobals = map[string]bool{"seed": true, "set": true, "workers": true, "partition": true, "engine": true,
	"sync": true, "format": true}

// workerCommand checks the command a coordinator asked for and returns the command
// line the worker runs: a simulation (phold, motif NAME, bench NAME) with the
// workerGlobals, the command's own flags (a benchmark's --sizes, ...) and --config
// naming a file sent with the hello, which is written into dir; nothing else. The
// errors name the offending argument, never a file's contents.
func workerCommand(h actors.Hello, dir string) ([]string, error) {
	args := slices.Clone(h.Args)
	if len(args) == 0 {
		return nil, errors.New("no command")
	}
	positional := 1
	switch args[0] {
	case "phold":
	case "motif", "bench":
		positional = 2
	default:
		return nil, fmt.Errorf("%q is not a simulation a worker runs (phold, motif NAME, bench NAME)", args[0])
	}
	if len(args) < positional || strings.HasPrefix(args[positional-1], "-") {
		return nil, fmt.Errorf("%s without a name", args[0])
	}
	root := newRoot(io.Discard, io.Discard, nil)
	target, rest, err := root.Find(args[:positional])
	known := err == nil && target != root
	switch {
	case !known:
	case args[0] == "motif": // run motif NAME: the name is an argument
		known = len(rest) == 1 && slices.Contains(target.ValidArgs, rest[0])
	default:
		known = len(rest) == 0 && target.Name() == args[positional-1]
	}
	if !known {
		return nil, fmt.Errorf("unknown command %q", strings.Join(args[:positional], " "))
	}
	local := target.LocalNonPersistentFlags()
	files := map[string]string{} // name the coordinator used -> the worker's copy
	for i := positional; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "--") || len(a) < 3 {
			return nil, fmt.Errorf("argument %q is not a flag a worker takes", a)
		}
		name, value, hasValue := strings.Cut(a[2:], "=")
		var f *pflag.Flag
		switch {
		case name == "config":
		case workerGlobals[name]:
			f = root.PersistentFlags().Lookup(name)
		case name != "help" && local.Lookup(name) != nil:
			f = local.Lookup(name)
		default:
			return nil, fmt.Errorf("flag --%s is not taken by a worker (it takes --config as content, %s and the command's own flags)",
				name, "--seed, --set, --workers, --partition, --engine, --sync, --format")
		}
		takesValue := name == "config" || (f != nil && f.NoOptDefVal == "")
		if takesValue && !hasValue {
			if i+1 >= len(args) {
				return nil, fmt.Errorf("flag --%s without its value", name)
			}
			i++
			value = args[i]
		}
		if name != "config" {
			continue
		}
		body, ok := h.Files[value]
		if !ok {
			return nil, fmt.Errorf("--config %q was not sent with the hello: a worker reads no file it is named", value)
		}
		path, ok := files[value]
		if !ok {
			path = filepath.Join(dir, fmt.Sprintf("config-%d.yaml", len(files)))
			if err := os.WriteFile(path, body, 0o600); err != nil {
				return nil, err
			}
			files[value] = path
		}
		if hasValue {
			args[i] = "--config=" + path
		} else {
			args[i] = path
		}
	}
	return args, nil
}
