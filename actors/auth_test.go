package actors

import (
	"context"
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
			Hello{ConfigHash: "other-cfg", Args: []string{"phold"}})
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
