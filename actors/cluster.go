package actors

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/remote"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// Multi-process runs.
//
// A run can be split across OS processes: every process builds the same model from
// the same configuration, owns a contiguous share of the partitions and runs them on
// its own workers; the events that cross between processes travel in window batches
// over protoactor-go remote (gRPC). One process coordinates (process 0, the one that
// connects, see Connect); the others are workers (Listen, then Listener.Accept). A
// Cluster is one session between them: the coordinator and every worker pass it in
// Options.Cluster to each Run of the same sequence of runs, and each Run is then one
// distributed run (see distributed.go) whose digest, events and results equal those of
// a single-process run.
//
// Safety: endpoints bind loopback addresses unless ClusterConfig.AllowNonLoopback is
// set. With a ClusterConfig.Token (the command line always sets one) a worker accepts
// only a hello authenticated with the shared token: an HMAC-SHA256 over the hello, its
// random session id and the time it was sent, so the token never travels; a hello
// older than helloMaxAge or seen before is refused (no replay), and a peer that is not
// authenticated learns nothing from the refusal but that it was refused. The
// handshake then refuses an authenticated peer built from
// another binary (ClusterConfig.Version, codec registry) and, through Session.Confirm,
// one that resolved another configuration; every Run compares a fingerprint of the
// model, seed and partitioning across processes. Peers exchange heartbeats: a peer
// that disconnects or stays silent longer than ClusterConfig.Timeout ends the session
// with an error naming it, in every process, rather than a hang.
//
// Messages go through remote as google.protobuf.BytesValue frames (a registered
// protobuf type, so remote's default serializer carries them) holding this package's
// own encoding (codec.go); one actor per process, the bridge, receives them.

// ClusterConfig configures this process's endpoint of a multi-process run.
type ClusterConfig struct {
	// Listen is the address the endpoint binds, host:port; port 0 picks a free port.
	// Default "127.0.0.1:0".
	Listen string
	// AllowNonLoopback permits binding an address other than a loopback one. Peers are
	// not authenticated: allow it only on a trusted network.
	AllowNonLoopback bool
	// Timeout is how long a peer may stay silent (no heartbeat, no answer to the
	// handshake) before the session fails. Default DefaultPeerTimeout.
	Timeout time.Duration
	// Version identifies the simulator binary; peers must have the same. Default
	// BinaryVersion().
	Version string
	// Token is the secret a coordinator and its workers share. A worker with a token
	// accepts only hellos authenticated with it (see the package's "Safety"); without
	// one (tests, library use) peers are not authenticated.
	Token []byte
	// TLS encrypts and mutually authenticates the traffic with keys derived from Token
	// (clustertls.go). It is on whenever the endpoint binds a non-loopback address and
	// a token is set; TLS forces it on loopback too.
	TLS bool
}

// helloMaxAge bounds how old (or how far in the future, for clocks that differ
// between machines) an authenticated hello may be.
const helloMaxAge = 5 * time.Minute

// helloMAC authenticates a hello: HMAC-SHA256 with the token over a domain tag, the
// session id and the encoded hello (which ends with the time it was sent).
func helloMAC(token []byte, session uint64, body []byte) []byte {
	if len(token) == 0 {
		return nil
	}
	m := hmac.New(sha256.New, token)
	m.Write([]byte("seastar-sim hello v1\x00"))
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], session)
	m.Write(b[:])
	m.Write(body)
	return m.Sum(nil)
}

// DefaultPeerTimeout is the default ClusterConfig.Timeout.
const DefaultPeerTimeout = 10 * time.Second

func (c *ClusterConfig) setDefaults() error {
	if c.Listen == "" {
		c.Listen = "127.0.0.1:0"
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultPeerTimeout
	}
	if c.Timeout < 0 {
		return configErrorf("cluster: peer timeout %s is negative", c.Timeout)
	}
	if c.Version == "" {
		c.Version = BinaryVersion()
	}
	return nil
}

// Hello is what a coordinator sends its workers when it connects: what to run.
type Hello struct {
	// Run describes the run the workers take part in.
	Run RunSpec
	// ConfigHash identifies the resolved configuration; each worker resolves its own
	// and compares (Cluster.Confirm).
	ConfigHash string
}

// RunSpec describes a run in the simulator's terms, not as a command line: which
// simulation, its flags by name with their values, and the configuration as content.
// What a worker accepts of it is the application's decision (cmd/run checks every
// field against the simulations and model flags it allows).
type RunSpec struct {
	// Command names the simulation: its command and, for a family of them, the member
	// ("phold"; "motif", "halo3d"; "bench", "portalperf").
	Command []string
	// Flags are the flags set, in the order they were given; a flag given several
	// times appears once per value. Values are as typed (units included).
	Flags []Flag
	// Config is the content of the configuration file, nil without one.
	Config []byte
}

// Flag is one flag of a RunSpec and its value.
type Flag struct{ Name, Value string }

// String is the run as a readable command line (for logs).
func (r RunSpec) String() string {
	var b strings.Builder
	b.WriteString(strings.Join(r.Command, " "))
	for _, f := range r.Flags {
		fmt.Fprintf(&b, " --%s=%s", f.Name, f.Value)
	}
	if r.Config != nil {
		fmt.Fprintf(&b, " (configuration of %d bytes)", len(r.Config))
	}
	return b.String()
}

