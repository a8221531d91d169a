package actors

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"time"
)

// TLS between the processes of a session: the traffic after the hello (windows,
// messages, state) is encrypted and both ends authenticated, with keys that need no
// distribution beyond the session token. Both ends derive the same certificate
// authority from the token (an Ed25519 key seeded by a hash of it, so it is the same
// on every machine that holds the token); each end makes a leaf certificate for its own
// fresh key, signed by that authority, and requires the other's to be signed by it
// (TLS 1.3, mutual). A peer without the token can neither complete the handshake nor
// read the traffic, and a coordinator knows its workers hold the token too.

// tlsServerName is the name every leaf certificate carries and every end checks.
const tlsServerName = "seastar-sim-cluster"

// clusterTLS returns the TLS configuration of an end that holds token.
func clusterTLS(token []byte) (*tls.Config, error) {
	if len(token) == 0 {
		return nil, configErrorf("cluster: TLS needs a session token")
	}
	seed := sha256.Sum256(append([]byte("seastar-sim cluster CA v1\x00"), token...))
	caKey := ed25519.NewKeyFromSeed(seed[:])
	epoch := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "seastar-sim cluster authority"},
		NotBefore: epoch, NotAfter: epoch.AddDate(100, 0, 0), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, caKey.Public(), caKey)
	if err != nil {
		return nil, fmt.Errorf("cluster: TLS authority: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, fmt.Errorf("cluster: TLS authority: %w", err)
	}
	pub, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("cluster: TLS key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return nil, fmt.Errorf("cluster: TLS serial: %w", err)
	}
	now := time.Now()
	leafTmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: tlsServerName}, DNSNames: []string{tlsServerName},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(7 * 24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTmpl, ca, pub, caKey)
	if err != nil {
		return nil, fmt.Errorf("cluster: TLS certificate: %w", err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return &tls.Config{
		Certificates: []tls.Certificate{{Certificate: [][]byte{leafDER}, PrivateKey: key}},
		RootCAs:      pool, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert,
		ServerName: tlsServerName, MinVersion: tls.VersionTLS13,
	}, nil
}
