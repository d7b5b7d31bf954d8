package web

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"mime"
	"net"
	"net/smtp"
	"strconv"
	"strings"
	"time"

	"github.com/vulnkeeper/vulnkeeper/appliance/notify"
)

// SMTPMailer sends mail for appliance/notify through the configured server: STARTTLS is
// required unless notify.smtp_starttls is false, PLAIN authentication only over TLS.
type SMTPMailer struct {
	opts  notify.Options
	roots *x509.CertPool // nil: the system's
}

// NewSMTPMailer builds the mailer; roots replaces the system CAs (tests), nil keeps them.
func NewSMTPMailer(opts notify.Options, roots *x509.CertPool) *SMTPMailer {
	return &SMTPMailer{opts: opts, roots: roots}
}

// Send implements notify.Mailer.
func (m *SMTPMailer) Send(ctx context.Context, to, subject, body string) error {
	addr := net.JoinHostPort(m.opts.SMTPHost, strconv.Itoa(m.opts.SMTPPort))
	d := net.Dialer{Timeout: 15 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("smtp dial %s: %w", addr, err)
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(time.Minute)
	}
	_ = conn.SetDeadline(deadline)
	c, err := smtp.NewClient(conn, m.opts.SMTPHost)
	if err != nil {
		conn.Close()
		return fmt.Errorf("smtp greeting: %w", err)
	}
	defer c.Close()
	if err := m.session(c, to, subject, body); err != nil {
		return err
	}
	return c.Quit()
}

func (m *SMTPMailer) session(c *smtp.Client, to, subject, body string) error {
	if err := c.Hello("vulnkeeper"); err != nil {
		return fmt.Errorf("smtp EHLO: %w", err)
	}
	if ok, _ := c.Extension("STARTTLS"); ok {
		if err := c.StartTLS(&tls.Config{ServerName: m.opts.SMTPHost, RootCAs: m.roots, MinVersion: tls.VersionTLS12}); err != nil {
			return fmt.Errorf("smtp STARTTLS: %w", err)
		}
	} else if m.opts.SMTPStartTLS {
		return fmt.Errorf("smtp: the server does not offer STARTTLS (required by notify.smtp_starttls)")
	}
	if m.opts.SMTPUsername != "" {
		if err := c.Auth(smtp.PlainAuth("", m.opts.SMTPUsername, m.opts.SMTPPassword, m.opts.SMTPHost)); err != nil {
			return fmt.Errorf("smtp AUTH: %w", err)
		}
	}
	if err := c.Mail(m.opts.SMTPFrom); err != nil {
		return fmt.Errorf("smtp MAIL FROM: %w", err)
	}
	if err := c.Rcpt(to); err != nil {
		return fmt.Errorf("smtp RCPT TO: %w", err)
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("smtp DATA: %w", err)
	}
	if _, err := w.Write(message(m.opts.SMTPFrom, to, subject, body)); err != nil {
		return fmt.Errorf("smtp DATA: %w", err)
	}
	return w.Close()
}

// message is an RFC 5322 plain-text message with CRLF line ends.
func message(from, to, subject, body string) []byte {
	var b strings.Builder
	h := func(k, v string) { b.WriteString(k + ": " + v + "\r\n") }
	h("From", from)
	h("To", to)
	h("Subject", mime.QEncoding.Encode("utf-8", subject))
	h("Date", time.Now().UTC().Format(time.RFC1123Z))
	h("MIME-Version", "1.0")
	h("Content-Type", "text/plain; charset=utf-8")
	h("Content-Transfer-Encoding", "8bit")
	b.WriteString("\r\n")
	b.WriteString(strings.ReplaceAll(strings.ReplaceAll(body, "\r\n", "\n"), "\n", "\r\n"))
	return []byte(b.String())
}