// BinaryVersion identifies the running binary: the Go version, the main module's
// version and the SHA-256 of the executable file, so that two processes agree only if
// they run the same build.
func BinaryVersion() string {
	binaryVersionOnce.Do(func() {
		v := runtime.Version()
		if bi, ok := debug.ReadBuildInfo(); ok {
			v += " " + bi.Main.Path + "@" + bi.Main.Version
		}
		if exe, err := os.Executable(); err == nil {
			if f, err := os.Open(exe); err == nil {
				h := sha256.New()
				if _, err := io.Copy(h, f); err == nil {
					v += " exe:" + hex.EncodeToString(h.Sum(nil))[:16]
				}
				f.Close()
			}
		}
		binaryVersion = v
	})
	return binaryVersion
}

var (
	binaryVersionOnce sync.Once
	binaryVersion     string
)

// bridgeName is the registered name of every process's bridge (the actor-system
// process that receives its frames).
const bridgeName = "seastar-bridge"

// maxFrame bounds a gRPC message between processes (the end-of-run state of a large
// machine takes tens of megabytes).
const maxFrame = 1 << 30

// flowWindow is gRPC's flow-control window between processes, per stream and per
// connection: 16 MiB, the largest gRPC's own bandwidth-delay estimate grows to (what
// the frames of a window need is a few KiB; the end-of-run state takes a few round
// trips of it).
const flowWindow = 16 << 20

// writerQueue is the initial size, in frames, of the queue protoactor keeps for each
// peer: a software size, not a model parameter. protoactor's default is a ring of a
// million slots (16 MB a peer, whose slots a session walks through, a fresh line for
// every frame); the ring doubles when full, and a window sends each peer one report
// (a run's start and end a few frames more).
const writerQueue = 1024

// Frame kinds.
const (
	fHello     byte = iota + 1 // coordinator -> worker: session, peers, what to run
	fAccept                    // worker -> coordinator: accepted (empty) or refused (reason)
	fHeartbeat                 // both ways
	fEnd                       // either way: the sender ends the session (error text, or empty)
	fReady                     // worker -> coordinator: ready for run k, with its fingerprint
	fStart                     // coordinator -> worker: run window 0 (the actors' Start)
	fDone                      // every process -> every other: window w done, with the sender's leaders, failure and batch for the receiver
	fFinish                    // coordinator -> worker: the run ends (with its error)
	fFinal                     // worker -> coordinator: final state of the worker's actors
	fFinalAll                  // coordinator -> worker: final state of every actor
	fAbort                     // either way: the run fails (reason)
	fFinalAck                  // worker -> coordinator: the worker has the final state
)

var frameNames = [...]string{"?", "hello", "accept", "heartbeat", "end", "ready", "start", "done",
	"finish", "final", "final-all", "abort", "final-ack"}

// frame is one message between processes, as the bridge hands it to the session.
type frame struct {
	kind    byte
	session uint64
	from    int
	to      int
	run     uint64
	w       uint64
	body    []byte
}

const frameMagic = 0x5e

// encodeFrame returns a frame's bytes: its header, then the parts of its body, joined.
func encodeFrame(kind byte, session uint64, from, to int, run, w uint64, body ...[]byte) []byte {
	n := 32
	for _, b := range body {
		n += len(b)
	}
	var e Encoder
	e.b = make([]byte, 0, n)
	e.Byte(frameMagic)
	e.Byte(kind)
	e.Fixed64(session)
	e.Uint(uint64(from))
	e.Uint(uint64(to))
	e.Uint(run)
	e.Uint(w)
	for _, b := range body {
		e.b = append(e.b, b...)
	}
	return e.b
}

func decodeFrame(b []byte) (*frame, error) {
	d := NewDecoder(b)
	if d.Byte() != frameMagic {
		return nil, errors.New("cluster: not a simulator frame")
	}
	f := &frame{kind: d.Byte(), session: d.Fixed64(), from: int(d.Uint()), to: int(d.Uint()), run: d.Uint(), w: d.Uint()}
	if d.Err() != nil || f.kind == 0 || int(f.kind) >= len(frameNames) {
		return nil, fmt.Errorf("cluster: malformed frame header (%v)", d.Err())
	}
	f.body = d.b
	return f, nil
}

// endpoint is this process's remote endpoint: an actor system with remote started
// on an address, and the bridge. A process has one endpoint for all its
// sessions (remote.Start sets gRPC's process-wide logger, so starting a second one
// while the first has connections would race); sessions are told apart by their id
// and the index of the process they are for, so that one test process can play every
// process of a session.
type endpoint struct {
	sys    *actor.ActorSystem
	rem    *remote.Remote
	addr   string
	host   string
	any    bool   // bound with AllowNonLoopback
	tlsKey string // the TLS identity it serves ("" for plain)

	mu        sync.Mutex
	sessions  map[sessKey]*Cluster
	hellos    chan *frame // hellos for Listener.Accept
	listeners []*Listener
}

type sessKey struct {
	id    uint64
	index int
}

// checkBind refuses non-loopback addresses unless allowed (the traffic on them is then
// TLS: tlsKey).
func checkBind(addr string, allow bool) (host string, port int, err error) {
	h, port, err := splitAddr("listen address", addr, 0)
	if err != nil {
		return "", 0, err
	}
	if !allow && !isLoopback(h) {
		return "", 0, configErrorf("cluster: listen address %q is not a loopback address: binding another interface "+
			"exposes the process to the network and needs an explicit opt-in (--allow-non-loopback, which also encrypts "+
			"the traffic with TLS keyed by the token)", addr)
	}
	return h, port, nil
}

