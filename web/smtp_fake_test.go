package web

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeSMTP is a tiny SMTP server for tests: EHLO, STARTTLS (when tls is set), AUTH PLAIN,
// MAIL, RCPT, DATA, QUIT. It records each message with whether it came over TLS and who
// authenticated.
type fakeSMTP struct {
	ln    net.Listener
	tls   *tls.Config // nil: STARTTLS is not offered
	mu    sync.Mutex
	mails []fakeMail
}

type fakeMail struct {
	From, To, Data, Auth string
	TLS                  bool
}

// newFakeSMTP listens on loopback; withTLS offers STARTTLS with a fresh certificate for
// 127.0.0.1, whose pool the client must trust.
func newFakeSMTP(t *testing.T, withTLS bool) (*fakeSMTP, *x509.CertPool) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &fakeSMTP{ln: ln}
	var pool *x509.CertPool
	if withTLS {
		var cert tls.Certificate
		cert, pool = selfSigned(t)
		s.tls = &tls.Config{Certificates: []tls.Certificate{cert}}
	}
	go s.serve()
	t.Cleanup(func() { ln.Close() })
	return s, pool
}

func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "fake smtp"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

func (s *fakeSMTP) port() int { return s.ln.Addr().(*net.TCPAddr).Port }

func (s *fakeSMTP) take() []fakeMail {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.mails
	s.mails = nil
	return m
}

func (s *fakeSMTP) serve() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		go s.session(c)
	}
}

func (s *fakeSMTP) session(c net.Conn) {
	defer c.Close()
	r, overTLS := bufio.NewReader(c), false
	say := func(line string) { _, _ = c.Write([]byte(line + "\r\n")) }
	var m fakeMail
	say("220 fake ESMTP")
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		verb, arg, _ := strings.Cut(strings.TrimRight(line, "\r\n"), " ")
		switch strings.ToUpper(verb) {
		case "EHLO":
			if s.tls != nil && !overTLS {
				say("250-fake\r\n250-STARTTLS\r\n250 AUTH PLAIN")
			} else {
				say("250-fake\r\n250 AUTH PLAIN")
			}
		case "STARTTLS":
			say("220 go ahead")
			tc := tls.Server(c, s.tls)
			if tc.Handshake() != nil {
				return
			}
			c, r, overTLS = tc, bufio.NewReader(tc), true
		case "AUTH":
			m.Auth = arg
			say("235 ok")
		case "MAIL":
			m.From = arg
			say("250 ok")
		case "RCPT":
			m.To = arg
			say("250 ok")
		case "DATA":
			say("354 end with .")
			var b strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
				b.WriteString(l)
			}
			m.Data, m.TLS = b.String(), overTLS
			s.mu.Lock()
			s.mails = append(s.mails, m)
			s.mu.Unlock()
			say("250 queued")
		case "QUIT":
			say("221 bye")
			return
		default:
			say("502 not implemented")
		}
	}
}
