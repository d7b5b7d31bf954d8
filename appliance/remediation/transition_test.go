package remediation

import (
	"errors"
	"testing"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

func requireValidation(t *testing.T, err error, field, constraint string) {
	t.Helper()
	var ve *appliance.ValidationError
	if !errors.As(err, &ve) || ve.Field != field || ve.Constraint != constraint {
		t.Fatalf("err = %v (%T), want ValidationError %s/%s", err, err, field, constraint)
	}
}

func TestTransitionTable(t *testing.T) {
	const (
		ok   = ""
		deny = "transition"
		note = "note" // allowed with a note, refused without one
	)
	o, ip, r, ar, fp := appliance.AssignmentOpen, appliance.AssignmentInProgress, appliance.AssignmentResolved, appliance.AssignmentAcceptedRisk, appliance.AssignmentFalsePositive
	table := map[appliance.AssignmentStatus]map[appliance.AssignmentStatus]string{
		o:  {o: ok, ip: ok, r: ok, ar: note, fp: note},
		ip: {o: ok, ip: ok, r: ok, ar: note, fp: note},
		r:  {o: ok, ip: deny, r: ok, ar: deny, fp: deny},
		ar: {o: ok, ip: ok, r: ok, ar: ok, fp: deny},
		fp: {o: ok, ip: deny, r: deny, ar: deny, fp: ok},
	}
	for _, from := range Statuses() {
		for _, to := range Statuses() {
			t.Run(string(from)+"->"+string(to), func(t *testing.T) {
				checkTransition(t, from, to, table[from][to])
			})
		}
	}
}

func checkTransition(t *testing.T, from, to appliance.AssignmentStatus, want string) {
	withNote := Transition(from, to, "vendor confirms not exploitable here")
	withoutNote := Transition(from, to, "  ")
	switch want {
	case "":
		if withNote != nil || withoutNote != nil {
			t.Fatalf("refused: %v / %v", withNote, withoutNote)
		}
	case "note":
		if withNote != nil {
			t.Fatalf("refused with a note: %v", withNote)
		}
		requireValidation(t, withoutNote, "notes", "required")
	default:
		requireValidation(t, withNote, "status", "transition")
		requireValidation(t, withoutNote, "status", "transition")
	}
}

func TestTransitionUnknownStatus(t *testing.T) {
	tests := []struct{ from, to appliance.AssignmentStatus }{
		{"closed", appliance.AssignmentOpen}, {appliance.AssignmentOpen, "done"}, {"", appliance.AssignmentOpen}, {"OPEN", appliance.AssignmentInProgress},
	}
	for _, tt := range tests {
		requireValidation(t, Transition(tt.from, tt.to, "n"), "status", "enum")
	}
}

func TestParseStatus(t *testing.T) {
	for _, s := range Statuses() {
		if got, err := ParseStatus(string(s)); err != nil || got != s {
			t.Errorf("ParseStatus(%q) = %q, %v", s, got, err)
		}
	}
	for _, bad := range []string{"", "Open", "in-progress", "closed", " open"} {
		_, err := ParseStatus(bad)
		requireValidation(t, err, "status", "enum")
	}
}

func TestParsePriority(t *testing.T) {
	tests := []struct {
		in   string
		want Priority
		ok   bool
	}{
		{"", PriorityMedium, true},
		{"critical", PriorityCritical, true},
		{"high", PriorityHigh, true},
		{"medium", PriorityMedium, true},
		{"low", PriorityLow, true},
		{"High", "", false},
		{"urgent", "", false},
		{" low", "", false},
	}
	for _, tt := range tests {
		got, err := ParsePriority(tt.in)
		if tt.ok && (err != nil || got != tt.want) {
			t.Errorf("ParsePriority(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
		if !tt.ok {
			requireValidation(t, err, "priority", "enum")
		}
	}
}