// checkPeer checks a worker's address given to Connect and returns its host: a host
// and a port in 1..65535 (a typo there would otherwise be reported as a worker nobody
// can reach, with advice to start one at an address no worker can listen on).
func checkPeer(addr string) (host string, err error) {
	h, _, err := splitAddr("peer", addr, 1)
	if err == nil && h == "" {
		err = configErrorf("cluster: peer %q has no host (want host:port, e.g. 127.0.0.1:7001)", addr)
	}
	return h, err
}

// splitAddr splits addr, the what of a session, into a host and a port in
// minPort..65535, or returns a configuration error naming it.
func splitAddr(what, addr string, minPort int) (host string, port int, err error) {
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, configErrorf("cluster: %s %q: %v (want host:port, e.g. 127.0.0.1:7001)", what, addr, err)
	}
	port, err = strconv.Atoi(p)
	if err != nil || port < minPort || port > 65535 {
		return "", 0, configErrorf("cluster: %s %q: port %q is not a number in %d..65535", what, addr, p, minPort)
	}
	return h, port, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// endpoints are the endpoints this process started; they live as long as it.
var endpoints struct {
	mu  sync.Mutex
	all []*endpoint
}

// endpointFor returns the process's endpoint for cfg.Listen: an existing one if the
// address matches (any port if 0 was asked for, on the same host), else a new one.
func endpointFor(cfg ClusterConfig) (*endpoint, error) {
	host, port, err := checkBind(cfg.Listen, cfg.AllowNonLoopback)
	if err != nil {
		return nil, err
	}
	if cfg.TLS && len(cfg.Token) == 0 {
		return nil, configErrorf("cluster: TLS needs a session token")
	}
	key := tlsKey(cfg, host)
	endpoints.mu.Lock()
	defer endpoints.mu.Unlock()
	for _, ep := range endpoints.all {
		_, p, _ := net.SplitHostPort(ep.addr)
		if ep.host == host && (port == 0 || p == strconv.Itoa(port)) && ep.tlsKey == key {
			return ep, nil
		}
	}
	var tc *tls.Config
	if key != "" {
		if tc, err = clusterTLS(cfg.Token); err != nil {
			return nil, err
		}
	}
	ep, err := newEndpoint(host, port, cfg.AllowNonLoopback, tc)
	if err != nil {
		return nil, err
	}
	ep.tlsKey = key
	endpoints.all = append(endpoints.all, ep)
	return ep, nil
}

// tlsKey identifies the TLS identity of an endpoint on host ("" for plain traffic): an
// endpoint is reused only by a session with the same one.
func tlsKey(cfg ClusterConfig, host string) string {
	if len(cfg.Token) == 0 || (!cfg.TLS && isLoopback(host)) {
		return ""
	}
	h := sha256.Sum256(cfg.Token)
	return string(h[:])
}

func newEndpoint(host string, port int, allow bool, tc *tls.Config) (ep *endpoint, err error) {
	listen := net.JoinHostPort(host, strconv.Itoa(port))
	// Bind once here so that a busy or invalid address is a clean error (remote.Start
	// panics), and to learn the port when 0 was asked for.
	lis, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, configErrorf("cluster: cannot listen on %s: %v", listen, err)
	}
	port = lis.Addr().(*net.TCPAddr).Port
	lis.Close()

	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}))
	// A host name stays the endpoint's address (protoactor would advertise the address
	// it bound): peers name a worker as it was told to listen, "localhost:7001" or
	// "node12:7001", and a frame for an address that is not the endpoint's own would not
	// be delivered.
	var advertise []remote.ConfigOption
	if net.ParseIP(host) == nil {
		advertise = append(advertise, remote.WithAdvertisedHost(net.JoinHostPort(host, strconv.Itoa(port))))
	}
	rc := remote.Configure(host, port, advertise...)
	rc.MaxRetryCount = 1                     // a peer that cannot be reached fails the session at once
	rc.EndpointWriterQueueSize = writerQueue // starts small, grows when full
	rc.ServerOptions = append(rc.ServerOptions, grpc.MaxRecvMsgSize(maxFrame), grpc.MaxSendMsgSize(maxFrame))
	rc.DialOptions = append(rc.DialOptions, grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxFrame),
		grpc.MaxCallSendMsgSize(maxFrame)))
	if tc != nil { // replaces the default insecure transport on both sides
		creds := credentials.NewTLS(tc)
		rc.ServerOptions = append(rc.ServerOptions, grpc.Creds(creds))
		rc.DialOptions = slices.Insert(rc.DialOptions[1:], 0, grpc.WithTransportCredentials(creds))
	}
	// Fixed flow-control windows: gRPC then does not estimate the link's bandwidth-delay
	// product with a ping after data it receives (pings and the window updates they
	// bring allocated about a tenth of what a window's exchange did).
	rc.ServerOptions = append(rc.ServerOptions, grpc.InitialWindowSize(flowWindow), grpc.InitialConnWindowSize(flowWindow))
	rc.DialOptions = append(rc.DialOptions, grpc.WithInitialWindowSize(flowWindow), grpc.WithInitialConnWindowSize(flowWindow))
	ep = &endpoint{sys: sys, host: host, any: allow, sessions: map[sessKey]*Cluster{}, hellos: make(chan *frame, 16)}
	ep.rem = remote.NewRemote(sys, rc)
	func() {
		defer func() {
			if p := recover(); p != nil {
				err = configErrorf("cluster: cannot listen on %s: %v", listen, p)
			}
		}()
		ep.rem.Start()
	}()
	if err != nil {
		return nil, err
	}
	ep.addr = sys.Address()
	if _, absent := sys.ProcessRegistry.Add(&bridge{ep: ep}, bridgeName); !absent {
		ep.rem.Shutdown(false)
		return nil, fmt.Errorf("cluster: cannot register the bridge: the name %s is taken", bridgeName)
	}
	sys.EventStream.Subscribe(func(evt any) {
		if t, ok := evt.(*remote.EndpointTerminatedEvent); ok {
			for _, s := range ep.active() {
				s.lost(t.Address)
			}
		}
	})
	return ep, nil
}

