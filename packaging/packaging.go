// Package packaging holds the service definitions the agent installs (systemd service and
// timer, launchd daemon, Windows scheduled task) and renders the templated ones.
package packaging

import (
	"bytes"
	"embed"
	"encoding/binary"
	"encoding/xml"
	"fmt"
	"strings"
	"text/template"
	"unicode/utf16"
)

//go:embed vulnkeeper-agent.service vulnkeeper-agent.timer com.vulnkeeper.agent.plist vulnkeeper-agent-task.xml
var files embed.FS

// Names of the installed units and labels.
const (
	SystemdService = "vulnkeeper-agent.service"
	SystemdTimer   = "vulnkeeper-agent.timer"
	LaunchdLabel   = "com.vulnkeeper.agent"
	WindowsTask    = "vulnkeeper-agent"
	packagedBinary = "/usr/bin/vulnkeeper"
)

// Command is the agent's program and arguments, as the service runs it.
type Command struct {
	Exe  string
	Args []string // after Exe
}

// SystemdUnits returns the service and the timer, the service pointing at exe.
func SystemdUnits(exe string) (service, timer []byte) {
	s, _ := files.ReadFile(SystemdService)
	t, _ := files.ReadFile(SystemdTimer)
	if exe != "" && exe != packagedBinary {
		s = bytes.ReplaceAll(s, []byte("ExecStart="+packagedBinary+" "), []byte("ExecStart="+systemdQuote(exe)+" "))
	}
	return s, t
}

// SystemdEnv is /etc/vulnkeeper/agent.env for the service. ExecStart splits
// VULNKEEPER_AGENT_ARGS at white space, so those arguments cannot hold any.
func SystemdEnv(server, keyFile string, args []string) ([]byte, error) {
	for _, a := range args {
		if strings.ContainsAny(a, " \t\n") {
			return nil, fmt.Errorf("argument %q holds white space, which the systemd unit cannot pass", a)
		}
	}
	return []byte("# Written by vulnkeeper agent install.\n" +
		"VULNKEEPER_AGENT_SERVER=" + envQuote(server) + "\n" +
		"VULNKEEPER_AGENT_KEY_FILE=" + envQuote(keyFile) + "\n" +
		"VULNKEEPER_AGENT_ARGS=" + envQuote(strings.Join(args, " ")) + "\n"), nil
}

// envQuote double-quotes a value of an environment file (no $ or % expansion there).
func envQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", " ").Replace(s) + `"`
}

// LaunchdPlist renders the launchd daemon running c.
func LaunchdPlist(c Command) ([]byte, error) {
	return render("com.vulnkeeper.agent.plist", struct{ Args []string }{append([]string{c.Exe}, c.Args...)})
}

// WindowsTaskXML renders the scheduled task running c, in UTF-16 with a byte order mark as
// schtasks expects.
func WindowsTaskXML(c Command) ([]byte, error) {
	b, err := render("vulnkeeper-agent-task.xml", struct{ Exe, CommandLine string }{c.Exe, windowsCommandLine(c.Args)})
	if err != nil {
		return nil, err
	}
	u := utf16.Encode([]rune(strings.ReplaceAll(string(b), "\n", "\r\n")))
	out := make([]byte, 2+2*len(u))
	out[0], out[1] = 0xff, 0xfe
	for i, r := range u {
		binary.LittleEndian.PutUint16(out[2+2*i:], r)
	}
	return out, nil
}

func render(name string, data any) ([]byte, error) {
	t, err := template.New(name).Funcs(template.FuncMap{"xml": xmlEscape}).ParseFS(files, name)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, data); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func xmlEscape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// systemdQuote double-quotes a word of an ExecStart line when it needs it.
func systemdQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\"'\\$%") {
		return s
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", "$$", "%", "%%")
	return `"` + r.Replace(s) + `"`
}

// windowsCommandLine quotes arguments the way CommandLineToArgvW splits them.
func windowsCommandLine(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && !strings.ContainsAny(a, " \t\"") {
			out[i] = a
			continue
		}
		var b strings.Builder
		b.WriteByte('"')
		slashes := 0
		for _, c := range a {
			switch c {
			case '\\':
				slashes++
				continue
			case '"':
				b.WriteString(strings.Repeat(`\`, 2*slashes+1))
			default:
				b.WriteString(strings.Repeat(`\`, slashes))
			}
			slashes = 0
			b.WriteRune(c)
		}
		b.WriteString(strings.Repeat(`\`, 2*slashes))
		b.WriteByte('"')
		out[i] = b.String()
	}
	return strings.Join(out, " ")
}
