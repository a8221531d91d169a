package actors

import (
	"testing"
	"time"
)

// Whatever a remote peer sends, decoding its frame and hello returns an error or a
// value, never a panic; and a hello that decodes is not authenticated by accident.
func FuzzDecodeHello(f *testing.F) {
	cfg := ClusterConfig{Version: "v", Timeout: time.Second, Token: []byte("fuzz token")}
	hello := encodeHello(cfg, 7, 1, []string{"127.0.0.1:1", "127.0.0.1:2"},
		Hello{Run: RunSpec{Command: []string{"phold"}, Flags: []Flag{{"seed", "2"}}, Config: []byte("a: 1")}, ConfigHash: "h"})
	f.Add(encodeFrame(fHello, 7, 0, 1, 0, 0, hello))
	f.Add(encodeFrame(fAccept, 7, 1, 0, 0, 0, []byte{0}))
	f.Add([]byte{frameMagic})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		fr, err := decodeFrame(b)
		if err != nil {
			return
		}
		h, err := decodeHello(fr.body)
		if err != nil {
			return
		}
		if h.signed < 0 || h.signed > len(fr.body) {
			t.Fatalf("signed length %d outside the body of %d bytes", h.signed, len(fr.body))
		}
		l := &Listener{token: cfg.Token, seen: map[uint64]time.Time{}}
		if l.authenticate(fr, &h) == nil && !(fr.session == 7 && h.hello.ConfigHash == "h" && h.hello.Run.String() == "phold --seed=2 (configuration of 4 bytes)" &&
			string(h.hello.Run.Config) == "a: 1") {
			// Only the genuine hello authenticates (anything else would be a forged
			// HMAC-SHA256).
			t.Fatalf("an altered hello authenticated: session %d, %+v", fr.session, h.hello)
		}
	})
}