// active lists the sessions in progress.
func (ep *endpoint) active() []*Cluster {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	out := make([]*Cluster, 0, len(ep.sessions))
	for _, s := range ep.sessions { //lint:ordered every session is told; order does not matter
		out = append(out, s)
	}
	return out
}

func (ep *endpoint) session(id uint64, index int) *Cluster {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	return ep.sessions[sessKey{id, index}]
}

func (ep *endpoint) register(c *Cluster) {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	ep.sessions[sessKey{c.id, c.self}] = c
}

func (ep *endpoint) unregister(c *Cluster) {
	ep.mu.Lock()
	defer ep.mu.Unlock()
	if ep.sessions[sessKey{c.id, c.self}] == c {
		delete(ep.sessions, sessKey{c.id, c.self})
	}
}

// send delivers a frame to the bridge of the process at addr.
func (ep *endpoint) send(addr string, b []byte) { ep.sendPID(bridgePID(addr), b) }

// sendPID delivers a frame to a bridge. A session sends on PIDs it keeps: a PID
// caches the process that routes to it, which a new PID would look up and allocate
// again on every frame.
func (ep *endpoint) sendPID(to *actor.PID, b []byte) {
	ep.sys.Root.Send(to, &wrapperspb.BytesValue{Value: b})
}

// bridgePID names the bridge of the process at addr.
func bridgePID(addr string) *actor.PID { return actor.NewPID(addr, bridgeName) }

// bridge receives every frame from other processes and hands it to its session. It
// is a process of the actor system rather than an actor: protoactor's endpoint reader
// hands it each frame on the reader's own goroutine, where an actor's mailbox would
// start another goroutine to run it (a thread wake-up per report on the path between
// two processes' windows). Frames from one peer come in order on that peer's
// connection; frames from several peers come on their readers concurrently, so
// everything here is safe to call concurrently (the endpoint's and sessions' locks).
type bridge struct{ ep *endpoint }

// SendUserMessage handles a frame.
func (b *bridge) SendUserMessage(_ *actor.PID, m any) {
	bv, ok := m.(*wrapperspb.BytesValue)
	if !ok {
		return // not ours
	}
	f, err := decodeFrame(bv.Value)
	if err != nil {
		return // not ours: ignore
	}
	ep := b.ep
	if f.kind == fHello {
		ep.mu.Lock()
		idle := false
		for _, l := range ep.listeners {
			idle = idle || l.cur == nil || l.cur.closed()
		}
		ep.mu.Unlock()
		if idle {
			select {
			case ep.hellos <- f:
				return
			default:
			}
		}
		if h, err := decodeHello(f.body); err == nil {
			var e Encoder
			e.String(fmt.Sprintf("the worker at %s is busy with another coordinator's session (or not a worker)", ep.addr))
			ep.send(h.addrs[0], encodeFrame(fAccept, f.session, f.to, 0, 0, 0, e.Bytes()))
		}
		return
	}
	if s := ep.session(f.session, f.to); s != nil {
		s.receive(f)
	}
}

// SendSystemMessage ignores system messages: nothing watches or supervises the
// bridge.
func (*bridge) SendSystemMessage(*actor.PID, any) {}

// Stop does nothing: the bridge lives as long as the endpoint.
func (*bridge) Stop(*actor.PID) {}

// Cluster is one session of a multi-process run, seen from one process: the
// coordinator's (Connect) or a worker's (Listener.Accept). Pass it in
// Options.Cluster to every Run of the session, in the same order in every process;
// close it with Close when the command ends.
type Cluster struct {
	ep      *endpoint
	id      uint64
	self    int          // this process's index: 0 coordinates
	addrs   []string     // every process's address, by index
	bridges []*actor.PID // every process's bridge, by index (a PID caches its route)
	timeout time.Duration
	hello   Hello
	mute    atomic.Bool // tests: the process stops sending, as if it hung

	heard []atomic.Int64 // wall time (UnixNano) a frame last came from each process

	mu       sync.Mutex
	err      error         // why the session failed or ended
	failed   chan struct{} // closed when err is set
	runs     uint64        // runs begun
	running  bool
	cur      *distRun       // the run in progress, nil between runs
	pending  []*frame       // frames for runs not begun yet
	accepted []bool         // coordinator: workers that accepted the session
	ended    map[int]string // coordinator: workers whose end came between runs, with its message
	// acked are the workers that have the current run's final state (fFinalAck, the
	// coordinator's only): the run needs nothing more from them, so one that ends its
	// session or goes away now ends it between runs (ended), as if the run were over. A
	// worker's --once process exits as soon as it has acked; the coordinator may not
	// have the other workers' acks yet, and failing the run then would close the
	// session under workers that have not processed their final state.
	acked    map[int]bool
	acceptCh chan struct{}
	stop     chan struct{}
	stopped  sync.Once
}

