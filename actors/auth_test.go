package actors

import (
	"context"
	"crypto/x509"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A worker with a token accepts only hellos authenticated with it, tells the others
// nothing but "refused", and refuses a replayed hello.
func TestClusterAuthentication(t *testing.T) {
	token := []byte("a shared secret of the session")
	l, err := Listen(ClusterConfig{Timeout: 5 * time.Second, Token: token, Version: "v-secret-build"})
	require.NoError(t, err)
	defer l.Close()
	ctx := context.Background()
	accept := func() <-chan error {
		ch := make(chan error, 1)
		go func() {
			s, err := l.Accept(ctx)
			if err == nil {
				err = s.Confirm("cfg")
				s.Close(err)
			}
			ch <- err
		}()
		return ch
	}
	cases := []struct {
		name  string
		token []byte
		build string
	}{{"no token", nil, "v-secret-build"}, {"wrong token", []byte("guess"), "v-secret-build"}, {"wrong token, other build", []byte("guess"), "v-other"}}
	for _, tc := range cases {
		werr := accept()
		_, err := Connect(ctx, ClusterConfig{Timeout: 5 * time.Second, Token: tc.token, Version: tc.build}, []string{l.Addr()},
			Hello{ConfigHash: "other-cfg", Run: RunSpec{Command: []string{"phold"}}})
		require.Error(t, err, tc.name)
		assert.ErrorIs(t, err, ErrConfig, tc.name)
		assert.True(t, strings.HasSuffix(err.Error(), "refused the session: refused"), "%s: %v", tc.name, err)
		assert.NotContains(t, err.Error(), "v-secret-build", "no build id to an unauthenticated peer")
		assert.NotContains(t, err.Error(), "cfg", "no configuration hash either")
		assert.ErrorContains(t, <-werr, "not authenticated", tc.name)
	}

	// The right token: accepted.
	werr := accept()
	cl, err := Connect(ctx, ClusterConfig{Timeout: 5 * time.Second, Token: token, Version: "v-secret-build"}, []string{l.Addr()},
		Hello{ConfigHash: "cfg"})
	require.NoError(t, err)
	cl.Close(nil)
	require.NoError(t, <-werr)

	// A replay: the same authenticated hello (same session id) a second time.
	epCfg := ClusterConfig{}
	require.NoError(t, epCfg.setDefaults())
	ep, err := endpointFor(epCfg)
	require.NoError(t, err)
	cfg := ClusterConfig{Timeout: 5 * time.Second, Token: token, Version: "v-secret-build"}
	hello := encodeHello(cfg, 12345, 1, []string{ep.addr, l.Addr()}, Hello{ConfigHash: "cfg"})
	frame := encodeFrame(fHello, 12345, 0, 1, 0, 0, hello)
	first := make(chan error, 1)
	go func() {
		s, err := l.Accept(ctx)
		if err == nil {
			s.Close(nil)
		}
		first <- err
	}()
	ep.send(l.Addr(), frame)
	require.NoError(t, <-first)
	second := make(chan error, 1)
	go func() {
		_, err := l.Accept(ctx)
		second <- err
	}()
	ep.send(l.Addr(), frame)
	assert.ErrorContains(t, <-second, "seen before")
}

// With TLS (keys derived from the token) a session with the right token runs as
// before; a peer with another token, or speaking plain gRPC, cannot even complete the
// connection: the traffic is encrypted and both ends must hold the token.
func TestClusterTLS(t *testing.T) {
	if testing.Short() {
		t.Skip("several endpoints, several seconds")
	}
	if raceDetector {
		// It starts endpoints while others serve in one process, and protoactor-go's
		// remote.Start sets gRPC's global logger each time (remote/server.go), which
		// races with the TLS handshakes' logging of the endpoints already serving: an
		// upstream data race of several endpoints per process, which only tests have
		// (a run has one endpoint per process). The suite runs this test without the
		// race detector; TestWorkerProcesses (cmd/run) covers TLS across real processes.
		t.Skip("upstream data race in protoactor-go's remote.Start with several endpoints in one process")
	}
	token := []byte("a shared secret for TLS")
	cfg := ClusterConfig{Timeout: 3 * time.Second, Token: token, TLS: true}
	l, err := Listen(cfg)
	require.NoError(t, err)
	defer l.Close()
	ctx := context.Background()
	served := make(chan error, 1)
	go func() {
		s, err := l.Accept(ctx)
		if err == nil {
			err = s.Confirm("cfg")
			s.Close(err)
		}
		served <- err
	}()
	coord := cfg
	coord.Listen = "localhost:0" // another endpoint than the worker's: the traffic crosses gRPC
	cl, err := Connect(ctx, coord, []string{l.Addr()}, Hello{ConfigHash: "cfg"})
	require.NoError(t, err, "same token, TLS on both ends")
	cl.Close(nil)
	require.NoError(t, <-served)

	for name, c := range map[string]ClusterConfig{
		"another token, TLS": {Listen: "localhost:0", Timeout: 3 * time.Second, Token: []byte("another secret"), TLS: true},
		"the token, plain":   {Listen: "localhost:0", Timeout: 3 * time.Second, Token: token},
	} {
		_, err := Connect(ctx, c, []string{l.Addr()}, Hello{ConfigHash: "cfg"})
		require.Error(t, err, name)
	}
	_, err = Listen(ClusterConfig{TLS: true})
	assert.ErrorContains(t, err, "TLS needs a session token")
}

// The authority both ends derive from a token is the same everywhere; another token
// gives another one, which does not verify the first's certificates.
func TestClusterTLSAuthorityFromToken(t *testing.T) {
	a1, err := clusterTLS([]byte("t1"))
	require.NoError(t, err)
	a2, err := clusterTLS([]byte("t1"))
	require.NoError(t, err)
	b, err := clusterTLS([]byte("t2"))
	require.NoError(t, err)
	leaf, err := x509.ParseCertificate(a1.Certificates[0].Certificate[0])
	require.NoError(t, err)
	_, err = leaf.Verify(x509.VerifyOptions{Roots: a2.RootCAs, DNSName: tlsServerName, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	assert.NoError(t, err, "the same token: the same authority")
	_, err = leaf.Verify(x509.VerifyOptions{Roots: b.RootCAs, DNSName: tlsServerName})
	assert.Error(t, err, "another token: another authority")
}