// Processes is the number of processes in the session.
func (c *Cluster) Processes() int { return len(c.addrs) }

// Index is this process's index: 0 for the coordinator, 1.. for workers.
func (c *Cluster) Index() int { return c.self }

// Addr is this process's address.
func (c *Cluster) Addr() string { return c.addrs[c.self] }

// Peer returns the address of process i.
func (c *Cluster) Peer(i int) string { return c.addrs[i] }

// Hello is what the coordinator asked for.
func (c *Cluster) Hello() Hello { return c.hello }

// OnThisMachine is the number of the session's processes that run on this machine, this
// one included: those at a loopback address or localhost, at an address of one of this
// machine's interfaces, or at a host name that resolves to one of those (looked up within
// lookupTimeout; a name that does not resolve in time counts as another machine's).
func (c *Cluster) OnThisMachine() int {
	local := interfaceIPs()
	n := 0
	for i, addr := range c.addrs {
		if i == c.self || sameMachine(addr, local, lookupIPs) {
			n++
		}
	}
	return n
}

// lookupTimeout bounds the look-up of a peer's host name by OnThisMachine.
const lookupTimeout = time.Second

// lookupIPs resolves a host name with the system's resolver, within lookupTimeout.
func lookupIPs(host string) []net.IP {
	ctx, cancel := context.WithTimeout(context.Background(), lookupTimeout)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return nil
	}
	ips := make([]net.IP, len(addrs))
	for i, a := range addrs {
		ips[i] = a.IP
	}
	return ips
}

// sameMachine reports whether the process at addr (host:port) runs on the machine whose
// interfaces have the addresses local; a host name is resolved with lookup (nil: not
// resolved).
func sameMachine(addr string, local []net.IP, lookup func(host string) []net.IP) bool {
	host, err := checkPeer(addr)
	if err != nil {
		return false
	}
	if isLoopback(host) {
		return true
	}
	mine := func(ip net.IP) bool { return ip.IsLoopback() || slices.ContainsFunc(local, ip.Equal) }
	if ip := net.ParseIP(host); ip != nil {
		return mine(ip)
	}
	return lookup != nil && slices.ContainsFunc(lookup(host), mine)
}

// interfaceIPs returns the addresses of this machine's interfaces (none if it cannot
// list them: only loopback addresses are then this machine's).
func interfaceIPs() []net.IP {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	var ips []net.IP
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			ips = append(ips, n.IP)
		}
	}
	return ips
}

// Err is why the session ended, nil while it is up.
func (c *Cluster) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *Cluster) closed() bool {
	select {
	case <-c.stop:
		return true
	default:
		return false
	}
}

// Failed is closed when the session fails or ends.
func (c *Cluster) Failed() <-chan struct{} { return c.failed }

func newSession(ep *endpoint, id uint64, self int, addrs []string, timeout time.Duration) *Cluster {
	c := &Cluster{ep: ep, id: id, self: self, addrs: addrs, timeout: timeout, heard: make([]atomic.Int64, len(addrs)),
		failed: make(chan struct{}), acceptCh: make(chan struct{}), accepted: make([]bool, len(addrs)),
		stop: make(chan struct{})}
	c.bridges = make([]*actor.PID, len(addrs))
	for i, a := range addrs {
		c.bridges[i] = bridgePID(a)
	}
	now := time.Now().UnixNano()
	for i := range c.heard {
		c.heard[i].Store(now)
	}
	return c
}

func (c *Cluster) peerName(i int) string {
	if i == 0 {
		return fmt.Sprintf("coordinator %s", c.addrs[0])
	}
	return fmt.Sprintf("worker %s (process %d)", c.addrs[i], i)
}

// watched lists the processes whose silence fails the session: every worker for the
// coordinator, the coordinator for a worker.
func (c *Cluster) watched() []int {
	if c.self != 0 {
		return []int{0}
	}
	w := make([]int, 0, len(c.addrs)-1)
	for i := 1; i < len(c.addrs); i++ {
		w = append(w, i)
	}
	return w
}

// heartbeat sends heartbeats and watches for silent peers until the session ends.
func (c *Cluster) heartbeat() {
	every := min(time.Second, max(c.timeout/4, 10*time.Millisecond))
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case now := <-t.C:
			for _, i := range c.watched() {
				c.sendTo(i, fHeartbeat, 0, 0, nil)
				silent := now.Sub(time.Unix(0, c.heard[i].Load()))
				if silent <= c.timeout {
					continue
				}
				c.mu.Lock()
				accepted := c.self != 0 || c.accepted[i]
				gone := c.endedNow(i)
				c.mu.Unlock()
				switch {
				case gone: // it has what the run needed from it: it may go (acked)
				case accepted:
					c.fail(fmt.Errorf("cluster: %s has not answered for %s (peer timeout %s)",
						c.peerName(i), silent.Round(time.Millisecond), c.timeout))
				default:
					c.fail(fmt.Errorf("cluster: cannot reach %s: no answer to the handshake within %s (%s)",
						c.peerName(i), c.timeout, unreachableAdvice(c.addrs[i])))
				}
			}
		}
	}
}

// sendTo sends a frame to process i, its body the parts given, joined.
func (c *Cluster) sendTo(i int, kind byte, run, w uint64, body ...[]byte) {
	if c.mute.Load() {
		return
	}
	c.ep.sendPID(c.bridges[i], encodeFrame(kind, c.id, c.self, i, run, w, body...))
}

// unreachableAdvice is what an error about a worker at addr that never answered tells
// the user to check.
func unreachableAdvice(addr string) string {
	return "is a worker listening there? start one with: run worker --listen " + addr +
		`; name a worker as it printed itself after "listening on", and give --tls to both or neither`
}

// lost is called when the connection to addr breaks or cannot be made.
func (c *Cluster) lost(addr string) {
	for _, i := range c.watched() {
		if c.addrs[i] != addr {
			continue
		}
		c.mu.Lock()
		accepted := c.self != 0 || c.accepted[i]
		gone := c.endedNow(i)
		c.mu.Unlock()
		if gone {
			continue // it has what the run needed from it: it may go (acked)
		}
		if accepted {
			c.fail(fmt.Errorf("cluster: lost the connection to %s (the process died or closed its endpoint)", c.peerName(i)))
		} else {
			c.fail(fmt.Errorf("cluster: cannot reach %s (%s)", c.peerName(i), unreachableAdvice(addr)))
		}
	}
}

// endedNow reports whether worker i has already finished its part of the run in
// progress (acked) or ended between runs, recording it as ended (the next run fails on
// it). The coordinator's only; c.mu held.
func (c *Cluster) endedNow(i int) bool {
	if c.self != 0 {
		return false
	}
	if _, ok := c.ended[i]; ok {
		return true
	}
	if !c.acked[i] {
		return false
	}
	if c.ended == nil {
		c.ended = map[int]string{}
	}
	c.ended[i] = ""
	return true
}

// fail ends the session with err (the first error sticks) and tells the peers.
func (c *Cluster) fail(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	close(c.failed)
	c.mu.Unlock()
	var e Encoder
	e.String(err.Error())
	for _, i := range c.watched() {
		c.sendTo(i, fEnd, 0, 0, e.Bytes())
	}
}

// receive handles a frame of this session, on the goroutine of the reader of the
// peer's connection.
func (c *Cluster) receive(f *frame) {
	if f.from < 0 || f.from >= len(c.addrs) || f.from == c.self {
		return
	}
	c.heard[f.from].Store(time.Now().UnixNano())
	switch f.kind {
	case fHeartbeat:
		return
	case fAccept:
		d := NewDecoder(f.body)
		if reason := d.String(); reason != "" {
			c.fail(configErrorf("cluster: %s refused the session: %s", c.peerName(f.from), reason))
			return
		}
		c.mu.Lock()
		c.accepted[f.from] = true
		all := true
		for i := 1; i < len(c.addrs); i++ {
			all = all && c.accepted[i]
		}
		if all {
			select {
			case <-c.acceptCh:
			default:
				close(c.acceptCh)
			}
		}
		c.mu.Unlock()
		return
	case fEnd:
		d := NewDecoder(f.body)
		msg := d.String()
		c.mu.Lock()
		accepted := c.accepted[f.from]
		c.mu.Unlock()
		c.mu.Lock()
		idle := c.self == 0 && accepted && (!c.running || c.acked[f.from])
		if idle && c.ended == nil {
			c.ended = map[int]string{}
		}
		if idle {
			// Between runs: the worker finished its command (or its last run failed,
			// which every process of the session saw). Relaying an end now could
			// overtake the frames other workers still need from it to finish that run;
			// the next run, if any, fails on it (beginRun), and Close ends the rest.
			c.ended[f.from] = msg
		}
		c.mu.Unlock()
		if idle {
			return
		}
		switch {
		case c.self != 0 && msg == "":
			c.fail(fmt.Errorf("cluster: the %s ended the session", c.peerName(f.from)))
		case c.self != 0:
			c.fail(fmt.Errorf("cluster: the %s ended the session: %s", c.peerName(f.from), msg))
		case !accepted:
			c.fail(configErrorf("cluster: %s refused the session: %s", c.peerName(f.from), msg))
		case msg == "":
			c.fail(fmt.Errorf("cluster: %s ended its session early (its command finished after %d runs)",
				c.peerName(f.from), c.runs))
		default:
			c.fail(fmt.Errorf("cluster: %s failed: %s", c.peerName(f.from), msg))
		}
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.self == 0 && f.kind == fFinalAck && c.cur != nil && f.run == c.cur.k {
		if c.acked == nil {
			c.acked = map[int]bool{}
		}
		c.acked[f.from] = true
	}
	switch r := c.cur; {
	case r != nil && f.run == r.k && f.kind == fAbort:
		r.aborted(f) // at once: the controller may be queued behind a long window
	case r != nil && f.run == r.k:
		r.deliver(f)
	case f.run >= c.runs: // a frame for a run this process has not begun yet
		c.pending = append(c.pending, f)
	}
}

// beginRun registers run r; frames that arrived early are delivered to it.
func (c *Cluster) beginRun(r *distRun) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	if c.running {
		return configErrorf("cluster: runs of one session must not overlap (a sweep over several processes needs --jobs 1)")
	}
	for _, i := range slices.Sorted(maps.Keys(c.ended)) { // a worker that ended between runs
		if msg := c.ended[i]; msg != "" {
			return fmt.Errorf("cluster: %s failed: %s", c.peerName(i), msg)
		}
		return fmt.Errorf("cluster: %s ended its session early (its command finished after %d runs)", c.peerName(i), c.runs)
	}
	r.k = c.runs
	c.runs++
	c.running = true
	c.cur = r
	clear(c.acked)
	kept := c.pending[:0]
	for _, f := range c.pending {
		switch {
		case f.run == r.k:
			r.deliver(f)
		case f.run > r.k:
			kept = append(kept, f)
		}
	}
	c.pending = kept
	return nil
}

func (c *Cluster) endRun() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cur = nil
	c.running = false
}

// Close ends the session. A worker passes the error its command ended with (nil on
// success), which the coordinator reports if it still expected runs; the coordinator
// passes nil, or the error that ended its command. The endpoint stays up for other
// sessions; a process about to exit should leave the last frames a moment to go.
func (c *Cluster) Close(err error) {
	c.mu.Lock()
	already := c.err != nil
	if !already {
		if err == nil {
			c.err = errors.New("cluster: session closed")
		} else {
			c.err = err
		}
		close(c.failed)
	}
	c.mu.Unlock()
	if !already {
		var e Encoder
		if err != nil {
			e.String(err.Error())
		} else {
			e.String("")
		}
		for _, i := range c.watched() {
			c.sendTo(i, fEnd, 0, 0, e.Bytes())
		}
	}
	c.stopped.Do(func() { close(c.stop) })
	c.ep.unregister(c)
}

// Connect makes this process the coordinator of a session with the workers listening
// at peers (Listener): it binds its own endpoint, sends every worker the hello, and
// returns once each has accepted. It fails with an error naming the peer if one is
// unreachable, refuses (another binary or configuration: an ErrConfig error) or does
// not answer within the timeout.
func Connect(ctx context.Context, cfg ClusterConfig, peers []string, hello Hello) (*Cluster, error) {
	if len(peers) == 0 {
		return nil, configErrorf("cluster: no peers")
	}
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	for _, p := range peers {
		h, err := checkPeer(p)
		if err != nil {
			return nil, err
		}
		if !isLoopback(h) {
			cfg.TLS = true // a worker on another interface speaks TLS (tlsKey)
		}
	}
	ep, err := endpointFor(cfg)
	if err != nil {
		return nil, err
	}
	addrs := append([]string{ep.addr}, peers...)
	c := newSession(ep, randomID(), 0, addrs, cfg.Timeout)
	c.hello = hello
	ep.register(c)
	for i := 1; i < len(addrs); i++ {
		c.sendTo(i, fHello, 0, 0, encodeHello(cfg, c.id, i, addrs, hello))
	}
	go c.heartbeat()
	select {
	case <-c.acceptCh:
		return c, nil
	case <-c.failed:
		err = c.Err()
	case <-ctx.Done():
		err = fmt.Errorf("cluster: connecting to the workers: %w (%v)", ErrInterrupted, ctx.Err())
	}
	c.Close(err)
	return nil, err
}

func randomID() uint64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return uint64(time.Now().UnixNano())
	}
	return binary.LittleEndian.Uint64(b[:]) | 1
}

func encodeHello(cfg ClusterConfig, session uint64, index int, addrs []string, h Hello) []byte {
	var e Encoder
	e.String(cfg.Version)
	e.Fixed64(registry().hash)
	e.Int(int64(cfg.Timeout))
	e.Uint(uint64(index))
	e.Uint(uint64(len(addrs)))
	for _, a := range addrs {
		e.String(a)
	}
	e.Uint(uint64(len(h.Run.Command)))
	for _, a := range h.Run.Command {
		e.String(a)
	}
	e.Uint(uint64(len(h.Run.Flags)))
	for _, f := range h.Run.Flags {
		e.String(f.Name)
		e.String(f.Value)
	}
	e.Blob(h.Run.Config)
	e.String(h.ConfigHash)
	e.Int(time.Now().UnixNano())
	e.Blob(helloMAC(cfg.Token, session, e.Bytes()))
	return e.Bytes()
}

type helloMsg struct {
	version  string
	registry uint64
	timeout  time.Duration
	index    int
	addrs    []string
	hello    Hello
	sent     time.Time // when the coordinator sent it (its clock)
	signed   int       // the bytes of the body the MAC covers
	mac      []byte
}

func decodeHello(b []byte) (helloMsg, error) {
	d := NewDecoder(b)
	var h helloMsg
	h.version = d.String()
	h.registry = d.Fixed64()
	h.timeout = time.Duration(d.Int())
	h.index = int(d.Uint())
	n := d.Count(1)
	for range n {
		h.addrs = append(h.addrs, d.String())
	}
	n = d.Count(1)
	for range n {
		h.hello.Run.Command = append(h.hello.Run.Command, d.String())
	}
	n = d.Count(2)
	for range n {
		h.hello.Run.Flags = append(h.hello.Run.Flags, Flag{Name: d.String(), Value: d.String()})
	}
	h.hello.Run.Config = d.Blob()
	h.hello.ConfigHash = d.String()
	h.sent = time.Unix(0, d.Int())
	h.signed = len(b) - d.Remaining()
	h.mac = d.Blob()
	if d.Err() == nil && (h.index < 1 || h.index >= len(h.addrs)) {
		d.Fail(fmt.Errorf("process index %d out of range", h.index))
	}
	return h, d.Err()
}

// Listener is a worker's end: it waits for coordinators (Accept) on the process's
// endpoint and serves one session at a time.
type Listener struct {
	ep      *endpoint
	version string
	token   []byte
	seen    map[uint64]time.Time // session ids of authenticated hellos, for helloMaxAge
	cur     *Cluster
}

// Listen makes this process a worker listening at cfg.Listen.
func Listen(cfg ClusterConfig) (*Listener, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	ep, err := endpointFor(cfg)
	if err != nil {
		return nil, err
	}
	l := &Listener{ep: ep, version: cfg.Version, token: slices.Clone(cfg.Token), seen: map[uint64]time.Time{}}
	ep.mu.Lock()
	ep.listeners = append(ep.listeners, l)
	ep.mu.Unlock()
	return l, nil
}

// Addr is the address the listener is bound to (with the port chosen if 0 was asked).
func (l *Listener) Addr() string { return l.ep.addr }

// Close ends the session in progress, if any, and stops accepting.
func (l *Listener) Close() {
	l.ep.mu.Lock()
	cur := l.cur
	l.ep.listeners = slices.DeleteFunc(l.ep.listeners, func(x *Listener) bool { return x == l })
	l.ep.mu.Unlock()
	if cur != nil {
		cur.Close(errors.New("cluster: the worker is shutting down"))
	}
}

// Accept waits for a coordinator's hello and returns the session. A hello from another
// binary is refused (the coordinator is told why) and returned as an ErrConfig error;
// the listener can Accept again. The caller resolves the configuration the hello
// describes and calls Confirm, then runs, then Close. While the listener serves a
// session, hellos are refused as busy.
func (l *Listener) Accept(ctx context.Context) (*Cluster, error) {
	ep := l.ep
	for {
		var f *frame
		select {
		case f = <-ep.hellos:
		case <-ctx.Done():
			return nil, fmt.Errorf("cluster: waiting for a coordinator: %w (%v)", ErrInterrupted, ctx.Err())
		}
		h, err := decodeHello(f.body)
		if err != nil || f.from != 0 {
			continue // garbage: no one to answer
		}
		refuse := func(reason string) {
			var e Encoder
			e.String(reason)
			ep.send(h.addrs[0], encodeFrame(fAccept, f.session, h.index, 0, 0, 0, e.Bytes()))
		}
		if err := l.authenticate(f, &h); err != nil {
			refuse("refused") // nothing more for a peer that did not prove it holds the token
			return nil, configErrorf("cluster: refused coordinator %s: %v", h.addrs[0], err)
		}
		switch {
		case h.version != l.version:
			reason := fmt.Sprintf("version mismatch: the worker at %s runs %q, the coordinator %q", ep.addr, l.version, h.version)
			refuse(reason)
			return nil, configErrorf("cluster: refused coordinator %s: %s", h.addrs[0], reason)
		case h.registry != registry().hash:
			reason := fmt.Sprintf("the worker at %s has another set of message codecs (another build)", ep.addr)
			refuse(reason)
			return nil, configErrorf("cluster: refused coordinator %s: %s", h.addrs[0], reason)
		}
		addrs := h.addrs
		addrs[h.index] = ep.addr // as this process knows itself
		c := newSession(ep, f.session, h.index, addrs, h.timeout)
		c.hello = h.hello
		ep.register(c)
		ep.mu.Lock()
		l.cur = c
		ep.mu.Unlock()
		go c.heartbeat()
		return c, nil
	}
}

// authenticate checks an authenticated hello: its MAC with the listener's token, its
// age, and that its session was not seen before. Without a token it accepts anything.
func (l *Listener) authenticate(f *frame, h *helloMsg) error {
	if len(l.token) == 0 {
		return nil
	}
	if !hmac.Equal(h.mac, helloMAC(l.token, f.session, f.body[:h.signed])) {
		return errors.New("not authenticated (no token, or not this worker's token)")
	}
	now := time.Now()
	if age := now.Sub(h.sent); age > helloMaxAge || age < -helloMaxAge {
		return fmt.Errorf("an authenticated hello sent %s ago: a replay, or clocks that differ by more than %s", age.Round(time.Second), helloMaxAge)
	}
	for id, t := range l.seen { //lint:ordered pruning, order irrelevant
		if now.Sub(t) > 2*helloMaxAge {
			delete(l.seen, id)
		}
	}
	if _, dup := l.seen[f.session]; dup {
		return errors.New("a hello seen before (a replay)")
	}
	l.seen[f.session] = now
	return nil
}

// Confirm completes a worker's handshake: configHash is the hash of the configuration
// the worker resolved from the hello. A mismatch refuses the session (the coordinator
// is told, with both hashes) and returns an ErrConfig error.
func (c *Cluster) Confirm(configHash string) error {
	if c.self == 0 {
		return nil
	}
	var e Encoder
	if configHash != c.hello.ConfigHash {
		reason := fmt.Sprintf("configuration mismatch: the worker at %s resolved configuration %s, the coordinator %s",
			c.Addr(), configHash, c.hello.ConfigHash)
		e.String(reason)
		c.sendTo(0, fAccept, 0, 0, e.Bytes())
		return configErrorf("cluster: refused coordinator %s: %s", c.addrs[0], reason)
	}
	e.String("")
	c.sendTo(0, fAccept, 0, 0, e.Bytes())
	return nil
}
